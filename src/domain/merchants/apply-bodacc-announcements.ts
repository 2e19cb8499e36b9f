import type { MerchantClosure, Signal, SignalNotice } from "../merchant.ts";
import { officialCheckExpiresAt } from "../trust/signal-catalog.ts";
import { feedChange } from "./lifecycle.ts";
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
  | { kind: "closed"; abId: string }
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
 * - a deregistration, or a liquidation closed (`closesTheCompany`), records the merchant's closure
 *   with the announcement as its source: still resolvable, saying closed, never a search hit;
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
  const closing = adverse.find(closesTheCompany);
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
    // A closure recorded stands (the first source to say so): later files only update bodacc_clean.
    if (closing && !existing.merchant.closure) return recordClosure(deps, existing, closing, recorded, known, actor);
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

/**
 * Whether an announcement says the company is gone: its deregistration from the RCS, or a judgment
 * closing its liquidation (for want of assets, or its debts paid: either ends the company, whose
 * deregistration follows). An opening of liquidation is not a closure by itself (the court may let
 * the business trade on for a while): it fails bodacc_clean, as any proceeding does.
 */
export function closesTheCompany(announcement: OfficialAnnouncement): boolean {
  if (announcement.kind === "radiation") return true;
  if (announcement.kind !== "collective") return false;
  const nature = normalized(announcement.judgment?.nature ?? null);
  return nature.includes("cloture") && (nature.includes("liquidation") || nature.includes("insuffisance d'actif"));
}

/**
 * Records the company's end as the merchant's closure (docs/decisions.md, "Issue 37: only what is
 * in business"): closed since the end of activity (deregistration) or the judgment's date, else
 * the publication's, with the announcement as source. The merchant keeps its status and stays
 * resolvable, saying so; it is no longer a search hit.
 */
function recordClosure(
  deps: Pick<MerchantDecisionDeps, "registry" | "now">,
  existing: RegisteredMerchant,
  closing: OfficialAnnouncement,
  recorded: Signal | null,
  known: Signal | undefined,
  actor: Actor,
): BodaccOutcome {
  const { merchant } = existing;
  const nowIso = deps.now().toISOString();
  const notice = noticeOf(closing);
  const closedOn = notice.decidedOn ?? closing.publishedOn;
  const closure: MerchantClosure = {
    closedOn,
    source: "bodacc",
    sourceUrl: closing.url ?? BODACC_DATASET_URL,
    label: notice.label,
    announcementId: closing.id,
    recordedAt: nowIso,
  };
  const written = deps.registry.update({
    abId: merchant.abId,
    expectedRevision: existing.revision,
    fields: { closure, updatedAt: nowIso },
    products: null,
    territorialProof: undefined,
    signals: recorded ? [recorded] : [],
    event: {
      at: nowIso,
      actor,
      action: "updated",
      changes: {
        closure: { from: null, to: { closed_on: closedOn, source: "bodacc", announcement: closing.id } },
        ...(recorded ? { bodacc_clean: { from: summary(known), to: summary(recorded) } } : {}),
      },
      reason: `BODACC : ${notice.label}, annonce ${closing.id} publiée le ${closing.publishedOn}${
        closing.court ? ` (${closing.court})` : ""
      }`,
    },
    feed: feedChange(merchant.status, merchant.status),
  });
  if (!written) throw changedMeanwhile(merchant.abId);
  return { kind: "closed", abId: merchant.abId };
}
