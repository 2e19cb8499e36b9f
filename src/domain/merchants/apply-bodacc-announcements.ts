import { ServiceError } from "../../errors/service-error.ts";
import type { Signal, SignalNotice } from "../merchant.ts";
import { officialCheckExpiresAt } from "../trust/signal-catalog.ts";
import { identityVerifiedAt } from "../trust/signal-expiry.ts";
import { checkTransition, feedChange } from "./lifecycle.ts";
import { changedMeanwhile } from "./load-registered.ts";
import type { Actor, MerchantDecisionDeps, RegisteredMerchant } from "./merchant-registry.ts";
import type { OfficialAnnouncement } from "./official-announcement.ts";

export const BODACC_DATASET_URL = "https://bodacc-datadila.opendatasoft.com/explore/dataset/annonces-commerciales/";

/** The publication dates a file covers: its first and its last (YYYY-MM-DD). */
export interface BodaccPeriod {
  from: string;
  to: string;
}

export type BodaccOutcome =
  | { kind: "updated"; abId: string }
  | { kind: "archived"; abId: string }
  | { kind: "unchanged"; abId: string };

const normalized = (text: string | null) =>
  (text ?? "").normalize("NFD").replace(/\p{M}/gu, "").toLowerCase().replace(/\s+/g, " ").trim();

/**
 * The announcements an announcement takes out of account (ids): a cancellation (`annulation`),
 * and a judgment retracting an earlier one on third-party opposition, take out the announcement
 * they refer to and themselves; a correction (`rectificatif`) takes out the one it replaces and
 * stands in its place, unless it is a "Rapport de radiation d'office", which undoes a
 * deregistration. The rule of the BODACC pipeline of annuaire-entreprises (DINUM).
 */
export function withdrawnBy(announcement: OfficialAnnouncement): string[] {
  const previous = announcement.replaces ? [announcement.replaces] : [];
  if (announcement.type === "annulation") return [...previous, announcement.id];
  if (normalized(announcement.judgment?.family ?? null).includes("retractation sur tierce opposition")) {
    return [...previous, announcement.id];
  }
  if (announcement.type === "rectificatif") {
    const undoesDeregistration =
      normalized(announcement.deregistration?.comment ?? null) === "rapport de radiation d'office";
    return undoesDeregistration ? [...previous, announcement.id] : previous;
  }
  return [];
}

const court = (text: string | null) => normalized(text).replace(/^greffe (du|de la|de l') ?/, "");
const newestFirst = (a: OfficialAnnouncement, b: OfficialAnnouncement) =>
  b.publishedOn.localeCompare(a.publishedOn) || b.id.localeCompare(a.id);

/**
 * The announcements (of those still standing) that count against a company, newest first: an
 * insolvency proceeding naming it; a sale of a business it owned or ran; its deregistration, unless
 * the company went on elsewhere: the comment "Transfert du siège hors ressort", or a later
 * announcement from another court (the head office moved: the old court deregisters, the new one
 * registers) or a later registration (a sole trader keeps the SIREN when taking up business again).
 */
export function adverseAnnouncements(
  siren: string,
  announcements: readonly OfficialAnnouncement[],
): OfficialAnnouncement[] {
  return announcements
    .filter((announcement) => {
      if (announcement.kind === "collective") return announcement.subjects.includes(siren);
      if (announcement.kind === "sale") return announcement.previousOwners.includes(siren);
      if (announcement.kind !== "radiation" || !announcement.subjects.includes(siren)) return false;
      if (normalized(announcement.deregistration?.comment ?? null).startsWith("transfert du siege")) return false;
      return !announcements.some(
        (later) =>
          later.kind !== "radiation" &&
          later.publishedOn > announcement.publishedOn &&
          (later.subjects.includes(siren) || later.previousOwners.includes(siren)) &&
          ((later.court !== null && court(later.court) !== court(announcement.court)) ||
            later.family === "immatriculation" ||
            later.family === "creation"),
      );
    })
    .sort(newestFirst);
}

const LABELS: Record<OfficialAnnouncement["kind"], string> = {
  collective: "Procédure collective",
  radiation: "Radiation du registre du commerce et des sociétés",
  sale: "Vente ou cession du fonds",
  other: "Annonce",
};

export function noticeOf(announcement: OfficialAnnouncement): SignalNotice {
  return {
    id: announcement.id,
    publishedOn: announcement.publishedOn,
    kind: announcement.kind,
    label:
      announcement.judgment?.nature ??
      (announcement.kind === "sale" ? announcement.saleCategory : null) ??
      announcement.familyLabel ??
      LABELS[announcement.kind],
    decidedOn: announcement.judgment?.decidedOn ?? announcement.deregistration?.ceasedOn ?? null,
    court: announcement.court,
    url: announcement.url,
  };
}

/** What an audit event says of a bodacc_clean record. */
const summary = (signal: Signal | undefined) =>
  signal
    ? { status: signal.status, checked_on: signal.verifiedAt?.slice(0, 10) ?? null, notice: signal.notice?.id ?? null }
    : null;

const sameSignal = (a: Signal | undefined, b: Signal) =>
  a !== undefined &&
  a.status === b.status &&
  a.source === b.source &&
  a.sourceUrl === b.sourceUrl &&
  a.value === b.value &&
  a.verifiedAt === b.verifiedAt &&
  a.expiresAt === b.expiresAt &&
  JSON.stringify(a.notice ?? null) === JSON.stringify(b.notice ?? null);

/**
 * Brings the merchants of one company (SIREN) in line with the BODACC announcements a file holds
 * about it (those a cancellation or a correction did not take out: see `withdrawnBy`), each
 * merchant in its own transaction:
 *
 * - `bodacc_clean` is recorded `failed` with the newest adverse announcement as its notice
 *   (`adverseAnnouncements`), or `verified` when there is none, checked on the file's last
 *   publication date and valid two years, like the SIRENE identity check;
 * - a clean file never replaces a later check, nor a failure published before the file's period
 *   (the file says nothing of it); of two failures, the newer announcement stays;
 * - a deregistration archives the merchant (lifecycle.ts), with the announcement as the reason;
 * - archived merchants are left as they are.
 *
 * The same announcements twice change nothing the second time.
 */
export function applyBodaccAnnouncements(
  deps: Pick<MerchantDecisionDeps, "registry" | "now">,
  siren: string,
  announcements: readonly OfficialAnnouncement[],
  period: BodaccPeriod,
  actor: Actor,
): BodaccOutcome[] {
  const adverse = adverseAnnouncements(siren, announcements);
  const latest = adverse[0];
  const deregistration = adverse.find((announcement) => announcement.kind === "radiation");
  const checkedAt = `${period.to}T00:00:00.000Z`;
  const base = {
    key: "bodacc_clean",
    proofStatus: "official_source_verified",
    source: "official_file",
    verifiedAt: checkedAt,
    recordedAt: checkedAt,
    origin: "bodacc",
  } as const;
  const signal: Signal = latest
    ? {
        ...base,
        status: "failed",
        sourceUrl: latest.url ?? BODACC_DATASET_URL,
        value: false,
        expiresAt: null,
        notice: noticeOf(latest),
        // When BODACC's record of the company last changed, as far as the check says: the announcement.
        changedAt: `${latest.publishedOn}T00:00:00.000Z`,
      }
    : {
        ...base,
        status: "verified",
        sourceUrl: BODACC_DATASET_URL,
        value: true,
        expiresAt: officialCheckExpiresAt(checkedAt),
        notice: null,
      };

  return deps.registry.abIdsOfSiren(siren).map((abId): BodaccOutcome => {
    const existing = deps.registry.find(abId);
    if (!existing || existing.merchant.status === "ARCHIVED") return { kind: "unchanged", abId };
    const known = existing.signals.find((candidate) => candidate.key === "bodacc_clean");
    const keepKnown =
      known !== undefined &&
      (latest
        ? known.status === "failed" && (known.notice?.publishedOn ?? "") > (signal.notice?.publishedOn ?? "")
        : (known.status === "failed" &&
            known.notice !== null &&
            known.notice !== undefined &&
            known.notice.publishedOn < period.from) ||
          (known.status === "verified" && (known.verifiedAt ?? "") > checkedAt));
    const recorded = keepKnown || sameSignal(known, signal) ? null : signal;
    if (deregistration) return archive(deps, existing, deregistration, recorded, known, actor);
    if (!recorded) return { kind: "unchanged", abId };

    const nowIso = deps.now().toISOString();
    const notice = recorded.notice;
    const written = deps.registry.update({
      abId,
      expectedRevision: existing.revision,
      fields: { updatedAt: nowIso },
      products: null,
      territorialProof: undefined,
      signals: [recorded],
      event: {
        at: nowIso,
        actor,
        action: "updated",
        changes: { bodacc_clean: { from: summary(known), to: summary(recorded) } },
        reason: notice
          ? `BODACC : ${notice.label}, annonce ${notice.id} publiée le ${notice.publishedOn}`
          : `BODACC : aucune procédure collective, radiation ni cession publiée du ${period.from} au ${period.to}`,
      },
      feed: feedChange(existing.merchant.status, existing.merchant.status),
    });
    if (!written) throw changedMeanwhile(abId);
    return { kind: "updated", abId };
  });
}

function archive(
  deps: Pick<MerchantDecisionDeps, "registry" | "now">,
  existing: RegisteredMerchant,
  deregistration: OfficialAnnouncement,
  recorded: Signal | null,
  known: Signal | undefined,
  actor: Actor,
): BodaccOutcome {
  const { merchant } = existing;
  const now = deps.now();
  const nowIso = now.toISOString();
  const reason = `radiation du RCS publiée au BODACC le ${deregistration.publishedOn} (annonce ${deregistration.id}${
    deregistration.court ? `, ${deregistration.court}` : ""
  })`;
  const check = checkTransition(merchant.status, "ARCHIVED", {
    identityVerified: identityVerifiedAt(existing.signals, nowIso),
    descriptionReviewed: merchant.description === null || !merchant.descriptionLlmUnreviewed,
    reason,
  });
  if (!check.allowed) throw new ServiceError("CONFLICT", `Merchant ${merchant.abId}: ${check.reason}`);
  const written = deps.registry.update({
    abId: merchant.abId,
    expectedRevision: existing.revision,
    fields: { status: "ARCHIVED", updatedAt: nowIso },
    products: null,
    territorialProof: undefined,
    signals: recorded ? [recorded] : [],
    event: {
      at: nowIso,
      actor,
      action: "status_changed",
      changes: {
        status: { from: merchant.status, to: "ARCHIVED" },
        ...(recorded ? { bodacc_clean: { from: summary(known), to: summary(recorded) } } : {}),
      },
      reason,
    },
    feed: feedChange(merchant.status, "ARCHIVED"),
  });
  if (!written) throw changedMeanwhile(merchant.abId);
  return { kind: "archived", abId: merchant.abId };
}
