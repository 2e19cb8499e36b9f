/**
 * Builds one demo merchant (profile, territorial proof, products, signals, Q&A clusters) from a
 * per-merchant random stream, so a merchant depends only on the seed, its position and its plan.
 */
import type { Merchant, MerchantProfile, Product, QaCluster, TerritorialProof } from "../domain/merchant.ts";
import { sireneSignals } from "../domain/merchants/apply-official-establishment.ts";
import { type SectorKey, type Trade, tradeByKey } from "../domain/sectors.ts";
import { formatSiren, makeSiret, sirenOf, vatFromSiren } from "../domain/siret.ts";
import type { MerchantStatus } from "../schemas/envelope.ts";
import type { BrandVoice } from "../store/schema.ts";
import { type Commune, type CommuneReference, NeighbourFinder } from "./communes.ts";
import { isoString, Rng } from "./prng.ts";
import { buildClusters, verifiedKeys } from "./qa.ts";
import { type SignalFacts, SignalPlanner } from "./signals.ts";
import { HOURS, type ProductTemplate, type TradeContent, tradeContent, WEEKDAYS } from "./trade-content.ts";
import {
  aName,
  cachedSlug,
  deName,
  FIRST_NAMES_F,
  FIRST_NAMES_M,
  LAST_NAMES,
  PLACE_NAMES,
  STREET_NAMES,
  STREET_TYPES,
  slugify,
} from "./words.ts";

const DAY = 86_400_000;
const YEAR = 365.25 * DAY;

/** The roster cases a merchant can be built for; unplanned merchants are drawn at random. */
export type CaseKind =
  | "active_contactable"
  | "order_ready"
  | "unreviewed"
  | "low_trust"
  | "probation"
  | "paused"
  | "suspended"
  | "archived";

export interface MerchantPlan {
  kind: CaseKind;
  sector?: SectorKey;
  clusters?: boolean;
}

/** A demo merchant as planned: what the official files, declarations and observations will say. */
export interface SeedRecord extends MerchantProfile {
  territorialProof: TerritorialProof;
  paymentAccountId: string | null;
}

export interface GeneratedMerchant {
  record: SeedRecord;
  trust: number;
  /** A word of the business name a searcher would type for this trade, if there is one. */
  searchWord: string | null;
  trade: Trade;
}

/**
 * The trades the demo registry draws from, in data/trade-content.json's order: those it describes
 * (the table knows many more; a demo merchant of a trade without content would have nothing to show).
 */
const DEMO_TRADES: readonly Trade[] = Object.keys(tradeContent).map((key) => {
  const trade = tradeByKey(key);
  if (!trade) throw new Error(`data/trade-content.json: ${key} is not a trade of data/naf-trades.json`);
  return trade;
});

/** Relative frequency of each trade among merchants (trades not listed weigh 2). */
const TRADE_WEIGHTS: Record<string, number> = {
  plombier: 6,
  electricien: 6,
  menuisier: 4,
  peintre: 4,
  couvreur: 3,
  paysagiste: 3,
  boulanger: 6,
  charcutier: 2,
  boucher: 3,
  traiteur: 3,
  restaurant: 8,
  coiffeur: 6,
  estheticienne: 4,
  spa: 2,
  garagiste: 5,
  agence_voyage: 2.5,
  voyagiste: 1.5,
  guide: 2,
  hotel: 3.5,
  fleuriste: 3,
  librairie: 2,
  agence_immobiliere: 4,
  courtier_assurance: 2.5,
  veterinaire: 2.5,
  photographe: 2,
  cordonnier: 1.5,
  salle_sport: 2,
};

const LEGAL_FORMS: readonly [form: string, weight: number][] = [
  ["SAS", 24],
  ["SARL", 24],
  ["SASU", 15],
  ["EURL", 12],
  ["EI", 25],
];

const STATUS_WEIGHTS: readonly [status: MerchantStatus, weight: number][] = [
  ["ACTIVE", 72],
  ["PROBATION", 14],
  ["PAUSED", 5],
  ["SUSPENDED", 4],
  ["ARCHIVED", 5],
];

/** Landline blocks ARCEP reserves for fiction, by region code; mobiles use 06 39 98. */
const FICTION_LANDLINE: Record<string, string> = {
  "11": "1 99 00",
  "24": "2 61 91",
  "28": "2 61 91",
  "52": "2 61 91",
  "53": "2 61 91",
  "27": "3 53 01",
  "32": "3 53 01",
  "44": "3 53 01",
  "84": "4 65 71",
  "93": "4 65 71",
  "94": "4 65 71",
  "75": "5 36 49",
  "76": "5 36 49",
};

const WEBMAILS = ["orange.fr", "gmail.com", "free.fr", "laposte.net", "sfr.fr", "wanadoo.fr", "outlook.fr"];
const TONES = [
  "chaleureux et direct",
  "expert et rassurant",
  "artisanal et authentique",
  "convivial et familial",
  "précis et professionnel",
  "simple et accessible",
];
const VALUES = [
  "proximité",
  "transparence",
  "savoir-faire",
  "réactivité",
  "qualité",
  "écoute",
  "produits locaux",
  "respect des délais",
  "honnêteté des prix",
];
const DOS = [
  "tutoyer jamais, vouvoyer toujours",
  "citer les prix TTC",
  "rappeler la zone d'intervention",
  "mentionner le devis gratuit",
  "parler des produits de saison",
  "donner un délai précis",
];
const DONTS = [
  "promettre une intervention immédiate",
  "dénigrer la concurrence",
  "employer un jargon technique",
  "annoncer un prix sans devis",
  "utiliser des superlatifs",
];
const DELIVERY_SECTORS = new Set<string>(["alimentation", "commerce", "restauration"]);
const STOP_WORDS = new Set([
  "les",
  "des",
  "bien",
  "etre",
  "maison",
  "atelier",
  "grand",
  "club",
  "auto",
  "espaces",
  "verts",
]);

function cumulative(weights: readonly number[]): Float64Array {
  const out = new Float64Array(weights.length);
  let total = 0;
  weights.forEach((weight, index) => {
    total += weight;
    out[index] = total;
  });
  return out;
}

function plain(text: string): string {
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase();
}

/** The word of a trade name a searcher would type: one matching the trade's keywords or label. */
function searchWordOf(nameWord: string, trade: Trade): string | null {
  const tokens = nameWord.split(/[\s'’-]+/).filter((token) => token.length >= 3 && !STOP_WORDS.has(plain(token)));
  const vocabulary = (words: readonly string[]) => words.flatMap((word) => plain(word).split(/[\s'’-]+/));
  for (const pool of [vocabulary(trade.keywords), vocabulary([trade.label])]) {
    for (const token of tokens) {
      const candidate = plain(token);
      const matches = pool.some(
        (word) =>
          word === candidate ||
          (word.length >= 5 && candidate.length >= 5 && (word.startsWith(candidate) || candidate.startsWith(word))),
      );
      if (matches) return token.toLowerCase();
    }
  }
  return null;
}

function round(value: number, step: number): number {
  return Math.round(value / step) * step;
}

function variedPriceCents(price: number | null, rng: Rng): number | null {
  if (price === null) return null;
  if (price === 0) return 0;
  const varied = price * (0.85 + rng.next() * 0.4);
  const step = varied < 10 ? 0.1 : varied < 100 ? 0.5 : varied < 1000 ? 5 : 50;
  return Math.round(round(varied, step) * 100);
}

function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

interface TradeInfo {
  trade: Trade;
  content: TradeContent;
  searchWords: (string | null)[];
  planner: SignalPlanner;
  hours: Record<string, string>[];
}

export class MerchantGenerator {
  private readonly tradeInfos: TradeInfo[];
  private readonly tradeCumulative: Float64Array;
  private readonly streetCumulative: Float64Array;
  private readonly formCumulative: Float64Array;
  private readonly statusCumulative: Float64Array;
  private readonly neighbours: NeighbourFinder;
  private readonly slugs = new Set<string>();
  private readonly reference: CommuneReference;
  private readonly seed: number;
  private readonly now: number;

  constructor(reference: CommuneReference, seed: number, now: number) {
    this.reference = reference;
    this.seed = seed;
    this.now = now;
    this.tradeInfos = DEMO_TRADES.map((trade) => {
      const content = tradeContent[trade.key] as TradeContent;
      return {
        trade,
        content,
        searchWords: content.nameWords.map((word) => searchWordOf(word, trade)),
        planner: new SignalPlanner(trade.sector, now),
        hours: HOURS[content.hours].map((week) =>
          Object.fromEntries(WEEKDAYS.map((day, index) => [day, week[index] ?? "fermé"])),
        ),
      };
    });
    this.tradeCumulative = cumulative(DEMO_TRADES.map((trade) => TRADE_WEIGHTS[trade.key] ?? 2));
    this.streetCumulative = cumulative(STREET_TYPES.map(([, weight]) => weight));
    this.formCumulative = cumulative(LEGAL_FORMS.map(([, weight]) => weight));
    this.statusCumulative = cumulative(STATUS_WEIGHTS.map(([, weight]) => weight));
    this.neighbours = new NeighbourFinder(reference.communes);
  }

  generate(index: number, abId: string, siren: string, plan: MerchantPlan | null): GeneratedMerchant {
    const rng = Rng.create(this.seed, index + 1);
    const now = this.now;
    // Product, brick, cluster and node ids are version-7 UUIDs on a synthetic clock: 128 ms per
    // merchant from 30 days before `now`, so ids grow with the merchant index and insert in order.
    const idBase = now - 30 * DAY + index * 128;
    let idOrdinal = 0;
    const nextId = () => rng.uuidAt(idBase + Math.min(127, idOrdinal++));
    const kind = plan?.kind ?? null;

    // --- trade, place and names
    const info = this.pickTrade(rng, plan?.sector);
    const { trade, content } = info;
    const communeIndex = rng.weighted(this.reference.cumulativePopulation);
    const commune = this.reference.communes[communeIndex] as Commune;
    const female = rng.chance(0.5);
    const firstName = rng.pick(female ? FIRST_NAMES_F : FIRST_NAMES_M);
    const lastName = rng.pick(LAST_NAMES);
    const wordIndex = rng.int(content.nameWords.length);
    const nameWord = content.nameWords[wordIndex] as string;
    const businessName = rng
      .pick(content.namePatterns)
      .replace("{W}", nameWord)
      .replace("{L}", lastName)
      .replace(" de {F}", ` ${deName(firstName)}`)
      .replace("{F}", firstName)
      .replace("{P}", rng.pick(PLACE_NAMES))
      .replace(" de {C}", ` ${deName(commune.name)}`)
      .replace("{C}", commune.name);
    const searchWord = info.searchWords[wordIndex] ?? null;
    const form = (LEGAL_FORMS[rng.weighted(this.formCumulative)] as [string, number])[0];
    const company = form !== "EI";
    const legalName = company ? `${form} ${businessName}` : `${firstName} ${lastName} (EI)`;
    const nameSlug = slugify(businessName);
    const communeSlug = cachedSlug(commune.name);
    const slug = this.uniqueSlug(`${nameSlug}-${communeSlug}`);
    const siret = makeSiret(siren, `00${String(rng.between(1, 60)).padStart(2, "0")}`);
    const department = this.reference.departments.get(commune.department);

    // --- status and the plan's constraints
    const status: MerchantStatus = kind ? statusFor(kind) : this.pickStatus(rng);
    const wantsOrder = kind === "order_ready";
    // A company of less than two years: its official signals alone stay under the contact threshold.
    const ageYears = wantsOrder
      ? rng.float(6, 30)
      : kind === "low_trust"
        ? rng.float(0.3, 1.9)
        : status === "PROBATION"
          ? rng.float(0.2, 4)
          : 0.3 + rng.next() ** 1.6 * 40;
    const foundedMs = now - ageYears * YEAR - rng.int(DAY);
    const yearsInBusiness = Math.floor((now - foundedMs) / YEAR);

    // --- address and position (within 1.8 km of the commune's centre)
    const streetType = (STREET_TYPES[rng.weighted(this.streetCumulative)] as [string, number])[0];
    const number = rng.between(1, streetType === "place" ? 40 : 140);
    const street = `${number}${rng.chance(0.06) ? " bis" : ""} ${streetType} ${rng.pick(STREET_NAMES)}`;
    const postalCode = rng.pick(commune.postalCodes);
    const distance = 1.8 * Math.sqrt(rng.next());
    const bearing = rng.next() * 2 * Math.PI;
    const latitude = round6(commune.lat + (distance * Math.cos(bearing)) / 111.32);
    const longitude = round6(
      commune.lng + (distance * Math.sin(bearing)) / (111.32 * Math.cos((commune.lat * Math.PI) / 180)),
    );

    // --- contact channels
    const mobile = rng.chance(0.35);
    const block = mobile ? "6 39 98" : (FICTION_LANDLINE[commune.region] ?? "1 99 00");
    const phone = `+33 ${block} ${rng.digits(2)} ${rng.digits(2)}`;
    const hasWebsite = wantsOrder || rng.chance(0.75);
    const domainLabel = nameSlug.slice(0, 40).replace(/-+$/, "");
    const domain = hasWebsite
      ? `${domainLabel}${rng.chance(0.3) ? `-${communeSlug.slice(0, 20).replace(/-+$/, "")}` : ""}.${rng.chance(0.8) ? "fr" : "com"}`
      : null;
    const website = domain ? `https://${rng.chance(0.7) ? "www." : ""}${domain}` : null;
    const emailOnDomain = domain !== null && (wantsOrder || rng.chance(0.8));
    const email = emailOnDomain
      ? `${rng.pick(["contact", "contact", "bonjour", "info", cachedSlug(firstName)])}@${domain}`
      : `${cachedSlug(firstName)}.${cachedSlug(lastName)}${rng.chance(0.4) ? rng.between(1, 99) : ""}@${rng.pick(WEBMAILS)}`;

    // --- listing and media
    const hasListing = wantsOrder || rng.chance(0.85);
    const listingRating = hasListing
      ? wantsOrder
        ? round1(rng.float(4.3, 5))
        : round1(Math.min(5, Math.max(2.5, 3.2 + (rng.next() + rng.next() + rng.next()) * 0.6)))
      : null;
    const listingReviewCount = hasListing
      ? wantsOrder
        ? rng.between(60, 600)
        : Math.floor(Math.exp(rng.next() * 6.4)) - 1
      : null;
    const listingPhotosCount = hasListing ? rng.between(0, 60) : 0;
    const compact = nameSlug.replace(/-/g, "");
    const listingUrl = hasListing ? `https://www.pagesjaunes.fr/pros/${rng.digits(8)}` : null;
    const sameAs: string[] = [];
    if (listingUrl) sameAs.push(listingUrl);
    if (rng.chance(0.5)) sameAs.push(`https://www.facebook.com/${compact}`);
    if (rng.chance(0.35)) sameAs.push(`https://www.instagram.com/${compact}`);
    const terrainPhotos: string[] = [];
    const photoCount = website && (wantsOrder || rng.chance(0.45)) ? rng.between(1, 4) : 0;
    for (let photo = 1; photo <= photoCount; photo++) terrainPhotos.push(`${website}/photos/terrain-${photo}.jpg`);

    // --- description, voice, hours, zones
    const hasDescription = kind !== null || rng.chance(0.97);
    const foundedYear = new Date(foundedMs).getUTCFullYear();
    const zones = this.zonesFor(rng, communeIndex, content.travels);
    const description = hasDescription
      ? this.describe(rng, content, businessName, commune, foundedYear, department?.name ?? null, zones)
      : null;
    const descriptionLlmUnreviewed =
      description !== null &&
      (kind === "unreviewed" || (kind === null && rng.chance(status === "PROBATION" ? 0.15 : 0.07)));
    const hasBrandVoice = wantsOrder || rng.chance(0.35);
    const brandVoice: BrandVoice | null = hasBrandVoice
      ? {
          tone: rng.pick(TONES),
          values: rng.sample(VALUES, 3),
          do: rng.sample(DOS, 2),
          dont: rng.sample(DONTS, 2),
          consumer_surface: "ai_digest",
          is_published: wantsOrder || rng.chance(0.8),
        }
      : null;
    const createdMs = Math.max(foundedMs, now - rng.between(20, 900) * DAY) + rng.int(DAY);
    const createdAt = isoString(Math.min(createdMs, now - DAY));
    const updatedMs = Math.min(now - 60_000, Date.parse(createdAt) + rng.int(Math.max(1, now - Date.parse(createdAt))));
    const updatedAt = isoString(updatedMs);
    const hours = rng.chance(0.93) ? rng.pick(info.hours) : null;
    const delivery = DELIVERY_SECTORS.has(trade.sector) && rng.chance(0.35);
    const languages = ["fr"];
    const tourism = trade.sector === "tourisme";
    if (rng.chance(tourism ? 0.85 : 0.3)) languages.push("en");
    if (rng.chance(tourism ? 0.35 : 0.05)) languages.push(rng.pick(["es", "de", "it"]));

    const merchant: Merchant = {
      abId,
      siret,
      legalName,
      businessName,
      slug,
      nafCode: trade.nafCode,
      nafCode2025: null,
      sector: trade.sector,
      status,
      rcs: company && department ? `RCS ${department.prefecture} ${formatSiren(siren)}` : null,
      vatIntracom: company ? vatFromSiren(sirenOf(siret)) : null,
      street,
      postalCode,
      city: commune.name,
      phone,
      email,
      website,
      description,
      descriptionLlmUnreviewed,
      brandVoice,
      brandUpdatedAt: brandVoice ? isoString(Math.max(Date.parse(createdAt), updatedMs - rng.int(30) * DAY)) : null,
      hours,
      hoursExceptions: [],
      timezone: "Europe/Paris",
      zones,
      areasDeclaredAt: content.travels ? createdAt : null,
      deliveryEnabled: delivery,
      deliveryRadiusKm: delivery ? rng.between(3, 15) : null,
      languages,
      foundedOn: isoDate(foundedMs),
      domainAgeYears: website ? Math.max(1, Math.min(yearsInBusiness, rng.between(1, 22))) : null,
      listingRating,
      listingReviewCount,
      listingPhotosCount,
      terrainPhotos,
      sameAs,
      paymentSetup: false,
      closure: null,
      createdAt,
      updatedAt,
    };

    // --- products
    const products = this.products(rng, nextId, abId, content.products, website, updatedAt, status === "ARCHIVED");
    const units = new Map<string, string>();
    let filled = 0;
    products.forEach((productRow, position) => {
      const unit = productRow.template.unit;
      if (unit) units.set(productRow.product.productId, unit);
      filled += (productRow.product.priceCents !== null ? 1 : 0) + (productRow.product.imageUrl ? 1 : 0);
      filled += productRow.product.externalUrl ? 1 : 0;
      productRow.product.position = position;
    });
    const productList = products.map((entry) => entry.product);

    // --- signals and trust
    const facts: SignalFacts = {
      sector: trade.sector,
      siren,
      siret,
      website,
      listingUrl,
      emailOnDomain,
      hasEmail: true,
      hasPhone: true,
      hasBrandVoice,
      brandPublished: brandVoice?.is_published ?? false,
      hasDescription,
      terrainPhotos: terrainPhotos.length,
      yearsInBusiness,
      listingRating,
      listingReviewCount,
      productCount: productList.length,
      completeness: Math.min(1, 0.4 + filled / (3 * Math.max(1, productList.length))),
    };
    const { level, min, max } = trustTarget(kind, status, rng);
    // Every demo merchant comes in through the SIRENE import, which proves its identity and age.
    const given = sireneSignals(isoString(now), isoDate(foundedMs));
    const { signals, trust } = info.planner.plan(facts, level, rng, min, max, given);

    merchant.paymentSetup =
      wantsOrder || (kind === null && (status === "ACTIVE" && trust >= 55 ? rng.chance(0.45) : rng.chance(0.03)));
    const paymentAccountId = merchant.paymentSetup ? `acct_${rng.alnum(16)}` : null;

    // --- Q&A clusters
    const wantsClusters = plan?.clusters ?? rng.chance(status === "ACTIVE" || status === "PROBATION" ? 0.35 : 0.15);
    const clusters: QaCluster[] = wantsClusters
      ? buildClusters(
          {
            merchant,
            siren,
            products: productList,
            verified: verifiedKeys(signals),
            travels: content.travels,
            delays: content.delays,
            units,
            now,
            nextId,
          },
          rng,
        )
      : [];

    const territorialProof: TerritorialProof = {
      latitude,
      longitude,
      inseeCode: commune.insee,
      postalCode,
      cityNormalized: commune.name,
      geocodingSource: "ban",
      geocodingScore: round2(rng.float(0.7, 1)),
      verified: true,
      verifiedAt: isoString(Math.min(updatedMs, Date.parse(createdAt) + rng.int(7 * DAY))),
      population: commune.population,
      departmentCode: commune.department,
      regionCode: commune.region,
      epciCode: commune.epci,
    };

    return {
      record: { merchant, territorialProof, products: productList, signals, clusters, paymentAccountId },
      trust,
      searchWord,
      trade,
    };
  }

  private pickTrade(rng: Rng, sector: SectorKey | undefined): TradeInfo {
    if (sector) {
      const candidates = this.tradeInfos.filter((info) => info.trade.sector === sector);
      if (candidates.length > 0) return rng.pick(candidates);
    }
    return this.tradeInfos[rng.weighted(this.tradeCumulative)] as TradeInfo;
  }

  private pickStatus(rng: Rng): MerchantStatus {
    return (STATUS_WEIGHTS[rng.weighted(this.statusCumulative)] as [MerchantStatus, number])[0];
  }

  private uniqueSlug(base: string): string {
    let slug = base;
    for (let suffix = 2; this.slugs.has(slug); suffix++) slug = `${base}-${suffix}`;
    this.slugs.add(slug);
    return slug;
  }

  private zonesFor(rng: Rng, communeIndex: number, travels: boolean): string[] {
    const commune = this.reference.communes[communeIndex] as Commune;
    if (!travels) return rng.chance(0.7) ? [commune.name] : [commune.postalCodes[0] as string];
    const near = this.neighbours.near(communeIndex).slice(0, rng.between(1, 5));
    const served = [commune, ...near.map((index) => this.reference.communes[index] as Commune)];
    if (rng.chance(0.25)) return [...new Set(served.map((entry) => entry.postalCodes[0] as string))];
    return served.map((entry) => entry.name);
  }

  private describe(
    rng: Rng,
    content: TradeContent,
    businessName: string,
    commune: Commune,
    foundedYear: number,
    departmentName: string | null,
    zones: string[],
  ): string {
    const specialties = rng.sample(content.specialties, 3);
    const where = departmentName ? `${aName(commune.name)} (${departmentName})` : aName(commune.name);
    const place = content.travels
      ? `Zone d'intervention : ${zones.slice(0, 4).join(", ")} et alentours.`
      : `Accueil des clients au cœur ${deName(commune.name)}.`;
    return (
      `Depuis ${foundedYear}, ${businessName} est ${content.activity} ${where}. ` +
      `Spécialités : ${specialties.slice(0, -1).join(", ")} et ${specialties[specialties.length - 1]}. ` +
      `${place} ${rng.pick(content.closings)}`
    );
  }

  private products(
    rng: Rng,
    nextId: () => string,
    abId: string,
    templates: readonly ProductTemplate[],
    website: string | null,
    updatedAt: string,
    archived: boolean,
  ): { product: Product; template: ProductTemplate }[] {
    const count = Math.min(templates.length, rng.pick([2, 3, 3, 4, 4, 5, 5, 6, 7, 8]));
    return rng.sample(templates, count).map((template) => {
      const slug = cachedSlug(template.name);
      const description = template.unit
        ? `${template.description} Tarif indiqué ${template.unit}.`
        : template.description;
      return {
        template,
        product: {
          productId: nextId(),
          brickId: nextId(),
          abId,
          slug,
          brickType: template.type,
          name: template.name,
          description,
          priceCents: variedPriceCents(template.price, rng),
          currency: "EUR",
          pricingModel: template.pricing,
          inventoryStatus: template.inventory,
          imageUrl: website && rng.chance(0.3) ? `${website}/images/${slug}.jpg` : null,
          externalUrl: website && rng.chance(0.4) ? `${website}/${slug}` : null,
          tags: template.tags,
          isLocked: archived || rng.chance(0.03),
          position: 0,
          updatedAt,
        },
      };
    });
  }
}

function statusFor(kind: CaseKind): MerchantStatus {
  switch (kind) {
    case "probation":
      return "PROBATION";
    case "paused":
      return "PAUSED";
    case "suspended":
      return "SUSPENDED";
    case "archived":
      return "ARCHIVED";
    default:
      return "ACTIVE";
  }
}

/** The signal level to draw at, and the score bounds a planned case needs. */
function trustTarget(
  kind: CaseKind | null,
  status: MerchantStatus,
  rng: Rng,
): { level: number; min: number; max: number } {
  switch (kind) {
    case "order_ready":
      return { level: rng.float(0.9, 1), min: 55, max: 100 };
    case "active_contactable":
      return { level: rng.float(0.45, 0.85), min: 20, max: 100 };
    case "unreviewed":
      return { level: rng.float(0.4, 0.8), min: 10, max: 100 };
    case "low_trust":
      return { level: rng.float(0, 0.08), min: 0, max: 9 };
    case "probation":
      return { level: rng.float(0.2, 0.6), min: 10, max: 100 };
    case null:
      break;
    default:
      return { level: rng.next(), min: 0, max: 100 };
  }
  if (status === "PROBATION") return { level: rng.float(0, 0.65), min: 0, max: 100 };
  if (rng.chance(0.08)) return { level: rng.float(0, 0.12), min: 0, max: 100 };
  return { level: 0.12 + rng.next() * 0.88, min: 0, max: 100 };
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

function round6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
