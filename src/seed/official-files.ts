import { sirenOf } from "../domain/siret.ts";
import { streetTypes } from "../import/sirene/establishments.ts";
import type { MerchantDeclaration } from "../schemas/merchant-declaration.ts";
import { observationVocabulary } from "../schemas/platform-observation.ts";
import type { SeedRecord } from "./generate.ts";

/**
 * The demo's merchants written as the official files describe real ones: INSEE's
 * StockEtablissement with Etalab's geocoded columns, and StockUniteLegale, in their published
 * layout (data/sirene-headers.json). The first step of seeding the demo through the same door as
 * real merchants (docs/merchant-lifecycle.md, "Not yet"): `npm run import -- sirene` reads these
 * files as it reads INSEE's.
 */

/** Street type words back to SIRENE's codes ("avenue" -> AV). */
const streetCodes = new Map([...streetTypes].map(([code, words]) => [words, code]));

/** INSEE writes names and streets in capitals without accents. */
function inseeText(text: string): string {
  return text
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toUpperCase()
    .replace(/[^A-Z0-9' -]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** "12 bis rue de la République" as SIRENE's number, repetition, type code and street name. */
function streetFields(street: string): Record<string, string> {
  const match = /^(\d+)(?: (bis|ter))? (.+)$/.exec(street);
  if (!match) return { libelleVoieEtablissement: inseeText(street) };
  const [, number, repetition, rest] = match as unknown as [string, string, string | undefined, string];
  // The longest known street type the address starts with ("grande rue" before "rue").
  let best: [words: string, code: string] | null = null;
  for (const [words, code] of streetCodes) {
    if (rest.startsWith(`${words} `) && (!best || words.length > best[0].length)) best = [words, code];
  }
  return {
    numeroVoieEtablissement: number,
    indiceRepetitionEtablissement: repetition === "bis" ? "B" : repetition === "ter" ? "T" : "",
    typeVoieEtablissement: best?.[1] ?? "",
    libelleVoieEtablissement: inseeText(best ? rest.slice(best[0].length + 1) : rest),
  };
}

/** SIRENE's timestamp format (no zone, seconds). */
const inseeTimestamp = (at: Date) => at.toISOString().slice(0, 19);

/** One merchant as a row of the geocoded establishments file. */
export function establishmentRow(record: SeedRecord, processedAt: Date): Record<string, string> {
  const { merchant, territorialProof } = record;
  const placed = territorialProof.latitude !== null && territorialProof.longitude !== null;
  return {
    siren: sirenOf(merchant.siret),
    nic: merchant.siret.slice(9),
    siret: merchant.siret,
    statutDiffusionEtablissement: "O",
    dateCreationEtablissement: merchant.foundedOn,
    dateDernierTraitementEtablissement: inseeTimestamp(processedAt),
    etablissementSiege: "true",
    nombrePeriodesEtablissement: "1",
    ...streetFields(merchant.street),
    codePostalEtablissement: merchant.postalCode,
    libelleCommuneEtablissement: inseeText(merchant.city),
    codeCommuneEtablissement: territorialProof.inseeCode ?? "",
    dateDebut: merchant.foundedOn,
    etatAdministratifEtablissement: "A",
    enseigne1Etablissement: inseeText(merchant.businessName),
    activitePrincipaleEtablissement: merchant.nafCode,
    nomenclatureActivitePrincipaleEtablissement: "NAFRev2",
    caractereEmployeurEtablissement: "N",
    ...(placed
      ? {
          longitude: String(territorialProof.longitude),
          latitude: String(territorialProof.latitude),
          geo_score: String(territorialProof.geocodingScore ?? 0.9),
          geo_type: "housenumber",
        }
      : {}),
  };
}

/** The merchant's company as a row of the legal units file. */
export function legalUnitRow(record: SeedRecord, processedAt: Date): Record<string, string> {
  const { merchant } = record;
  return {
    siren: sirenOf(merchant.siret),
    statutDiffusionUniteLegale: "O",
    dateCreationUniteLegale: merchant.foundedOn,
    dateDernierTraitementUniteLegale: inseeTimestamp(processedAt),
    denominationUniteLegale: inseeText(merchant.legalName),
    etatAdministratifUniteLegale: "A",
    categorieJuridiqueUniteLegale: merchant.legalName.endsWith("(EI)") ? "1000" : "5499",
  };
}

/**
 * What the demo merchant declares (data/merchant-vocabulary.json's words, the schema of
 * src/schemas/merchant-declaration.ts): identity as the merchant writes it (with the accents
 * SIRENE's capitals lose), contact, description, hours, zones, languages, delivery and offer.
 */
export function declarationOf(record: SeedRecord, options: { withoutDescription?: boolean } = {}): MerchantDeclaration {
  const { merchant, products } = record;
  return {
    siret: merchant.siret,
    legal_name: merchant.legalName,
    business_name: merchant.businessName,
    naf_code: merchant.nafCode,
    address: { street: merchant.street, postal_code: merchant.postalCode, city: merchant.city },
    rcs: merchant.rcs,
    vat_number: merchant.vatIntracom,
    email: merchant.email,
    phone: merchant.phone,
    website: merchant.website,
    description: options.withoutDescription ? null : merchant.description,
    hours: merchant.hours,
    zones: merchant.zones,
    languages: merchant.languages,
    delivery: { enabled: merchant.deliveryEnabled, radius_km: merchant.deliveryRadiusKm },
    founded_on: merchant.foundedOn,
    brand_voice: merchant.brandVoice,
    products: products.map((product) => ({
      slug: product.slug,
      name: product.name,
      description: product.description,
      brick_type: product.brickType,
      pricing_model: product.pricingModel,
      price_cents: product.priceCents,
      inventory_status: product.inventoryStatus,
      tags: product.tags,
      image_url: product.imageUrl,
      external_url: product.externalUrl,
    })),
  };
}

/** One operator step of the demo's lifecycle, as `npm run merchants` takes them. */
export type DemoStep =
  | { kind: "review" }
  | { kind: "status"; status: "ACTIVE" | "PAUSED" | "SUSPENDED" | "ARCHIVED"; reason: string | null }
  | { kind: "declare"; update: { description: string } };

const STATUS_REASONS: Record<string, string> = {
  SUSPENDED: "vérification en cours (démonstration)",
  ARCHIVED: "fermeture déclarée (démonstration)",
};

/**
 * The operator steps that take an imported demo merchant (PROBATION, its declaration made) to
 * the status and review state the generator planned, through the lifecycle's own rules: the
 * description is reviewed, the merchant activated, then paused, suspended or archived. A merchant
 * planned with an unreviewed description declares it again after its activation (activation
 * needs a reviewed one): `declarationOf(record, { withoutDescription: true })` comes first.
 */
export function lifecycleStepsOf(record: SeedRecord): DemoStep[] {
  const { merchant } = record;
  const steps: DemoStep[] = [];
  const unreviewed = merchant.descriptionLlmUnreviewed && merchant.description !== null;
  if (merchant.description !== null && !unreviewed) steps.push({ kind: "review" });
  if (merchant.status === "PROBATION") {
    if (unreviewed) steps.push({ kind: "declare", update: { description: merchant.description as string } });
    return steps;
  }
  steps.push({ kind: "status", status: "ACTIVE", reason: null });
  if (unreviewed) steps.push({ kind: "declare", update: { description: merchant.description as string } });
  if (merchant.status !== "ACTIVE") {
    steps.push({ kind: "status", status: merchant.status, reason: STATUS_REASONS[merchant.status] ?? null });
  }
  return steps;
}

/**
 * The demo merchant's company in BODACC, as the API publishes announcements (familleavis,
 * registre, the details as JSON inside strings): its annual accounts filed when its
 * `bodacc_clean` check was planned clean, the opening of a collective proceeding when planned
 * failed; nothing when it was planned unknown (BODACC only names companies it has news of).
 */
export function bodaccRecordsOf(record: SeedRecord, publishedOn: Date): Record<string, unknown>[] {
  const { merchant, signals } = record;
  const planned = signals.find((signal) => signal.key === "bodacc_clean")?.status;
  if (planned !== "verified" && planned !== "failed") return [];
  const siren = sirenOf(merchant.siret);
  const spaced = `${siren.slice(0, 3)} ${siren.slice(3, 6)} ${siren.slice(6)}`;
  const clean = planned === "verified";
  const letter = clean ? "C" : "A";
  const day = publishedOn.toISOString().slice(0, 10);
  const id = `${letter}${day.slice(0, 4)}0${String(Number(siren.slice(0, 5)) % 1000).padStart(3, "0")}${siren.slice(5, 9)}`;
  return [
    {
      id,
      publicationavis: letter,
      publicationavis_facette: `Bodacc ${letter}`,
      parution: id.slice(1, 9),
      dateparution: day,
      numeroannonce: Number(id.slice(9)),
      typeavis: "annonce",
      typeavis_lib: "Avis initial",
      familleavis: clean ? "dpc" : "collective",
      familleavis_lib: clean ? "Dépôts des comptes" : "Procédures collectives",
      tribunal: `Greffe du Tribunal de Commerce de ${merchant.city}`,
      commercant: inseeText(merchant.legalName),
      ville: merchant.city,
      cp: merchant.postalCode,
      registre: [spaced, siren],
      listepersonnes: JSON.stringify({
        personne: {
          typePersonne: "pm",
          denomination: inseeText(merchant.legalName),
          numeroImmatriculation: { codeRCS: "RCS", numeroIdentification: spaced },
        },
      }),
      jugement: clean
        ? null
        : JSON.stringify({
            type: "initial",
            famille: "Jugement d'ouverture",
            nature: "Jugement d'ouverture d'une procédure de redressement judiciaire",
            date: day,
          }),
      depot: clean
        ? JSON.stringify({
            dateCloture: `${Number(day.slice(0, 4)) - 1}-12-31`,
            typeDepot: "Comptes annuels et rapports",
          })
        : null,
      url_complete: `https://www.bodacc.fr/pages/annonces-commerciales-detail/?q.id=id:${id}`,
    },
  ];
}

/** The signals only the official files' imports write (SIRENE's identity and age, BODACC's check). */
const fromOfficialFiles = new Set(observationVocabulary.signals_from_official_files);

/**
 * What the platform observed of the demo merchant (src/schemas/platform-observation.ts): its
 * listing, website age, photos, other pages, payment readiness, the evidence checks the
 * generator planned (all but those the official files prove) and its Q&A clusters, their
 * product clusters naming the product by slug.
 */
export function observationOf(record: SeedRecord, observedAt: Date): Record<string, unknown> {
  const { merchant, products, signals, clusters } = record;
  const slugOfBrick = new Map(products.map((product) => [product.brickId, product.slug]));
  const listed =
    merchant.listingRating !== null || merchant.listingReviewCount !== null || merchant.listingPhotosCount > 0;
  return {
    siret: merchant.siret,
    observed_at: observedAt.toISOString(),
    website: { domain_age_years: merchant.domainAgeYears },
    listing: listed
      ? {
          rating: merchant.listingRating,
          review_count: merchant.listingReviewCount,
          photos_count: merchant.listingPhotosCount,
        }
      : null,
    terrain_photos: merchant.terrainPhotos,
    same_as: merchant.sameAs,
    payment: { ready: merchant.paymentSetup, account_id: record.paymentAccountId },
    signals: signals
      .filter((signal) => !fromOfficialFiles.has(signal.key))
      .map((signal) => ({
        key: signal.key,
        status: signal.status,
        value: signal.value,
        source_url: signal.sourceUrl,
        recorded_at: signal.recordedAt,
        verified_at: signal.verifiedAt,
        expires_at: signal.expiresAt,
      })),
    qa_clusters: clusters.map((cluster) => ({
      label: cluster.label,
      type: cluster.type,
      product_slug: cluster.brickId ? (slugOfBrick.get(cluster.brickId) ?? null) : null,
      updated_at: cluster.updatedAt,
      nodes: cluster.nodes.map((node) => ({
        intent: node.intent,
        question: node.question,
        answer: node.answer,
        answer_bluf: node.answerBluf,
        claim_sentence: node.claimSentence,
        verification_level: node.verificationLevel,
        fact_level: node.factLevel,
        fact_signal: node.factSignal,
        fact_source_url: node.factSourceUrl,
        edited_by_merchant: node.editedByMerchant,
        drift_severity: node.driftSeverity,
        human_verified_at: node.humanVerifiedAt,
      })),
    })),
  };
}
