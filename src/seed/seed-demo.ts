/**
 * Seeds a deterministic demo registry: the same `count`, `seed` and `now` always write the same
 * rows. Merchants are generated and written in batches; the roster of test cases
 * (`demo-roster.json`) is collected on the way and written last, after the search index rebuild.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { evaluateCapabilities } from "../domain/capabilities.ts";
import { makeSiren } from "../domain/siret.ts";
import { createEmbeddedSearchIndex } from "../search/embedded/index.ts";
import type { SearchIndex } from "../search/search-index.ts";
import type { Db } from "../store/db.ts";
import { createSeedWriter, isRegistryEmpty } from "../store/seed-writer.ts";
import { loadCommuneReference } from "./communes.ts";
import { type GeneratedMerchant, MerchantGenerator, type MerchantPlan } from "./generate.ts";
import { Rng } from "./prng.ts";

export interface SeedProgress {
  phase: "merchants" | "search_index";
  done: number;
  total: number;
}

export interface SeedOptions {
  count: number;
  seed: number;
  /** The moment the registry is generated "at": every date is derived from it. */
  now: Date;
  onProgress?: (progress: SeedProgress) => void;
  /** DATA_DIR: the roster is written to `DATA_DIR/demo-roster.json` (default: beside the database file). */
  dataDir?: string;
  /** Overrides where the roster is written; null: not written. */
  rosterFile?: string | null;
  /** Default `data/communes.json`. */
  communesFile?: string;
  /** The index to rebuild at the end; default the embedded index (its clock set to `now`); null: none. */
  searchIndex?: SearchIndex | null;
  /** Merchants per transaction (default 2,000). */
  batchSize?: number;
}

export const ROSTER_CASES = [
  "active_contactable",
  "contact_disabled",
  "probation",
  "paused",
  "suspended",
  "archived",
  "order_ready",
  "with_clusters",
] as const;
export type RosterCase = (typeof ROSTER_CASES)[number];

export interface GeoQuery {
  q: string;
  lat: number;
  lng: number;
  radius: number;
  tags: string[];
  /** The merchant the query was built from (it matches; others may too). */
  expected_ab_id: string;
}

export interface DemoRoster {
  seed: number;
  count: number;
  generated_at: string;
  cases: Record<RosterCase, string[]>;
  geo_queries: GeoQuery[];
}

export interface SeedSummary {
  merchants: number;
  products: number;
  signals: number;
  clusters: number;
  nodes: number;
  roster: DemoRoster;
  rosterFile: string | null;
  searchIndexRebuilt: boolean;
}

const ROSTER_LIMIT = 20;
const GEO_RADIUS_KM = 5;
const GEO_SECTOR_ORDER = [
  "batiment",
  "alimentation",
  "tourisme",
  "beaute",
  "restauration",
  "automobile",
  "commerce",
  "immobilier",
  "services",
  "sante_animale",
  "assurance",
];

/**
 * Planned cases, spread evenly over the registry so that any registry of 20 merchants or more
 * holds every status and capability case (larger ones hold many more by chance).
 */
const PLANS: MerchantPlan[] = [
  { kind: "active_contactable", sector: "tourisme", clusters: true },
  { kind: "order_ready", clusters: true },
  { kind: "unreviewed" },
  { kind: "low_trust" },
  { kind: "probation", clusters: true },
  { kind: "paused" },
  { kind: "suspended" },
  { kind: "archived" },
  { kind: "order_ready", sector: "tourisme" },
  { kind: "active_contactable", clusters: true },
  { kind: "active_contactable", sector: "tourisme" },
  { kind: "unreviewed", sector: "tourisme" },
  { kind: "low_trust", clusters: true },
  { kind: "order_ready", clusters: true },
  { kind: "probation" },
  { kind: "paused", clusters: true },
  { kind: "suspended" },
  { kind: "archived" },
  { kind: "active_contactable", clusters: true },
  { kind: "order_ready" },
];

/** Unique ab_ids and SIRENs drawn from the seed's main stream; ids sorted so inserts append. */
function identities(seed: number, count: number): { abIds: string[]; sirens: string[] } {
  const rng = Rng.create(seed, 0);
  const ids = new Set<string>();
  while (ids.size < count) ids.add(`ab_${rng.alnum(8)}`);
  const sirens = new Set<string>();
  while (sirens.size < count) {
    const siren = makeSiren(`${rng.between(3, 9)}${rng.digits(7)}`);
    if (siren !== "356000000") sirens.add(siren);
  }
  return { abIds: [...ids].sort(), sirens: [...sirens] };
}

class RosterCollector {
  readonly cases: Record<RosterCase, string[]> = {
    active_contactable: [],
    contact_disabled: [],
    probation: [],
    paused: [],
    suspended: [],
    archived: [],
    order_ready: [],
    with_clusters: [],
  };
  private readonly unreviewed: string[] = [];
  private readonly lowTrust: string[] = [];
  private readonly otherDisabled: string[] = [];
  private readonly geoBySector = new Map<string, GeoQuery>();

  add(generated: GeneratedMerchant, index: number, seed: number): void {
    const { merchant, products, clusters, territorialProof } = generated.record;
    const capabilities = evaluateCapabilities({
      status: merchant.status,
      trustScore: generated.trust,
      paymentSetup: merchant.paymentSetup,
      descriptionLlmUnreviewed: merchant.descriptionLlmUnreviewed,
      hasContactChannel: Boolean(merchant.email || merchant.phone),
      brandVoicePublished: merchant.brandVoice?.is_published ?? false,
      orderRailEnabled: false,
    });
    const state = capabilities.state;
    const push = (list: string[]) => {
      if (list.length < ROSTER_LIMIT) list.push(merchant.abId);
    };
    switch (merchant.status) {
      case "ACTIVE":
        if (state.can_contact) push(this.cases.active_contactable);
        else if (state.blocked_because.includes("description_llm_unreviewed")) push(this.unreviewed);
        else if (state.blocked_because.includes("trust_score_below_basic_threshold")) push(this.lowTrust);
        else push(this.otherDisabled);
        if (state.can_receive_orders) push(this.cases.order_ready);
        break;
      case "PROBATION":
        push(this.cases.probation);
        break;
      case "PAUSED":
        push(this.cases.paused);
        break;
      case "SUSPENDED":
        push(this.cases.suspended);
        break;
      case "ARCHIVED":
        push(this.cases.archived);
        break;
    }
    if (clusters.length > 0 && (merchant.status === "ACTIVE" || merchant.status === "PROBATION")) {
      push(this.cases.with_clusters);
    }
    const sector = merchant.sector;
    if (
      state.can_contact &&
      merchant.status === "ACTIVE" &&
      generated.searchWord &&
      !this.geoBySector.has(sector) &&
      territorialProof.latitude !== null &&
      territorialProof.longitude !== null
    ) {
      // The merchant's own position (to about a metre): it ranks first on distance.
      const rng = Rng.create(seed, -1 - index);
      const product = rng.pick(products);
      this.geoBySector.set(sector, {
        q: generated.searchWord,
        lat: Math.round(territorialProof.latitude * 1e5) / 1e5,
        lng: Math.round(territorialProof.longitude * 1e5) / 1e5,
        radius: GEO_RADIUS_KM,
        tags: [rng.pick(product.tags)],
        expected_ab_id: merchant.abId,
      });
    }
  }

  finish(): { cases: Record<RosterCase, string[]>; geoQueries: GeoQuery[] } {
    // Contact refused for each reason in turn, so both show up within the limit.
    const disabled: string[] = [];
    const sources = [this.unreviewed, this.lowTrust, this.otherDisabled];
    for (let round = 0; disabled.length < ROSTER_LIMIT && sources.some((list) => list.length > round); round++) {
      for (const list of sources) {
        const id = list[round];
        if (id !== undefined && disabled.length < ROSTER_LIMIT) disabled.push(id);
      }
    }
    this.cases.contact_disabled = disabled;
    const geoQueries = GEO_SECTOR_ORDER.map((sector) => this.geoBySector.get(sector))
      .filter((query): query is GeoQuery => query !== undefined)
      .slice(0, 6);
    return { cases: this.cases, geoQueries };
  }
}

function defaultRosterFile(db: Db): string | null {
  const file = db.$client.name;
  if (!file || file === ":memory:") return null;
  return path.join(path.dirname(file), "demo-roster.json");
}

export async function seedDemoRegistry(db: Db, options: SeedOptions): Promise<SeedSummary> {
  const { count, seed } = options;
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`count must be a non-negative integer: ${count}`);
  if (!isRegistryEmpty(db)) throw new Error("The registry already holds merchants: clear it before seeding");
  const now = options.now.getTime();
  const batchSize = options.batchSize ?? 2000;
  const reference = loadCommuneReference(options.communesFile);
  const generator = new MerchantGenerator(reference, seed, now);
  const writer = createSeedWriter(db);
  const roster = new RosterCollector();
  const { abIds, sirens } = identities(seed, count);
  const stride = Math.max(1, Math.floor(count / PLANS.length));
  const totals = { products: 0, signals: 0, clusters: 0, nodes: 0 };

  try {
    for (let index = 0; index < count; index++) {
      const planIndex = index % stride === 0 ? index / stride : -1;
      const plan = planIndex >= 0 && planIndex < PLANS.length ? (PLANS[planIndex] as MerchantPlan) : null;
      const generated = generator.generate(index, abIds[index] as string, sirens[index] as string, plan);
      const record = generated.record;
      totals.products += record.products.length;
      totals.signals += record.signals.length;
      totals.clusters += record.clusters.length;
      for (const cluster of record.clusters) totals.nodes += cluster.nodes.length;
      roster.add(generated, index, seed);
      writer.add(record);
      if ((index + 1) % batchSize === 0) {
        writer.commit();
        options.onProgress?.({ phase: "merchants", done: index + 1, total: count });
      }
    }
    writer.finish();
  } catch (error) {
    writer.abort();
    throw error;
  }
  options.onProgress?.({ phase: "merchants", done: count, total: count });

  const searchIndex =
    options.searchIndex === undefined
      ? createEmbeddedSearchIndex(db, { now: () => new Date(now) })
      : options.searchIndex;
  if (searchIndex) {
    await searchIndex.rebuild((done, total) => options.onProgress?.({ phase: "search_index", done, total }));
  }

  const collected = roster.finish();
  const demoRoster: DemoRoster = {
    seed,
    count,
    generated_at: options.now.toISOString(),
    cases: collected.cases,
    geo_queries: collected.geoQueries,
  };
  const rosterFile =
    options.rosterFile !== undefined
      ? options.rosterFile
      : options.dataDir
        ? path.join(options.dataDir, "demo-roster.json")
        : defaultRosterFile(db);
  if (rosterFile) {
    mkdirSync(path.dirname(rosterFile), { recursive: true });
    writeFileSync(rosterFile, `${JSON.stringify(demoRoster, null, 2)}\n`);
  }
  return { merchants: count, ...totals, roster: demoRoster, rosterFile, searchIndexRebuilt: searchIndex !== null };
}
