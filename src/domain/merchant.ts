import type { MerchantStatus } from "../schemas/envelope.ts";
import type { OfficialSourceName, SignalSource, SignalStatus, SignalValue } from "./trust/signal-catalog.ts";

/** How a merchant wants to be spoken of (published when `is_published`). */
export interface BrandVoice {
  tone: string;
  values: string[];
  do: string[];
  dont: string[];
  consumer_surface: string;
  is_published: boolean;
}

/**
 * A business closed, as an official source says (docs/decisions.md, "Issue 37: only what is in
 * business"): the merchant stays resolvable, saying so, and is never a search hit.
 */
export interface MerchantClosure {
  /** The day it closed (YYYY-MM-DD), as the source dates it. */
  closedOn: string;
  /** `sirene`: the establishment closed in the SIRENE register; `bodacc`: a deregistration or a liquidation closed, published in the BODACC. */
  source: "sirene" | "bodacc";
  /** Where to read it: the dataset (SIRENE), the announcement (BODACC). */
  sourceUrl: string;
  /** What the source says, in French ("Établissement fermé", "Radiation du registre du commerce et des sociétés"). */
  label: string;
  /** The BODACC announcement's id; null for SIRENE. */
  announcementId: string | null;
  /** When the registry recorded it. */
  recordedAt: string;
}

/** Plain data the domain works on, as the store hands it over (no ORM objects leak out). */
export interface Merchant {
  abId: string;
  siret: string;
  legalName: string;
  businessName: string;
  slug: string;
  /** The main activity's code: NAF rev. 2 when the source gives one, else NAF 2025 (docs/decisions.md). */
  nafCode: string;
  /** The main activity's NAF 2025 code, when the source gives one. */
  nafCode2025: string | null;
  sector: string;
  status: MerchantStatus;
  rcs: string | null;
  vatIntracom: string | null;
  street: string;
  postalCode: string;
  city: string;
  phone: string | null;
  email: string | null;
  website: string | null;
  description: string | null;
  descriptionLlmUnreviewed: boolean;
  brandVoice: BrandVoice | null;
  brandUpdatedAt: string | null;
  hours: Record<string, string> | null;
  /** The merchant's dated exceptions to its usual week (a closure for the holidays, other hours on a date). */
  hoursExceptions: HoursException[];
  timezone: string;
  zones: string[];
  areasDeclaredAt: string | null;
  deliveryEnabled: boolean;
  deliveryRadiusKm: number | null;
  languages: string[];
  foundedOn: string;
  domainAgeYears: number | null;
  listingRating: number | null;
  listingReviewCount: number | null;
  listingPhotosCount: number;
  terrainPhotos: string[];
  sameAs: string[];
  paymentSetup: boolean;
  /** Null while the business is open, as far as the official sources say. */
  closure: MerchantClosure | null;
  createdAt: string;
  updatedAt: string;
}

/** A dated exception to the usual week: from `from` to `to` (inclusive, YYYY-MM-DD), these hours. */
export interface HoursException {
  from: string;
  to: string;
  /** As the week's days are written: "fermé", "09:00-12:30,14:00-18:00". */
  hours: string;
  /** The merchant's words for it ("congés d'été"), or null. */
  note: string | null;
}

export interface TerritorialProof {
  latitude: number | null;
  longitude: number | null;
  inseeCode: string | null;
  postalCode: string | null;
  cityNormalized: string | null;
  geocodingSource: string | null;
  geocodingScore: number | null;
  verified: boolean;
  verifiedAt: string | null;
  population: number | null;
  departmentCode: string | null;
  regionCode: string | null;
  epciCode: string | null;
}

export interface Product {
  productId: string;
  brickId: string;
  abId: string;
  slug: string;
  brickType: string;
  name: string;
  description: string;
  priceCents: number | null;
  currency: string;
  pricingModel: string;
  inventoryStatus: string;
  imageUrl: string | null;
  externalUrl: string | null;
  tags: string[];
  isLocked: boolean;
  position: number;
  updatedAt: string;
}

export interface Signal {
  key: string;
  status: SignalStatus;
  proofStatus: string;
  source: SignalSource;
  sourceUrl: string | null;
  value: SignalValue;
  verifiedAt: string | null;
  recordedAt: string;
  expiresAt: string | null;
  /** The official notice the signal's status rests on (a BODACC announcement for bodacc_clean), if any. */
  notice?: SignalNotice | null;
  /**
   * When the source's own record last changed, where it says (SIRENE's dateDernierTraitement of
   * the establishment): shown as such; the check's date is `verifiedAt`, when the source said so.
   */
  changedAt?: string | null;
  /** Which official source said so (merchant.sources names it); absent for what no official source said. */
  origin?: OfficialSourceName | null;
}

/** An official notice, as evidence: what was published, when, by which court, where to read it. */
export interface SignalNotice {
  /** The notice's identifier in its source (BODACC: letter, issue and number, e.g. A202600521234). */
  id: string;
  /** Publication date (YYYY-MM-DD). */
  publishedOn: string;
  /** What kind of notice: `collective` (insolvency proceeding), `radiation` (deregistration), `sale`. */
  kind: string;
  /** Its official wording, e.g. "Jugement d'ouverture de liquidation judiciaire". */
  label: string;
  /** The date of the judgment or act it announces (YYYY-MM-DD), when given. */
  decidedOn: string | null;
  court: string | null;
  url: string | null;
}

export interface QaNode {
  nodeId: string;
  intent: string;
  question: string;
  answer: string;
  answerBluf: string;
  claimSentence: string;
  /** Who read the answer last: `human_verified` (the platform's reviewer), `merchant_reviewed`, ... */
  verificationLevel: string;
  /** The level the answer's facts were recorded at; read it through answerFactAt (trust/answer-fact.ts). */
  factLevel: string;
  /** The signal a verified level rests on (`siret_verified` for "is it registered?"); null: none. */
  factSignal: string | null;
  factSourceUrl: string | null;
  /** The answer's text is the merchant's own: declared, whatever the level said before. */
  editedByMerchant: boolean;
  driftSeverity: string | null;
  humanVerifiedAt: string | null;
  position: number;
}

export interface QaCluster {
  clusterId: string;
  abId: string;
  label: string;
  type: string;
  scope: "merchant" | "brick";
  brickId: string | null;
  position: number;
  updatedAt: string;
  nodes: QaNode[];
}

/** Everything known about one merchant: what resolve, the decision card and documents read. */
export interface MerchantProfile {
  merchant: Merchant;
  territorialProof: TerritorialProof | null;
  products: Product[];
  signals: Signal[];
  clusters: QaCluster[];
}
