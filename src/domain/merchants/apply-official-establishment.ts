import { betterWritten, sameWritten } from "../format.ts";
import type { Merchant, MerchantClosure, Signal, TerritorialProof } from "../merchant.ts";
import { type Trade, tradeOf } from "../sectors.ts";
import { officialCheckExpiresAt, originOf } from "../trust/signal-catalog.ts";
import {
  ADDRESS_VERIFIED_MIN_SCORE,
  differingFields,
  diffOf,
  newAbId,
  newMerchant,
  territorialProofOf,
} from "./build-merchant.ts";
import { feedChange } from "./lifecycle.ts";
import { changedMeanwhile } from "./load-registered.ts";
import type { Actor, MerchantDecisionDeps, RegisteredMerchant } from "./merchant-registry.ts";
import type { OfficialLegalUnitChange } from "./official-changes.ts";
import type {
  OfficialEstablishment,
  OfficialLegalUnit,
  OfficialPosition,
  OfficialReading,
} from "./official-establishment.ts";

export type OfficialOutcome =
  | { kind: "created"; abId: string }
  | { kind: "updated"; abId: string }
  | { kind: "archived"; abId: string }
  /** Nothing changed but the date the register confirms it as of: its signals' dates moved, nothing else. */
  | { kind: "confirmed"; abId: string }
  /** The register says it closed: its closure is recorded, its status kept (resolvable, never a search hit). */
  | { kind: "closed"; abId: string }
  | { kind: "unchanged"; abId: string }
  | { kind: "skipped"; reason: OfficialSkipReason };

/**
 * Why a row brought no merchant in: not public, closed, a trade the registry does not cover, a
 * commune missing from the reference, no date to hold the identity check from (the source's date
 * is unknown: a stock with no processing date in it and no `--file-date`), no name the files give
 * (no sign and no public legal unit read: the legal units file names it), or no creation date the
 * files give.
 */
export type OfficialSkipReason =
  | "not_public"
  | "closed"
  | "naf_not_covered"
  | "commune_unknown"
  | "undated"
  | "name_unknown"
  | "creation_date_unknown";

/** What an import of an official source counts of its records' outcomes. */
export interface OfficialCounts {
  created: number;
  updated: number;
  archived: number;
  /** Merchants an official closure was recorded for (still resolvable, no longer search hits). */
  closed: number;
  /** Known establishments the source lists unchanged: their identity check now holds from its date. */
  confirmed: number;
  unchanged: number;
  skipped: Record<string, number>;
}

export function officialCounts(): OfficialCounts {
  return { created: 0, updated: 0, archived: 0, closed: 0, confirmed: 0, unchanged: 0, skipped: {} };
}

/** Counts an outcome; answers the merchant it wrote (created, updated, archived, closed, confirmed), if any. */
export function countOutcome(counts: OfficialCounts, outcome: OfficialOutcome): string | null {
  if (outcome.kind === "skipped") {
    counts.skipped[outcome.reason] = (counts.skipped[outcome.reason] ?? 0) + 1;
    return null;
  }
  counts[outcome.kind] += 1;
  return outcome.kind === "unchanged" ? null : outcome.abId;
}

export const SIRENE_DATASET_URL =
  "https://www.data.gouv.fr/datasets/base-sirene-des-entreprises-et-de-leurs-etablissements-siren-siret";

/** INSEE's stock file, where an establishment is read unless said otherwise. */
export const SIRENE_STOCK_READING: OfficialReading = { source: "official_file", url: SIRENE_DATASET_URL };

/** What SIRENE said of a record besides the check: where it was read, and when INSEE last changed it. */
export interface SireneRecordDates {
  readFrom?: OfficialReading | null;
  /** The establishment's dateDernierTraitementEtablissement. */
  changedAt?: string | null;
  /** The company's dateDernierTraitementUniteLegale. */
  companyChangedAt?: string | null;
}

/**
 * What SIRENE says of an establishment, as signals: its identity, verified as of the source's date
 * (the stock's, or the day of API Sirene's changes: `officialCheckedAt`) and holding two years
 * from it, and, when the legal units give the company's creation date, the company's age,
 * recorded as that date: the years are counted at the instant they are read (signal-catalog.ts),
 * never at the import's. When INSEE last changed each record is kept beside (`changedAt`).
 */
export function sireneSignals(
  verifiedAt: string,
  companyCreatedOn: string | null,
  record: SireneRecordDates = {},
): Signal[] {
  const reading = record.readFrom ?? SIRENE_STOCK_READING;
  const checked = {
    proofStatus: "official_source_verified",
    source: reading.source,
    sourceUrl: reading.url,
    verifiedAt,
    recordedAt: verifiedAt,
    expiresAt: officialCheckExpiresAt(verifiedAt),
    origin: "sirene",
  } as const;
  const identity: Signal = {
    ...checked,
    key: "siret_verified",
    status: "verified",
    value: true,
    ...(record.changedAt ? { changedAt: record.changedAt } : {}),
  };
  if (!companyCreatedOn) return [identity];
  const age: Signal = {
    ...checked,
    key: "company_age_years",
    status: "verified",
    value: companyCreatedOn,
    ...(record.companyChangedAt ? { changedAt: record.companyChangedAt } : {}),
  };
  return [identity, age];
}

/**
 * When an establishment's identity check holds from: the date its source speaks as of (the
 * stock's date, the day of API Sirene's changes; DESIGN.md, "National size"), or INSEE's own change
 * of the record when that came later (a change is never confirmed before it was made). Null when
 * the source's date is unknown. INSEE's change date alone is never the check's: most of France has
 * not changed in years and is confirmed by every stock that lists it active.
 */
export function officialCheckedAt(record: { asOf?: string | null; processedAt: string | null }): string | null {
  const asOf = record.asOf ?? null;
  if (asOf === null) return null;
  return record.processedAt !== null && record.processedAt > asOf ? record.processedAt : asOf;
}

/**
 * What becomes of a signal an official source gives again, beside the one recorded: `record` (new,
 * or its status or value changed: a change, with its audit event), `confirm` (the same said as of
 * a later date, or from elsewhere: its dates move, nothing else), or nothing (the same, or a check
 * recorded later than this one, which stands).
 */
function signalWrite(known: Signal | undefined, given: Signal): "record" | "confirm" | null {
  if (!known) return "record";
  if ((known.verifiedAt ?? known.recordedAt) > (given.verifiedAt ?? given.recordedAt)) return null;
  if (known.status !== given.status || known.value !== given.value) return "record";
  const same =
    known.verifiedAt === given.verifiedAt &&
    known.expiresAt === given.expiresAt &&
    (known.changedAt ?? null) === (given.changedAt ?? null) &&
    known.source === given.source &&
    known.sourceUrl === given.sourceUrl &&
    originOf(known) === originOf(given);
  return same ? null : "confirm";
}

/**
 * The name a merchant is shown under, in INSEE's order of precedence: the establishment's sign,
 * its usual name, then its company's name (for a sole trader, the usual name of the person). Null
 * when the files read give none: a name is never made up.
 */
export function officialDisplayName(establishment: OfficialEstablishment): string | null {
  return establishment.name ?? establishment.legalUnit?.legalName ?? null;
}

/**
 * Brings the registry in line with one establishment of an official source (a SIRENE stock's row,
 * API Sirene's answer for a day): a new active public establishment of a covered trade becomes a
 * PROBATION merchant with its identity verified as of the source's date; a known one takes the
 * source's address, activity and, with its company, the company's name and creation date; one
 * the source lists unchanged is confirmed as of its date (its signals' dates move, nothing else);
 * a closed one records its merchant's closure (recordClosure: resolvable, never a search hit) and
 * one open again lifts SIRENE's closure. A non-public establishment is never stored (one already
 * known is archived). Nothing is invented: a row whose source gives no name, no creation date or
 * no date for the check brings no merchant in, and a check recorded later than the source's date
 * (through the official API, say) is kept. The same row twice changes nothing the second time.
 */
export function applyOfficialEstablishment(
  deps: MerchantDecisionDeps,
  establishment: OfficialEstablishment,
  actor: Actor,
): OfficialOutcome {
  const trade = tradeOf(establishment);
  const closing = !establishment.active || !establishment.public;
  // Most of a national file is other trades: an open establishment of one is skipped unread.
  if (!closing && !trade) return { kind: "skipped", reason: "naf_not_covered" };
  const existingId = deps.registry.abIdOfSiret(establishment.siret);
  const existing = existingId ? deps.registry.find(existingId) : null;
  const now = deps.now();
  const nowIso = now.toISOString();
  if (closing) {
    if (!existing || existing.merchant.status === "ARCHIVED") {
      return { kind: "skipped", reason: establishment.public ? "closed" : "not_public" };
    }
    if (establishment.public) {
      // Since when: the closed period's start (dateDebut), else INSEE's processing, else the source's date.
      const closedOn =
        establishment.closedOn ??
        establishment.processedAt?.slice(0, 10) ??
        establishment.asOf?.slice(0, 10) ??
        nowIso.slice(0, 10);
      return recordClosure(
        deps,
        existing,
        {
          closedOn,
          sourceUrl: establishment.readFrom?.url ?? SIRENE_DATASET_URL,
          label: "Établissement fermé (état administratif F)",
          reason: `établissement fermé au répertoire SIRENE le ${closedOn}`,
        },
        actor,
      );
    }
    return archivedBySirene(deps, existing, "établissement devenu non diffusible au répertoire SIRENE", actor);
  }
  if (!trade) return { kind: "skipped", reason: "naf_not_covered" };
  const commune =
    deps.communes.findByInsee?.(establishment.inseeCode) ??
    deps.communes.find(establishment.postalCode, establishment.city) ??
    null;
  if (!commune) return { kind: "skipped", reason: "commune_unknown" };
  const checkedAt = officialCheckedAt(establishment);
  if (!checkedAt) return { kind: "skipped", reason: "undated" };
  // The town as the commune reference writes it (hyphens, accents), not INSEE's capitals.
  const city = commune.name;
  const proof = placed(
    territorialProofOf({ find: () => commune }, { postal_code: establishment.postalCode, city }),
    establishment.position ?? null,
    checkedAt,
  );
  const unit = establishment.legalUnit ?? null;
  const officialSignals = sireneSignals(checkedAt, unit?.createdOn ?? null, {
    readFrom: establishment.readFrom ?? null,
    changedAt: establishment.processedAt,
    companyChangedAt: unit?.processedAt ?? null,
  });

  if (!existing) {
    const name = officialDisplayName(establishment);
    if (!name || !unit) return { kind: "skipped", reason: "name_unknown" };
    const foundedOn = unit.createdOn ?? establishment.createdOn;
    if (!foundedOn) return { kind: "skipped", reason: "creation_date_unknown" };
    const abId = newAbId(deps.registry, deps.randomId);
    const merchant = newMerchant(
      {
        abId,
        siret: establishment.siret,
        legalName: unit.legalName,
        businessName: name,
        nafCode: establishment.nafCode,
        nafCode2025: establishment.nafCode2025,
        street: establishment.street,
        postalCode: establishment.postalCode,
        city,
        foundedOn,
      },
      nowIso,
    );
    deps.registry.create({
      merchant,
      territorialProof: proof,
      products: [],
      signals: officialSignals,
      event: {
        at: nowIso,
        actor,
        action: "created",
        changes: {
          siret: { from: null, to: establishment.siret },
          naf_code: { from: null, to: establishment.nafCode },
          ...(establishment.nafCode2025 ? { naf_code_2025: { from: null, to: establishment.nafCode2025 } } : {}),
          ...(unit.legalForm ? { legal_form: { from: null, to: unit.legalForm } } : {}),
        },
        reason: "établissement actif et diffusible au répertoire SIRENE",
      },
      feed: "created",
    });
    return { kind: "created", abId };
  }

  const { merchant } = existing;
  const { next: fields, set } = differingFields(merchant);
  set("street", betterWritten(merchant.street, establishment.street));
  set("postalCode", establishment.postalCode);
  set("city", city);
  setCompany(merchant, unit, establishment.name, trade, set);
  // Open again in SIRENE (a row corrected, an establishment reopened): SIRENE's closure is lifted; BODACC's stands.
  if (merchant.closure?.source === "sirene") set("closure", null);
  // A row without a NAF 2025 code keeps the one known, unless its main code changed (it was that activity's).
  const nafCode2025 =
    establishment.nafCode2025 ?? (merchant.nafCode === establishment.nafCode ? merchant.nafCode2025 : null);
  set("nafCode", establishment.nafCode);
  set("nafCode2025", nafCode2025);
  set("sector", tradeOf({ nafCode: establishment.nafCode, nafCode2025 })?.sector ?? trade.sector);
  const { recorded, confirmed } = signalWrites(existing.signals, officialSignals);
  const current = existing.territorialProof;
  const position = establishment.position ?? null;
  const moved =
    position !== null &&
    (current?.latitude !== position.latitude ||
      current?.longitude !== position.longitude ||
      current?.geocodingScore !== proof.geocodingScore);
  if (Object.keys(fields).length === 0 && recorded.length === 0 && !moved) {
    // Most of a newer stock: the same establishment, confirmed as of a later date.
    return confirmOnly(deps, merchant.abId, confirmed);
  }
  const changes = { ...diffOf(merchant, fields), ...signalChanges(existing.signals, recorded) };
  const signals = [...recorded, ...confirmed];
  if (moved) {
    changes.position = {
      from: current ? [current.latitude, current.longitude] : null,
      to: [proof.latitude, proof.longitude],
    };
  }
  // A new spelling of the same town keeps the proof; a new postal code or town, or a position, renews it.
  const addressChanged =
    "postalCode" in fields || (fields.city !== undefined && !sameWritten(fields.city, merchant.city)) || moved;
  const written = deps.registry.update({
    abId: merchant.abId,
    expectedRevision: existing.revision,
    fields: { ...fields, updatedAt: nowIso },
    products: null,
    territorialProof: addressChanged ? proof : undefined,
    signals,
    event: { at: nowIso, actor, action: "updated", changes, reason: "répertoire SIRENE" },
    feed: feedChange(merchant.status, merchant.status),
  });
  if (!written) throw changedMeanwhile(merchant.abId);
  return { kind: "updated", abId: merchant.abId };
}

/**
 * Brings the merchants of one company (SIREN) in line with the company as API Sirene answers for
 * it on the day INSEE processed it (renamed, ceased, its creation date corrected): each known
 * merchant takes the company's name and creation date (its business name too when it only stood
 * in for the company's), and `company_age_years` is recorded, or confirmed, as of that day, like
 * a stock's; a ceased company records its merchants' closure, as a closed establishment does (INSEE
 * closes every establishment of a ceased company, and the day's establishments say so too). A
 * company that is not public gives no name:
 * nothing is taken from it. Archived merchants are left as they are; the same answer twice changes
 * nothing the second time.
 */
export function applyOfficialLegalUnit(
  deps: MerchantDecisionDeps,
  change: OfficialLegalUnitChange,
  actor: Actor,
): OfficialOutcome[] {
  const checkedAt = officialCheckedAt(change) ?? change.asOf;
  return deps.registry.abIdsOfSiren(change.siren).map((abId): OfficialOutcome => {
    const existing = deps.registry.find(abId);
    if (!existing || existing.merchant.status === "ARCHIVED") return { kind: "unchanged", abId };
    if (change.ceased) {
      // Since when: the ceased period's start (dateDebut), else INSEE's processing, else the day asked.
      const closedOn = change.ceasedOn ?? change.processedAt?.slice(0, 10) ?? change.asOf.slice(0, 10);
      return recordClosure(
        deps,
        existing,
        {
          closedOn,
          sourceUrl: change.url,
          label: "Unité légale cessée (état administratif C)",
          reason: `unité légale cessée au répertoire SIRENE le ${closedOn}`,
        },
        actor,
      );
    }
    const unit = change.unit;
    if (!unit) return { kind: "skipped", reason: "not_public" };
    const { merchant } = existing;
    const { next: fields, set } = differingFields(merchant);
    setCompany(merchant, unit, null, tradeOf(merchant), set);
    const companySignals = sireneSignals(checkedAt, unit.createdOn, {
      readFrom: { source: "official_api", url: change.url },
      companyChangedAt: change.processedAt,
    }).filter((signal) => signal.key === "company_age_years");
    const { recorded, confirmed } = signalWrites(existing.signals, companySignals);
    if (Object.keys(fields).length === 0 && recorded.length === 0) return confirmOnly(deps, abId, confirmed);
    const nowIso = deps.now().toISOString();
    const written = deps.registry.update({
      abId,
      expectedRevision: existing.revision,
      fields: { ...fields, updatedAt: nowIso },
      products: null,
      territorialProof: undefined,
      signals: [...recorded, ...confirmed],
      event: {
        at: nowIso,
        actor,
        action: "updated",
        changes: { ...diffOf(merchant, fields), ...signalChanges(existing.signals, recorded) },
        reason: "répertoire SIRENE (unité légale)",
      },
      feed: feedChange(merchant.status, merchant.status),
    });
    if (!written) throw changedMeanwhile(abId);
    return { kind: "updated", abId };
  });
}

/** A merchant archived because SIRENE says its establishment (or its company) is closed or no longer public. */
function archivedBySirene(
  deps: Pick<MerchantDecisionDeps, "registry" | "now">,
  existing: RegisteredMerchant,
  reason: string,
  actor: Actor,
): { kind: "archived"; abId: string } {
  const nowIso = deps.now().toISOString();
  const written = deps.registry.update({
    abId: existing.merchant.abId,
    expectedRevision: existing.revision,
    fields: { status: "ARCHIVED", updatedAt: nowIso },
    products: null,
    territorialProof: undefined,
    event: {
      at: nowIso,
      actor,
      action: "status_changed",
      changes: { status: { from: existing.merchant.status, to: "ARCHIVED" } },
      reason,
    },
    feed: feedChange(existing.merchant.status, "ARCHIVED"),
  });
  if (!written) throw changedMeanwhile(existing.merchant.abId);
  return { kind: "archived", abId: existing.merchant.abId };
}

/**
 * The company's part of a known merchant (the legal units file, the company API Sirene answers
 * with): its legal name and creation date, and its business name when the source gives the
 * establishment's sign, or when the merchant's only stood in for the company's. A name the
 * merchant wrote the same way as the source (its own case and accents) is kept.
 */
function setCompany(
  merchant: Merchant,
  unit: OfficialLegalUnit | null,
  sign: string | null,
  trade: Trade | undefined,
  set: ReturnType<typeof differingFields>["set"],
): void {
  const setText = (key: "legalName" | "businessName", value: string) => {
    if (!sameWritten(merchant[key], value)) set(key, value);
  };
  if (unit) {
    setText("legalName", unit.legalName);
    if (unit.createdOn) set("foundedOn", unit.createdOn);
  }
  if (sign) setText("businessName", sign);
  else if (unit && !sameWritten(merchant.businessName, unit.legalName) && nameStandsInForLegalName(merchant, trade)) {
    set("businessName", unit.legalName);
  }
}

/** The official signals a source gives again, sorted against those recorded (`signalWrite`). */
function signalWrites(known: readonly Signal[], given: readonly Signal[]): { recorded: Signal[]; confirmed: Signal[] } {
  const recorded: Signal[] = [];
  const confirmed: Signal[] = [];
  for (const signal of given) {
    const write = signalWrite(
      known.find((candidate) => candidate.key === signal.key),
      signal,
    );
    if (write === "record") recorded.push(signal);
    else if (write === "confirm") confirmed.push(signal);
  }
  return { recorded, confirmed };
}

/**
 * A merchant the source says nothing new of but the date: its signals' dates move and nothing
 * else, no new revision, audit event or change-feed row (`MerchantRegistryView.confirm`).
 */
function confirmOnly(
  deps: Pick<MerchantDecisionDeps, "registry">,
  abId: string,
  confirmed: readonly Signal[],
): { kind: "confirmed" | "unchanged"; abId: string } {
  if (confirmed.length === 0) return { kind: "unchanged", abId };
  deps.registry.confirm({
    abId,
    signals: confirmed.map(({ key, source, sourceUrl, verifiedAt, recordedAt, expiresAt, changedAt, origin }) => ({
      key,
      source,
      sourceUrl,
      verifiedAt,
      recordedAt,
      expiresAt,
      changedAt: changedAt ?? null,
      origin: origin ?? null,
    })),
  });
  return { kind: "confirmed", abId };
}

/** What the audit log says of the signals recorded: each one's status, value, date and source before and after. */
function signalChanges(
  known: readonly Signal[],
  recorded: readonly Signal[],
): Record<string, { from: unknown; to: unknown }> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const signal of recorded) {
    const before = known.find((candidate) => candidate.key === signal.key);
    changes[signal.key] = {
      from: before
        ? { status: before.status, value: before.value, verified_at: before.verifiedAt, source: before.source }
        : null,
      to: { status: signal.status, value: signal.value, verified_at: signal.verifiedAt, source: signal.source },
    };
  }
  return changes;
}

/**
 * Whether a merchant's business name only stands in for a name the files did not give: its legal
 * name taken as business name, or the trade and town earlier versions of the import made up
 * ("Restaurant Cadillac-Sur-Garonne"). The company's name then replaces it; a name the merchant
 * chose is never replaced by its company's.
 */
function nameStandsInForLegalName(merchant: Merchant, trade: Trade | undefined): boolean {
  return (
    sameWritten(merchant.businessName, merchant.legalName) ||
    (trade !== undefined && sameWritten(merchant.businessName, `${trade.label} ${merchant.city}`))
  );
}

/**
 * The commune's proof, placed where a geocoded file puts the establishment: its own position and
 * the geocoder's score and match kind; without one, the commune's centroid and its lower score.
 */
function placed(proof: TerritorialProof, position: OfficialPosition | null, checkedAt: string): TerritorialProof {
  if (!position) return proof;
  // Geocoded to the house number with a sure score (the national address base's own threshold):
  // the address is where the official file says.
  const verified = position.type === "housenumber" && (position.score ?? 0) >= ADDRESS_VERIFIED_MIN_SCORE;
  return {
    ...proof,
    latitude: position.latitude,
    longitude: position.longitude,
    geocodingSource: position.type ? `geo_sirene_${position.type}` : "geo_sirene",
    geocodingScore: position.score ?? proof.geocodingScore,
    verified,
    verifiedAt: verified ? checkedAt : null,
  };
}

/** What SIRENE says of a closure: since when, where it says it, in its words, and the audit event's reason. */
interface SireneClosing {
  closedOn: string;
  sourceUrl: string;
  label: string;
  reason: string;
}

/**
 * Records that SIRENE says the establishment (or its company) closed (docs/decisions.md, "Issue 37:
 * only what is in business"): the merchant keeps its status and stays resolvable, saying closed,
 * since when and from which source, and is no longer a search hit. A closure already recorded (by
 * SIRENE or BODACC) stands: nothing changes.
 */
function recordClosure(
  deps: Pick<MerchantDecisionDeps, "registry" | "now">,
  existing: RegisteredMerchant,
  closing: SireneClosing,
  actor: Actor,
): OfficialOutcome {
  const { merchant } = existing;
  if (merchant.closure) return { kind: "unchanged", abId: merchant.abId };
  const nowIso = deps.now().toISOString();
  const closure: MerchantClosure = {
    closedOn: closing.closedOn,
    source: "sirene",
    sourceUrl: closing.sourceUrl,
    label: closing.label,
    announcementId: null,
    recordedAt: nowIso,
  };
  const written = deps.registry.update({
    abId: merchant.abId,
    expectedRevision: existing.revision,
    fields: { closure, updatedAt: nowIso },
    products: null,
    territorialProof: undefined,
    event: {
      at: nowIso,
      actor,
      action: "updated",
      changes: { closure: { from: null, to: { closed_on: closing.closedOn, source: "sirene" } } },
      reason: closing.reason,
    },
    feed: feedChange(merchant.status, merchant.status),
  });
  if (!written) throw changedMeanwhile(merchant.abId);
  return { kind: "closed", abId: merchant.abId };
}
