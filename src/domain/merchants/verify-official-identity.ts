import { ServiceError } from "../../errors/service-error.ts";
import type { Merchant, MerchantClosure, Signal } from "../merchant.ts";
import { officialCheckExpiresAt } from "../trust/signal-catalog.ts";
import { checkTransition, feedChange } from "./lifecycle.ts";
import { changedMeanwhile, loadRegistered, readRegistered } from "./load-registered.ts";
import {
  type Actor,
  decideInRegistry,
  type MerchantLifecycleDeps,
  type MerchantRegistryView,
} from "./merchant-registry.ts";
import type { OfficialLookup, OfficialRegistryLookup } from "./official-registry-lookup.ts";

export interface IdentityCheckDeps extends Pick<MerchantLifecycleDeps, "registry" | "now"> {
  lookup: OfficialRegistryLookup;
}

export type IdentityCheckOutcome =
  /** Found and active: siret_verified is verified (renewed) from now. */
  | { kind: "verified"; abId: string; url: string }
  /** The register does not know the SIRET: siret_verified failed; the status stays. */
  | { kind: "not_found"; abId: string; url: string }
  /**
   * The establishment closed: siret_verified failed and the merchant's closure recorded (its status
   * kept: resolvable, saying closed, never a search hit), as the SIRENE import does.
   */
  | { kind: "closed"; abId: string; url: string }
  /** The establishment opposed publication: the merchant is archived, as the SIRENE import does. */
  | { kind: "not_public"; abId: string; url: string; archived: boolean };

const SOURCE_NAME = "API Recherche d'entreprises";

/**
 * Checks a merchant's SIRET against an official register now (the API Recherche d'entreprises)
 * and records the answer in one transaction with its audit event and change-feed row:
 * - found and active: `siret_verified` verified, source `official_api`, its source URL the address
 *   queried, valid for the catalogue's official period from now;
 * - found but closed: `siret_verified` failed, and the merchant's closure recorded (since the
 *   register's date, source SIRENE read through the API) unless one is already: the merchant stays
 *   resolvable and says closed, and is no longer a search hit (docs/decisions.md, "Issue 37: only
 *   what is in business"); found active again, a closure SIRENE recorded is lifted;
 * - not found: `siret_verified` failed (its status stays: the operator decides);
 * - not public (diffusion partielle): archived, as the SIRENE import does, the signal untouched.
 * The register is asked before anything is written; a register that cannot answer throws
 * (OfficialRegistryError) and nothing changes. An archived merchant is not checked (CONFLICT).
 */
export async function verifyOfficialIdentity(
  deps: IdentityCheckDeps,
  abId: string,
  actor: Actor,
): Promise<IdentityCheckOutcome> {
  const before = await readRegistered(deps, abId);
  if (before.merchant.status === "ARCHIVED") {
    throw new ServiceError("CONFLICT", `Merchant ${abId} is ARCHIVED, which is final: its identity is not checked`);
  }
  const { siret } = before.merchant;
  const { url, establishment } = await deps.lookup.findEstablishment(siret);
  // The answer is applied to the merchant as it is now: it may have moved while the register answered.
  return decideInRegistry(deps, { abIds: [abId] }, (decision) =>
    applyOfficialAnswer(decision, abId, siret, { url, establishment }, actor),
  );
}

function applyOfficialAnswer(
  deps: Omit<IdentityCheckDeps, "registry"> & { registry: MerchantRegistryView },
  abId: string,
  siret: string,
  { url, establishment }: OfficialLookup,
  actor: Actor,
): IdentityCheckOutcome {
  const current = loadRegistered(deps, abId);
  if (current.merchant.siret !== siret) throw changedMeanwhile(abId);
  const { merchant } = current;
  const nowIso = deps.now().toISOString();
  const known = current.signals.find((signal) => signal.key === "siret_verified");
  const found = establishment !== null && establishment.siret === siret;

  // Archiving goes through the lifecycle table (from any status but ARCHIVED, with a reason).
  const mayArchive = (reason: string) =>
    checkTransition(merchant.status, "ARCHIVED", { identityVerified: false, descriptionReviewed: true, reason })
      .allowed;
  const write = (change: {
    signal: Signal | null;
    status: Merchant["status"];
    reason: string;
    /** undefined: the closure stays as it is. */
    closure?: MerchantClosure | null;
  }) => {
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    if (change.status !== merchant.status) changes.status = { from: merchant.status, to: change.status };
    if (change.signal) changes.siret_verified = { from: describe(known), to: describe(change.signal) };
    if (change.closure !== undefined)
      changes.closure = { from: closureOf(merchant.closure), to: closureOf(change.closure) };
    const written = deps.registry.update({
      abId,
      expectedRevision: current.revision,
      fields: {
        ...(change.status !== merchant.status ? { status: change.status } : {}),
        ...(change.closure !== undefined ? { closure: change.closure } : {}),
        updatedAt: nowIso,
      },
      products: null,
      territorialProof: undefined,
      ...(change.signal ? { signals: [change.signal] } : {}),
      event: {
        at: nowIso,
        actor,
        action: change.status !== merchant.status ? "status_changed" : "updated",
        changes,
        reason: change.reason,
      },
      feed: feedChange(merchant.status, change.status),
    });
    if (!written) throw changedMeanwhile(abId);
  };
  const signal = (status: "verified" | "failed"): Signal => ({
    key: "siret_verified",
    status,
    proofStatus: "official_source_verified",
    source: "official_api",
    sourceUrl: url,
    value: status === "verified",
    verifiedAt: nowIso,
    recordedAt: nowIso,
    expiresAt: officialCheckExpiresAt(nowIso),
    origin: "recherche-entreprises",
  });

  if (!found) {
    write({
      signal: signal("failed"),
      status: merchant.status,
      reason: `SIRET ${siret} introuvable au répertoire SIRENE (${SOURCE_NAME})`,
    });
    return { kind: "not_found", abId, url };
  }
  if (!establishment.public) {
    const reason = `établissement non diffusible au répertoire SIRENE (${SOURCE_NAME})`;
    const archived = mayArchive(reason);
    if (archived) write({ signal: null, status: "ARCHIVED", reason });
    return { kind: "not_public", abId, url, archived };
  }
  if (!establishment.active) {
    const reason = `établissement fermé au répertoire SIRENE${establishment.closedOn ? ` depuis le ${establishment.closedOn}` : ""} (${SOURCE_NAME})`;
    // A closure already recorded (by the stock, the daily import or BODACC) stands: the first source to say so.
    const closure: MerchantClosure | undefined = merchant.closure
      ? undefined
      : {
          closedOn: establishment.closedOn ?? nowIso.slice(0, 10),
          source: "sirene",
          sourceUrl: url,
          label: `Établissement fermé (${SOURCE_NAME})`,
          announcementId: null,
          recordedAt: nowIso,
        };
    write({ signal: signal("failed"), status: merchant.status, reason, ...(closure ? { closure } : {}) });
    return { kind: "closed", abId, url };
  }
  write({
    signal: signal("verified"),
    status: merchant.status,
    reason: `établissement actif au répertoire SIRENE (${SOURCE_NAME})`,
    // Open again in SIRENE: SIRENE's closure is lifted, as the import does; BODACC's stands.
    ...(merchant.closure?.source === "sirene" ? { closure: null } : {}),
  });
  return { kind: "verified", abId, url };
}

/** A closure in the audit log: since when and from which source. */
function closureOf(closure: MerchantClosure | null): { closed_on: string; source: string } | null {
  return closure ? { closed_on: closure.closedOn, source: closure.source } : null;
}

/** A signal's state in the audit log: its status and when it was checked. */
function describe(signal: Signal | undefined): string | null {
  return signal ? `${signal.status} ${signal.verifiedAt ?? signal.recordedAt}` : null;
}
