import { betterWritten, sameWritten } from "../format.ts";
import type { Merchant, MerchantClosure, Signal, TerritorialProof } from "../merchant.ts";
import { type Trade, tradeOf } from "../sectors.ts";
import { officialCheckExpiresAt } from "../trust/signal-catalog.ts";
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
import type { OfficialEstablishment, OfficialPosition } from "./official-establishment.ts";

export type OfficialOutcome =
  | { kind: "created"; abId: string }
  | { kind: "updated"; abId: string }
  | { kind: "archived"; abId: string }
  | { kind: "closed"; abId: string }
  | { kind: "unchanged"; abId: string }
  | { kind: "skipped"; reason: OfficialSkipReason };

/**
 * Why a row brought no merchant in: not public, closed, a trade the registry does not cover, a
 * commune missing from the reference, no date to hold the identity check from (neither the row's
 * processing date nor a file date), no name the files give (no sign and no public legal unit read:
 * the legal units file names it), or no creation date the files give.
 */
export type OfficialSkipReason =
  | "not_public"
  | "closed"
  | "naf_not_covered"
  | "commune_unknown"
  | "undated"
  | "name_unknown"
  | "creation_date_unknown";

export const SIRENE_DATASET_URL =
  "https://www.data.gouv.fr/datasets/base-sirene-des-entreprises-et-de-leurs-etablissements-siren-siret";

/**
 * What a SIRENE row proves, as signals: the establishment's identity (verified at INSEE's
 * processing of the row, else at the file's date, holding two years from it) and, when the legal
 * units file gives the company's creation date, the company's age, recorded as that date: the
 * years are counted at the instant they are read (signal-catalog.ts), never at the import's.
 */
export function sireneSignals(verifiedAt: string, companyCreatedOn: string | null): Signal[] {
  const identity: Signal = {
    key: "siret_verified",
    status: "verified",
    proofStatus: "official_source_verified",
    source: "official_file",
    sourceUrl: SIRENE_DATASET_URL,
    value: true,
    verifiedAt,
    recordedAt: verifiedAt,
    expiresAt: officialCheckExpiresAt(verifiedAt),
  };
  if (!companyCreatedOn) return [identity];
  return [identity, { ...identity, key: "company_age_years", value: companyCreatedOn }];
}

/** When the row's identity check holds from: INSEE's processing of the row, else the file's date. */
export function officialCheckedAt(establishment: OfficialEstablishment): string | null {
  if (establishment.processedAt) return establishment.processedAt;
  return establishment.fileDate ? `${establishment.fileDate}T00:00:00.000Z` : null;
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
 * Brings the registry in line with one establishment of an official file: a new active public
 * establishment of a covered trade becomes a PROBATION merchant with its identity verified; a
 * known one takes the file's address, activity and, with the legal units file, its company's name
 * and creation date; a closed one records its merchant's closure (recordClosure: resolvable,
 * never a search hit). A non-public establishment is never stored (one already known is archived). Nothing is invented: a row
 * whose files give no name, no creation date or no date for the check brings no merchant in, and a
 * check recorded later than the row's (through the official API, say) is kept. The same row twice
 * changes nothing the second time.
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
    if (establishment.public) return recordClosure(deps, existing, establishment, actor, nowIso);
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
        reason: "établissement devenu non diffusible au répertoire SIRENE",
      },
      feed: feedChange(existing.merchant.status, "ARCHIVED"),
    });
    if (!written) throw changedMeanwhile(existing.merchant.abId);
    return { kind: "archived", abId: existing.merchant.abId };
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
  const officialSignals = sireneSignals(checkedAt, unit?.createdOn ?? null);

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
  // A name the merchant wrote the same way as the files (its own case and accents) is kept.
  const setText = (key: "legalName" | "businessName", value: string) => {
    if (!sameWritten(merchant[key], value)) set(key, value);
  };
  set("street", betterWritten(merchant.street, establishment.street));
  set("postalCode", establishment.postalCode);
  set("city", city);
  if (unit) {
    setText("legalName", unit.legalName);
    if (unit.createdOn) set("foundedOn", unit.createdOn);
  }
  if (establishment.name) setText("businessName", establishment.name);
  // Open again in SIRENE (a row corrected, an establishment reopened): SIRENE's closure is lifted; BODACC's stands.
  if (merchant.closure?.source === "sirene") set("closure", null);
  else if (unit && !sameWritten(merchant.businessName, unit.legalName) && nameStandsInForLegalName(merchant, trade)) {
    set("businessName", unit.legalName);
  }
  // A row without a NAF 2025 code keeps the one known, unless its main code changed (it was that activity's).
  const nafCode2025 =
    establishment.nafCode2025 ?? (merchant.nafCode === establishment.nafCode ? merchant.nafCode2025 : null);
  set("nafCode", establishment.nafCode);
  set("nafCode2025", nafCode2025);
  set("sector", tradeOf({ nafCode: establishment.nafCode, nafCode2025 })?.sector ?? trade.sector);
  // A check recorded at or after this row's (a later file, the official API) stands.
  const newer = (signal: Signal): boolean => {
    const known = existing.signals.find((candidate) => candidate.key === signal.key);
    if (!known) return true;
    if ((known.verifiedAt ?? known.recordedAt) > (signal.verifiedAt ?? signal.recordedAt)) return false;
    return known.status !== signal.status || known.verifiedAt !== signal.verifiedAt || known.value !== signal.value;
  };
  const signals = officialSignals.filter(newer);
  const current = existing.territorialProof;
  const position = establishment.position ?? null;
  const moved =
    position !== null &&
    (current?.latitude !== position.latitude ||
      current?.longitude !== position.longitude ||
      current?.geocodingScore !== proof.geocodingScore);
  if (Object.keys(fields).length === 0 && signals.length === 0 && !moved) {
    return { kind: "unchanged", abId: merchant.abId };
  }
  const changes = diffOf(merchant, fields);
  for (const signal of signals) {
    const known = existing.signals.find((candidate) => candidate.key === signal.key);
    changes[signal.key] = {
      from: known
        ? { status: known.status, value: known.value, verified_at: known.verifiedAt, source: known.source }
        : null,
      to: { status: signal.status, value: signal.value, verified_at: signal.verifiedAt, source: signal.source },
    };
  }
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
 * Whether a merchant's business name only stands in for a name the files did not give: its legal
 * name taken as business name, or the trade and town earlier versions of the import made up
 * ("Restaurant Cadillac-Sur-Garonne"). The company's name then replaces it; a name the merchant
 * chose is never replaced by its company's.
 */
function nameStandsInForLegalName(merchant: Merchant, trade: Trade): boolean {
  return (
    sameWritten(merchant.businessName, merchant.legalName) ||
    sameWritten(merchant.businessName, `${trade.label} ${merchant.city}`)
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

/**
 * Records that SIRENE says the establishment closed (docs/decisions.md, "Issue 37: only what is in
 * business"): the merchant keeps its status and stays resolvable, saying closed, since when (the
 * row's dateDebut, else INSEE's processing date, else the file's) and from which source, and is no
 * longer a search hit. A closure already recorded (by SIRENE or BODACC) stands: nothing changes.
 */
function recordClosure(
  deps: MerchantDecisionDeps,
  existing: RegisteredMerchant,
  establishment: OfficialEstablishment,
  actor: Actor,
  nowIso: string,
): OfficialOutcome {
  const { merchant } = existing;
  if (merchant.closure) return { kind: "unchanged", abId: merchant.abId };
  const closedOn =
    establishment.closedOn ?? establishment.processedAt?.slice(0, 10) ?? establishment.fileDate ?? nowIso.slice(0, 10);
  const closure: MerchantClosure = {
    closedOn,
    source: "sirene",
    sourceUrl: SIRENE_DATASET_URL,
    label: "Établissement fermé (état administratif F)",
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
      changes: { closure: { from: null, to: { closed_on: closedOn, source: "sirene" } } },
      reason: `établissement fermé au répertoire SIRENE le ${closedOn}`,
    },
    feed: feedChange(merchant.status, merchant.status),
  });
  if (!written) throw changedMeanwhile(merchant.abId);
  return { kind: "closed", abId: merchant.abId };
}
