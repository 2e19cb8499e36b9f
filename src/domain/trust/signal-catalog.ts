import { nextAnniversary, yearsBetween } from "../calendar.ts";
import type { SectorKey } from "../sectors.ts";

/**
 * Every signal and credential the registry records, with the trust component it feeds and the
 * rule that turns its observed value into points. The trust score is nothing but the sum of these
 * rules over a merchant's verified signals, capped at 25 per component, so each point can be
 * traced back to one row of evidence.
 */
export type TrustComponent = "experience" | "expertise" | "authority" | "trust";
/**
 * Where a recorded signal came from: an official register read through its API, an official
 * register's published file (the SIRENE stock), the platform's own observation, or the merchant's
 * declaration. The one list: the API's schemas take it from here.
 */
export const SIGNAL_SOURCES = ["official_api", "official_file", "platform_observed", "merchant_declared"] as const;
export type SignalSource = (typeof SIGNAL_SOURCES)[number];
/**
 * The official sources that speak for a merchant, as merchant.sources names them: INSEE's SIRENE
 * register (its monthly stock and API Sirene's daily changes), BODACC's announcements, and the API
 * Recherche d'entreprises (DINUM) the live check asks. The one list: the API's schemas take it from here.
 */
export const OFFICIAL_SOURCE_NAMES = ["sirene", "bodacc", "recherche-entreprises"] as const;
export type OfficialSourceName = (typeof OFFICIAL_SOURCE_NAMES)[number];
/**
 * Which official source said a signal: the one it records, else, for a signal recorded before
 * signals named their source, the one its key and kind say (until then the company's age came
 * from SIRENE alone, the identity from SIRENE's stock file or the live check of the API Recherche
 * d'entreprises, and BODACC's signal from BODACC); null for what no official source said.
 */
export function originOf(signal: {
  key: string;
  source: SignalSource;
  origin?: OfficialSourceName | null;
}): OfficialSourceName | null {
  if (signal.origin) return signal.origin;
  if (signal.key === "bodacc_clean") return "bodacc";
  if (signal.key === "company_age_years") return "sirene";
  if (signal.key !== "siret_verified") return null;
  if (signal.source === "official_file") return "sirene";
  return signal.source === "official_api" ? "recherche-entreprises" : null;
}
/**
 * How long an official register's answer holds (its file's row or its API's answer): two years
 * from the check, after which the signal counts for nothing until it is checked again.
 */
export const OFFICIAL_CHECK_VALIDITY_DAYS = 730;
/** When an official check made at `checkedAt` (an ISO instant) expires. */
export function officialCheckExpiresAt(checkedAt: string): string {
  return new Date(Date.parse(checkedAt) + OFFICIAL_CHECK_VALIDITY_DAYS * 24 * 3_600_000).toISOString();
}
export type ProofStatus = "official_source_verified" | "machine_consistent" | "merchant_declared";
export type SignalStatus = "verified" | "unverified" | "failed" | "expired";

export type SignalValue = number | string | boolean | null;

export interface SignalDefinition {
  key: string;
  /** Technical English label for the API. */
  label: string;
  /** French label for merchant-facing pages. */
  labelFr: string;
  component: TrustComponent;
  source: SignalSource;
  /** Served at /api/verify/{signal}/{ab_id} (the spec's 26 evidence signals). */
  evidence: boolean;
  /** Listed in the decision card's and resolve's credentials (the spec's credential keys). */
  credential: boolean;
  /** Sector families where the signal applies; undefined means every sector. */
  appliesTo?: SectorKey[];
  /** Points for a verified signal with this value (as read at the instant); a rule, so the evidence page can explain it. */
  points: (value: SignalValue) => number;
  /**
   * For a signal whose meaning moves with the calendar (a company's age, recorded as its creation
   * date): the value as read at an instant, and the next instant it reads otherwise.
   */
  readAt?: (recorded: SignalValue, now: Date) => SignalValue;
  changesAfter?: (recorded: SignalValue, now: Date) => string | null;
  /** How the points are computed, for evidence pages. */
  rule: string;
  /** Where an official source can be read; `{siren}`, `{siret}` are filled in. */
  sourceUrlTemplate?: string;
}

const flat = (points: number) => () => points;
const numeric = (value: SignalValue): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);
const steps =
  (table: [threshold: number, points: number][]) =>
  (value: SignalValue): number => {
    const observed = numeric(value);
    for (const [threshold, points] of table) if (observed >= threshold) return points;
    return 0;
  };

const define = (definition: SignalDefinition): SignalDefinition => definition;

export const signalCatalog: SignalDefinition[] = [
  // --- trust: identity and legal standing
  define({
    key: "siret_verified",
    label: "SIRET verified in the SIRENE register",
    labelFr: "SIRET vérifié (répertoire SIRENE)",
    component: "trust",
    source: "official_api",
    evidence: true,
    credential: true,
    points: flat(8),
    rule: "8 points when the SIRET is active in SIRENE",
    sourceUrlTemplate: "https://annuaire-entreprises.data.gouv.fr/etablissement/{siret}",
  }),
  define({
    key: "bodacc_clean",
    label: "No insolvency notice in BODACC",
    labelFr: "Aucune procédure collective au BODACC",
    component: "trust",
    source: "official_api",
    evidence: true,
    credential: true,
    points: flat(4),
    rule: "4 points when BODACC lists no collective proceeding",
    sourceUrlTemplate: "https://www.bodacc.fr/pages/annonces-commerciales/?q.registre={siren}",
  }),
  define({
    key: "rne_verified",
    label: "Registered in the national business register (RNE)",
    labelFr: "Inscrit au registre national des entreprises",
    component: "trust",
    source: "official_api",
    evidence: true,
    credential: false,
    points: flat(3),
    rule: "3 points when the RNE record matches",
    sourceUrlTemplate: "https://data.inpi.fr/entreprises/{siren}",
  }),
  define({
    key: "territorial_address_verified",
    label: "Address geocoded in the national address base",
    labelFr: "Adresse vérifiée (Base Adresse Nationale)",
    component: "trust",
    source: "official_api",
    evidence: true,
    credential: false,
    points: flat(3),
    rule: "3 points when the address geocodes with a score of at least 0.7",
  }),
  define({
    key: "officer_identity",
    label: "Company officer identity checked",
    labelFr: "Identité du dirigeant vérifiée",
    component: "trust",
    source: "official_api",
    evidence: true,
    credential: false,
    points: flat(3),
    rule: "3 points when the registered officer matches the account holder",
  }),
  define({
    key: "officer_email_verified",
    label: "Officer email address verified",
    labelFr: "E-mail du dirigeant vérifié",
    component: "trust",
    source: "platform_observed",
    evidence: true,
    credential: false,
    points: flat(1),
    rule: "1 point when the officer confirmed a verification link",
  }),
  define({
    key: "contact_email_verified",
    label: "Contact email address verified",
    labelFr: "E-mail de contact vérifié",
    component: "trust",
    source: "platform_observed",
    evidence: true,
    credential: true,
    points: flat(2),
    rule: "2 points when the contact address confirmed a verification link",
  }),
  define({
    key: "contact_verified",
    label: "Contact phone number verified",
    labelFr: "Téléphone vérifié",
    component: "trust",
    source: "platform_observed",
    evidence: false,
    credential: true,
    points: flat(2),
    rule: "2 points when the phone number answered a verification code",
  }),
  define({
    key: "ab_account_verified",
    label: "Merchant account verified by the platform",
    labelFr: "Compte marchand vérifié",
    component: "trust",
    source: "platform_observed",
    evidence: false,
    credential: true,
    points: flat(2),
    rule: "2 points when the platform verified the account holder",
  }),
  define({
    key: "cgv_published",
    label: "Terms of sale published",
    labelFr: "Conditions générales de vente publiées",
    component: "trust",
    source: "merchant_declared",
    evidence: false,
    credential: true,
    points: flat(1),
    rule: "1 point when terms of sale are published",
  }),
  define({
    key: "rgpd_compliant",
    label: "GDPR notice declared",
    labelFr: "Conformité RGPD déclarée",
    component: "trust",
    source: "merchant_declared",
    evidence: false,
    credential: true,
    points: flat(1),
    rule: "1 point when a GDPR notice is declared",
  }),
  define({
    key: "mentions_legales_complete",
    label: "Legal notice complete",
    labelFr: "Mentions légales complètes",
    component: "trust",
    source: "merchant_declared",
    evidence: false,
    credential: true,
    points: flat(1),
    rule: "1 point when the legal notice has every mandatory item",
  }),
  define({
    key: "ia_act_compliant",
    label: "AI Act transparency notice declared",
    labelFr: "Transparence IA (AI Act) déclarée",
    component: "trust",
    source: "merchant_declared",
    evidence: false,
    credential: true,
    points: flat(1),
    rule: "1 point when AI-generated content is labelled",
  }),
  define({
    key: "privacy_policy_valid",
    label: "Privacy policy reachable and valid",
    labelFr: "Politique de confidentialité valide",
    component: "trust",
    source: "platform_observed",
    evidence: false,
    credential: true,
    points: flat(1),
    rule: "1 point when the privacy policy is reachable",
  }),
  // --- experience: time in business and track record
  define({
    key: "company_age_years",
    label: "Years since the company was registered",
    labelFr: "Ancienneté de l'entreprise",
    component: "experience",
    source: "official_api",
    evidence: false,
    credential: true,
    points: steps([
      [20, 12],
      [10, 9],
      [5, 6],
      [2, 3],
      [0, 1],
    ]),
    rule: "20+ years: 12, 10+: 9, 5+: 6, 2+: 3, less: 1",
    // Recorded as the company's creation date (YYYY-MM-DD), counted in whole years when read.
    readAt: (recorded, now) => (typeof recorded === "string" ? yearsBetween(recorded, now) : recorded),
    changesAfter: (recorded, now) => (typeof recorded === "string" ? nextAnniversary(recorded, now) : null),
    sourceUrlTemplate: "https://annuaire-entreprises.data.gouv.fr/entreprise/{siren}",
  }),
  define({
    key: "listing_review_count",
    label: "Reviews on the public listing",
    labelFr: "Nombre d'avis publics",
    component: "experience",
    source: "platform_observed",
    evidence: false,
    credential: true,
    points: steps([
      [200, 7],
      [50, 5],
      [10, 3],
      [1, 1],
    ]),
    rule: "200+ reviews: 7, 50+: 5, 10+: 3, 1+: 1",
  }),
  define({
    key: "external_review_received",
    label: "Review received through an independent review site",
    labelFr: "Avis reçu via un site indépendant",
    component: "experience",
    source: "platform_observed",
    evidence: true,
    credential: false,
    points: flat(3),
    rule: "3 points when an independent review was received",
  }),
  define({
    key: "terrain_media_snapshot",
    label: "On-site photos taken by the platform",
    labelFr: "Photos terrain",
    component: "experience",
    source: "platform_observed",
    evidence: true,
    credential: false,
    points: flat(3),
    rule: "3 points when on-site photos were captured",
  }),
  // --- expertise: what the merchant sells and the professional guarantees it holds
  define({
    key: "has_products",
    label: "Products or services listed",
    labelFr: "Produits ou services publiés",
    component: "expertise",
    source: "platform_observed",
    evidence: false,
    credential: true,
    points: flat(3),
    rule: "3 points when at least one product is listed",
  }),
  define({
    key: "brick_completeness",
    label: "Share of product fields filled in",
    labelFr: "Complétude des fiches produits",
    component: "expertise",
    source: "platform_observed",
    evidence: false,
    credential: true,
    points: (value) => Math.round(Math.min(Math.max(numeric(value), 0), 1) * 5),
    rule: "completeness (0 to 1) times 5, rounded",
  }),
  define({
    key: "product_depth_score",
    label: "Depth of the product catalogue",
    labelFr: "Profondeur du catalogue",
    component: "expertise",
    source: "platform_observed",
    evidence: false,
    credential: true,
    points: (value) => Math.round(Math.min(Math.max(numeric(value), 0), 1) * 4),
    rule: "depth (0 to 1) times 4, rounded",
  }),
  define({
    key: "has_terms_brick",
    label: "Terms published as a product brick",
    labelFr: "Conditions publiées en fiche",
    component: "expertise",
    source: "merchant_declared",
    evidence: false,
    credential: true,
    points: flat(1),
    rule: "1 point when terms are published as a brick",
  }),
  define({
    key: "compliance_documents",
    label: "Compliance documents on file",
    labelFr: "Documents de conformité fournis",
    component: "expertise",
    source: "merchant_declared",
    evidence: true,
    credential: false,
    points: flat(3),
    rule: "3 points when compliance documents were filed",
  }),
  define({
    key: "schema_org_valid",
    label: "Website Schema.org markup valid",
    labelFr: "Balisage Schema.org valide",
    component: "expertise",
    source: "platform_observed",
    evidence: true,
    credential: false,
    points: flat(2),
    rule: "2 points when the website's markup validates",
  }),
  define({
    key: "multi_protocol_ready",
    label: "Reachable through several agent protocols",
    labelFr: "Accessible aux agents (MCP, A2A)",
    component: "expertise",
    source: "platform_observed",
    evidence: true,
    credential: false,
    points: flat(2),
    rule: "2 points when the profile is served over REST, MCP and A2A",
  }),
  define({
    key: "rcp_declared",
    label: "Professional liability insurance declared",
    labelFr: "Responsabilité civile professionnelle déclarée",
    component: "expertise",
    source: "merchant_declared",
    evidence: true,
    credential: false,
    points: flat(5),
    rule: "5 points when an RC Pro certificate was filed",
  }),
  define({
    key: "garantie_financiere_declared",
    label: "Financial guarantee declared",
    labelFr: "Garantie financière déclarée",
    component: "expertise",
    source: "merchant_declared",
    evidence: true,
    credential: false,
    appliesTo: ["immobilier", "tourisme"],
    points: flat(3),
    rule: "3 points when a financial guarantee certificate was filed",
  }),
  define({
    key: "orias_registered",
    label: "Registered with ORIAS",
    labelFr: "Immatriculé à l'ORIAS",
    component: "expertise",
    source: "official_api",
    evidence: true,
    credential: false,
    appliesTo: ["assurance", "immobilier"],
    points: flat(4),
    rule: "4 points when the ORIAS register lists the company",
    sourceUrlTemplate: "https://www.orias.fr/search?siren={siren}",
  }),
  define({
    key: "association_agreee_acpr_declared",
    label: "Member of an ACPR-approved association",
    labelFr: "Membre d'une association agréée ACPR",
    component: "expertise",
    source: "merchant_declared",
    evidence: true,
    credential: false,
    appliesTo: ["assurance"],
    points: flat(2),
    rule: "2 points when membership was declared",
  }),
  define({
    key: "alimconfiance_score",
    label: "Food hygiene inspection level (Alim'confiance)",
    labelFr: "Niveau d'hygiène Alim'confiance",
    component: "expertise",
    source: "official_api",
    evidence: true,
    credential: false,
    appliesTo: ["alimentation", "restauration"],
    points: steps([
      [4, 5],
      [3, 3],
      [2, 1],
    ]),
    rule: "very satisfactory (4): 5, satisfactory (3): 3, to improve (2): 1, else 0",
    sourceUrlTemplate: "https://alim-confiance.gouv.fr/",
  }),
  // --- authority: public presence and consistency
  define({
    key: "listing_verified",
    label: "Public business listing claimed and verified",
    labelFr: "Fiche d'établissement vérifiée",
    component: "authority",
    source: "platform_observed",
    evidence: true,
    credential: false,
    points: flat(3),
    rule: "3 points when the public listing is claimed",
  }),
  define({
    key: "listing_rating",
    label: "Average rating on the public listing",
    labelFr: "Note moyenne publique",
    component: "authority",
    source: "platform_observed",
    evidence: false,
    credential: true,
    points: steps([
      [4.5, 5],
      [4, 4],
      [3.5, 2],
    ]),
    rule: "4.5+: 5, 4+: 4, 3.5+: 2, else 0",
  }),
  define({
    key: "reviewsite_rating",
    label: "Rating on an independent review site",
    labelFr: "Note sur un site d'avis indépendant",
    component: "authority",
    source: "platform_observed",
    evidence: true,
    credential: false,
    points: steps([
      [4.5, 3],
      [4, 2],
      [3, 1],
    ]),
    rule: "4.5+: 3, 4+: 2, 3+: 1, else 0",
  }),
  define({
    key: "website_present",
    label: "Website reachable",
    labelFr: "Site web accessible",
    component: "authority",
    source: "platform_observed",
    evidence: true,
    credential: false,
    points: flat(2),
    rule: "2 points when the website answers",
  }),
  define({
    key: "embed_script_detected",
    label: "Registry badge embedded on the website",
    labelFr: "Badge Abeille intégré au site",
    component: "authority",
    source: "platform_observed",
    evidence: true,
    credential: false,
    points: flat(2),
    rule: "2 points when the badge script is found on the website",
  }),
  define({
    key: "identity_name_match",
    label: "Trade name consistent across sources",
    labelFr: "Nom commercial cohérent",
    component: "authority",
    source: "platform_observed",
    evidence: true,
    credential: false,
    points: flat(2),
    rule: "2 points when the listing, website and register names agree",
  }),
  define({
    key: "email_domain_match",
    label: "Email domain matches the website",
    labelFr: "Domaine e-mail cohérent avec le site",
    component: "authority",
    source: "platform_observed",
    evidence: true,
    credential: false,
    points: flat(2),
    rule: "2 points when the contact email uses the website's domain",
  }),
  define({
    key: "brand_voice_declared",
    label: "Brand voice declared",
    labelFr: "Voix de marque déclarée",
    component: "authority",
    source: "merchant_declared",
    evidence: true,
    credential: false,
    points: flat(2),
    rule: "2 points when the merchant declared a brand voice",
  }),
  define({
    key: "brand_voice_consistency",
    label: "Brand voice consistent with published content",
    labelFr: "Voix de marque cohérente",
    component: "authority",
    source: "platform_observed",
    evidence: true,
    credential: false,
    points: flat(2),
    rule: "2 points when published texts follow the declared voice",
  }),
  define({
    key: "positioning_clarity",
    label: "Positioning stated clearly",
    labelFr: "Positionnement clair",
    component: "authority",
    source: "platform_observed",
    evidence: true,
    credential: false,
    points: flat(2),
    rule: "2 points when the description states what, where and for whom",
  }),
];

export const COMPONENT_MAX = 25;
export const trustComponents: TrustComponent[] = ["experience", "expertise", "authority", "trust"];

const catalogByKey = new Map(signalCatalog.map((definition) => [definition.key, definition]));
const catalogPosition = new Map(signalCatalog.map((definition, position) => [definition.key, position]));

/** Position in the catalog, for a stable order of contributions. Unknown keys sort last. */
export function signalPosition(key: string): number {
  return catalogPosition.get(key) ?? Number.MAX_SAFE_INTEGER;
}

export function signalDefinition(key: string): SignalDefinition | undefined {
  return catalogByKey.get(key);
}

/** The 26 evidence signals, in the spec's order of listing. */
export const EVIDENCE_SIGNALS = [
  "siret_verified",
  "bodacc_clean",
  "listing_verified",
  "orias_registered",
  "alimconfiance_score",
  "reviewsite_rating",
  "website_present",
  "embed_script_detected",
  "territorial_address_verified",
  "rne_verified",
  "officer_identity",
  "officer_email_verified",
  "contact_email_verified",
  "external_review_received",
  "identity_name_match",
  "email_domain_match",
  "compliance_documents",
  "schema_org_valid",
  "multi_protocol_ready",
  "rcp_declared",
  "garantie_financiere_declared",
  "association_agreee_acpr_declared",
  "brand_voice_declared",
  "brand_voice_consistency",
  "positioning_clarity",
  "terrain_media_snapshot",
] as const;
export type EvidenceSignal = (typeof EVIDENCE_SIGNALS)[number];

const evidenceSet: ReadonlySet<string> = new Set(EVIDENCE_SIGNALS);

export function isEvidenceSignal(value: string): value is EvidenceSignal {
  return evidenceSet.has(value);
}

export function proofStatusFor(source: SignalSource): ProofStatus {
  if (source === "official_api" || source === "official_file") return "official_source_verified";
  if (source === "platform_observed") return "machine_consistent";
  return "merchant_declared";
}

export function signalApplies(definition: SignalDefinition, sector: string): boolean {
  return definition.appliesTo === undefined || (definition.appliesTo as string[]).includes(sector);
}
