import type { Merchant, Signal, TerritorialProof } from "../merchant.ts";
import { yearsBetween } from "../registry/decision-card.ts";
import { tradeOf } from "../sectors.ts";
import { officialCheckExpiresAt } from "../trust/signal-catalog.ts";
import { ADDRESS_VERIFIED_MIN_SCORE, newAbId, newMerchant, territorialProofOf } from "./build-merchant.ts";
import { feedChange } from "./lifecycle.ts";
import { changedMeanwhile } from "./load-registered.ts";
import type { Actor, MerchantLifecycleDeps } from "./merchant-registry.ts";
import type { OfficialEstablishment, OfficialPosition } from "./official-establishment.ts";

export type OfficialOutcome =
  | { kind: "created"; abId: string }
  | { kind: "updated"; abId: string }
  | { kind: "archived"; abId: string }
  | { kind: "unchanged"; abId: string }
  | { kind: "skipped"; reason: "not_public" | "closed" | "naf_not_covered" | "commune_unknown" };

export const SIRENE_DATASET_URL =
  "https://www.data.gouv.fr/datasets/base-sirene-des-entreprises-et-de-leurs-etablissements-siren-siret";

/**
 * What a SIRENE row proves, as signals: the establishment's identity (verified at INSEE's
 * processing of the row, holding two years from it) and, when the legal units file gives the
 * company's creation date, the company's age checked with it.
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
  return [
    identity,
    { ...identity, key: "company_age_years", value: yearsBetween(companyCreatedOn, new Date(verifiedAt)) },
  ];
}

/**
 * Brings the registry in line with one establishment of an official file: a new active public
 * establishment of a covered trade becomes a PROBATION merchant with its identity verified; a
 * known one takes the file's address and activity; a closed one archives its merchant with the
 * reason. A non-public establishment is never stored (one already known is archived). The same
 * row twice changes nothing the second time.
 */
export function applyOfficialEstablishment(
  deps: MerchantLifecycleDeps,
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
    const reason = establishment.public
      ? `établissement fermé au répertoire SIRENE (traité le ${establishment.processedAt?.slice(0, 10) ?? "?"})`
      : "établissement devenu non diffusible au répertoire SIRENE";
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
  if (!trade) return { kind: "skipped", reason: "naf_not_covered" };
  const commune =
    deps.communes.find(establishment.postalCode, establishment.city) ??
    deps.communes.findByInsee?.(establishment.inseeCode) ??
    null;
  if (!commune) return { kind: "skipped", reason: "commune_unknown" };
  const verifiedAt = establishment.processedAt ?? nowIso;
  const proof = placed(
    territorialProofOf({ find: () => commune }, { postal_code: establishment.postalCode, city: establishment.city }),
    establishment.position ?? null,
    verifiedAt,
  );
  const officialSignals = sireneSignals(verifiedAt, establishment.legalUnit?.createdOn ?? null);
  const [identity, age = null] = officialSignals as [Signal, Signal?];

  if (!existing) {
    const abId = newAbId(deps.registry, deps.randomId);
    const name = establishment.name ?? establishment.legalUnit?.legalName ?? `${trade.label} ${establishment.city}`;
    const merchant = newMerchant(
      {
        abId,
        siret: establishment.siret,
        legalName: establishment.legalUnit?.legalName ?? name,
        businessName: name,
        nafCode: establishment.nafCode,
        nafCode2025: establishment.nafCode2025,
        street: establishment.street,
        postalCode: establishment.postalCode,
        city: establishment.city,
        foundedOn: establishment.legalUnit?.createdOn ?? establishment.createdOn ?? verifiedAt.slice(0, 10),
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
          ...(establishment.legalUnit?.legalForm
            ? { legal_form: { from: null, to: establishment.legalUnit.legalForm } }
            : {}),
        },
        reason: "établissement actif et diffusible au répertoire SIRENE",
      },
      feed: "created",
    });
    return { kind: "created", abId };
  }

  const { merchant } = existing;
  const fields: Partial<Merchant> = {};
  if (merchant.street !== establishment.street) fields.street = establishment.street;
  if (merchant.postalCode !== establishment.postalCode) fields.postalCode = establishment.postalCode;
  if (merchant.city !== establishment.city) fields.city = establishment.city;
  if (establishment.legalUnit && merchant.legalName !== establishment.legalUnit.legalName) {
    fields.legalName = establishment.legalUnit.legalName;
  }
  // A row without a NAF 2025 code keeps the one known, unless its main code changed (it was that activity's).
  const nafCode2025 =
    establishment.nafCode2025 ?? (merchant.nafCode === establishment.nafCode ? merchant.nafCode2025 : null);
  if (merchant.nafCode !== establishment.nafCode) fields.nafCode = establishment.nafCode;
  if (merchant.nafCode2025 !== nafCode2025) fields.nafCode2025 = nafCode2025;
  const sector = tradeOf({ nafCode: establishment.nafCode, nafCode2025 })?.sector ?? trade.sector;
  if (merchant.sector !== sector) fields.sector = sector;
  const known = existing.signals.find((signal) => signal.key === "siret_verified");
  const identityChanged = known?.status !== "verified" || known.verifiedAt !== identity.verifiedAt;
  const knownAge = existing.signals.find((signal) => signal.key === "company_age_years");
  const ageChanged = age !== null && (knownAge?.value !== age.value || knownAge.verifiedAt !== age.verifiedAt);
  const current = existing.territorialProof;
  const position = establishment.position ?? null;
  const moved =
    position !== null &&
    (current?.latitude !== position.latitude ||
      current?.longitude !== position.longitude ||
      current?.geocodingScore !== proof.geocodingScore);
  if (Object.keys(fields).length === 0 && !identityChanged && !ageChanged && !moved) {
    return { kind: "unchanged", abId: merchant.abId };
  }
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const [key, value] of Object.entries(fields))
    changes[key] = { from: merchant[key as keyof Merchant], to: value };
  if (identityChanged) changes.siret_verified = { from: known?.verifiedAt ?? null, to: identity.verifiedAt };
  if (ageChanged) changes.company_age_years = { from: knownAge?.value ?? null, to: age.value };
  if (moved) {
    changes.position = {
      from: current ? [current.latitude, current.longitude] : null,
      to: [proof.latitude, proof.longitude],
    };
  }
  const addressChanged = "postalCode" in fields || "city" in fields || moved;
  const written = deps.registry.update({
    abId: merchant.abId,
    expectedRevision: existing.revision,
    fields: { ...fields, updatedAt: nowIso },
    products: null,
    territorialProof: addressChanged ? proof : undefined,
    signals: officialSignals,
    event: { at: nowIso, actor, action: "updated", changes, reason: "répertoire SIRENE" },
    feed: feedChange(merchant.status, merchant.status),
  });
  if (!written) throw changedMeanwhile(merchant.abId);
  return { kind: "updated", abId: merchant.abId };
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
