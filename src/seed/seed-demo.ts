/**
 * Seeds a deterministic demo registry through the imports (seedDemoRegistry below): the same
 * `count`, `seed` and `now` always write the same rows. The roster of test cases
 * (`demo-roster.json`) is collected as the merchants are generated and written last, after the
 * search index rebuild.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { evaluateCapabilities } from "../domain/capabilities.ts";
import { changeMerchantStatus } from "../domain/merchants/change-merchant-status.ts";
import { importDeclarations } from "../domain/merchants/import-declarations.ts";
import type { ImportReport } from "../domain/merchants/import-json-lines.ts";
import { importObservations } from "../domain/merchants/import-observations.ts";
import { decideInRegistry, type MerchantRegistryStore } from "../domain/merchants/merchant-registry.ts";
import { reviewMerchantDescription } from "../domain/merchants/review-merchant-description.ts";
import { updateMerchant } from "../domain/merchants/update-merchant.ts";
import { makeSiren } from "../domain/siret.ts";
import { importBodaccFile } from "../import/bodacc/import-bodacc.ts";
import { csvLine } from "../import/csv.ts";
import { numberedLines } from "../import/numbered-lines.ts";
import { importSireneStock } from "../import/sirene/import-sirene.ts";
import { GEOCODED_ESTABLISHMENT_HEADER, LEGAL_UNIT_HEADER } from "../import/sirene/layout.ts";
import { createEmbeddedSearchIndex } from "../search/embedded/index.ts";
import type { SearchIndex } from "../search/search-index.ts";
import type { Db } from "../store/db.ts";
import { createMerchantRegistryRepository } from "../store/merchant-registry-repository.ts";
import { createRegistryMaintenance, type RegistryMaintenance } from "../store/registry-maintenance.ts";
import { createCommuneLookup, loadCommuneReference } from "./communes.ts";
import { type GeneratedMerchant, MerchantGenerator, type MerchantPlan } from "./generate.ts";
import {
  bodaccRecordsOf,
  type DemoStep,
  declarationOf,
  establishmentRow,
  legalUnitRow,
  lifecycleStepsOf,
  observationOf,
} from "./official-files.ts";
import { Rng } from "./prng.ts";

export interface SeedProgress {
  phase: "files" | "sirene" | "declarations" | "observations" | "lifecycle" | "search_index";
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
  /** Keeps the demo's files (DATA_DIR/demo/) after they were imported, for a look at them. */
  keepFiles?: boolean;
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

function defaultDataDir(db: Db): string | null {
  const file = db.$client.name;
  if (!file || file === ":memory:") return null;
  return path.dirname(file);
}

/** The demo's files, as the official sources and the platform publish them, in DATA_DIR/demo/. */
interface DemoFiles {
  establishments: string;
  legalUnits: string;
  declarations: string;
  observations: string;
  bodacc: string;
}

/** Lines appended a batch at a time (a 100,000-merchant demo writes some hundreds of MB). */
class LineFile {
  private pending: string[] = [];
  private readonly file: string;
  private readonly eol: string;
  constructor(file: string, header: string | null, eol: string) {
    this.file = file;
    this.eol = eol;
    writeFileSync(file, header === null ? "" : `${header}${eol}`);
  }
  add(line: string): void {
    this.pending.push(line);
    if (this.pending.length >= 500) this.flush();
  }
  flush(): void {
    if (this.pending.length === 0) return;
    appendFileSync(this.file, `${this.pending.join(this.eol)}${this.eol}`);
    this.pending = [];
  }
}

const IMPORT_ACTOR = "import:demo";
const OPERATOR_ACTOR = "operator:demo";
const STEPS_PER_TRANSACTION = 250;

/**
 * Seeds the demo through the same door as real merchants (docs/merchant-lifecycle.md): the
 * generator writes the official files (SIRENE's establishments and legal units, BODACC's
 * announcements), the merchants' declarations and the platform's observations, then the imports
 * read them and the lifecycle commands take each merchant to its planned status. The ab_ids and
 * every other id are drawn from the seed, and `now` is the clock of every step, so the same
 * count, seed and now always give the same rows.
 */
export function seedDemoRegistry(db: Db, options: SeedOptions): Promise<SeedSummary> {
  return seedDemoRegistryInto(
    { registry: createMerchantRegistryRepository(db), maintenance: createRegistryMaintenance(db), sqlite: db },
    options,
  );
}

/** Where the demo is seeded: the registry of either engine, and the SQLite file when that is the store. */
export interface DemoTarget {
  registry: MerchantRegistryStore;
  maintenance: RegistryMaintenance;
  /** The embedded store (optimized after the seed; the embedded search index lives in it). */
  sqlite: Db | null;
}

/** The same, into the registry of either engine (PostgreSQL: no embedded search index unless one is given). */
export async function seedDemoRegistryInto(target: DemoTarget, options: SeedOptions): Promise<SeedSummary> {
  const { count, seed } = options;
  const db = target.sqlite;
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`count must be a non-negative integer: ${count}`);
  if (!(await target.maintenance.isEmpty())) {
    throw new Error("The registry already holds merchants: clear it before seeding");
  }
  const now = options.now.getTime();
  const reference = loadCommuneReference(options.communesFile);
  const generator = new MerchantGenerator(reference, seed, now);
  const roster = new RosterCollector();
  const { abIds, sirens } = identities(seed, count);
  const stride = Math.max(1, Math.floor(count / PLANS.length));
  const dataDir = options.dataDir ?? (db ? defaultDataDir(db) : null);
  const workDir = dataDir ? path.join(dataDir, "demo") : mkdtempSync(path.join(os.tmpdir(), "abeille-demo-"));
  mkdirSync(workDir, { recursive: true });
  const files: DemoFiles = {
    establishments: path.join(workDir, "StockEtablissement_geo.csv"),
    legalUnits: path.join(workDir, "StockUniteLegale_utf8.csv"),
    declarations: path.join(workDir, "declarations.ndjson"),
    observations: path.join(workDir, "observations.ndjson"),
    bodacc: path.join(workDir, "annonces-commerciales.jsonl"),
  };

  // 1. The files, written as the merchants are generated (nothing of a merchant is kept but its steps).
  const clock = new Date(now);
  const establishments = new LineFile(files.establishments, GEOCODED_ESTABLISHMENT_HEADER.join(","), "\r\n");
  const legalUnits = new LineFile(files.legalUnits, LEGAL_UNIT_HEADER.join(","), "\r\n");
  const declarations = new LineFile(files.declarations, null, "\n");
  const observations = new LineFile(files.observations, null, "\n");
  const bodacc = new LineFile(files.bodacc, null, "\n");
  const steps: DemoStep[][] = [];
  for (let index = 0; index < count; index++) {
    const planIndex = index % stride === 0 ? index / stride : -1;
    const plan = planIndex >= 0 && planIndex < PLANS.length ? (PLANS[planIndex] as MerchantPlan) : null;
    const generated = generator.generate(index, abIds[index] as string, sirens[index] as string, plan);
    const record = generated.record;
    roster.add(generated, index, seed);
    establishments.add(csvLine(GEOCODED_ESTABLISHMENT_HEADER, establishmentRow(record, clock)));
    legalUnits.add(csvLine(LEGAL_UNIT_HEADER, legalUnitRow(record, clock)));
    const unreviewed = record.merchant.descriptionLlmUnreviewed && record.merchant.description !== null;
    declarations.add(JSON.stringify(declarationOf(record, { withoutDescription: unreviewed })));
    observations.add(JSON.stringify(observationOf(record, clock)));
    for (const announcement of bodaccRecordsOf(record, clock)) bodacc.add(JSON.stringify(announcement));
    steps.push(lifecycleStepsOf(record));
    if ((index + 1) % 1000 === 0) options.onProgress?.({ phase: "files", done: index + 1, total: count });
  }
  for (const file of [establishments, legalUnits, declarations, observations, bodacc]) file.flush();
  options.onProgress?.({ phase: "files", done: count, total: count });

  // 2. The imports and the operator's steps, with the demo's ids and clock.
  let nextAbId = 0;
  // The import applies the establishments in SIRET order (stock-reader.ts), each demo merchant a
  // company of its own: the ids are drawn in the order of their SIRENs.
  const creationOrder = sirens
    .map((_, index) => index)
    .sort((a, b) => ((sirens[a] as string) < (sirens[b] as string) ? -1 : 1));
  const ids = Rng.create(seed, -2);
  const deps = {
    registry: target.registry,
    communes: createCommuneLookup(reference),
    now: () => clock,
    randomId: () => abIds[creationOrder[nextAbId++] as number] as string,
    newId: () => ids.uuid(),
  };
  const checkpoints = new Map<string, number>();
  const memory = {
    read: async (key: string) => checkpoints.get(key) ?? 0,
    write: async (key: string, line: number) => void checkpoints.set(key, line),
  };
  const sirene = await importSireneStock(
    deps,
    { establishments: files.establishments, legalUnits: files.legalUnits },
    IMPORT_ACTOR,
    { onProgress: (progress) => options.onProgress?.({ phase: "sirene", done: progress.read, total: count }) },
  );
  if (sirene.created !== count || nextAbId !== count) {
    throw new Error(`The demo's SIRENE files brought back ${sirene.created} of its ${count} merchants`);
  }
  const lineImport = (file: string, phase: SeedProgress["phase"]) => ({
    importKey: file,
    actor: IMPORT_ACTOR,
    onProgress: (report: ImportReport) => {
      if (report.read % 1000 === 0) options.onProgress?.({ phase, done: report.read, total: count });
    },
  });
  const declared = await importDeclarations(
    { ...deps, checkpoints: memory },
    numberedLines(files.declarations),
    lineImport(files.declarations, "declarations"),
  );
  const observed = await importObservations(
    { ...deps, checkpoints: memory },
    numberedLines(files.observations),
    lineImport(files.observations, "observations"),
  );
  for (const [what, report] of [
    ["declarations", declared],
    ["observations", observed],
  ] as const) {
    const first = report.rejected[0];
    if (first) {
      throw new Error(
        `The demo's ${what} were refused at line ${first.line}: ${first.issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ")}`,
      );
    }
  }
  for (let start = 0; start < count; start += STEPS_PER_TRANSACTION) {
    const end = Math.min(count, start + STEPS_PER_TRANSACTION);
    await decideInRegistry(deps, { abIds: abIds.slice(start, end) }, (decision) => {
      for (let index = start; index < end; index++) {
        const abId = abIds[index] as string;
        for (const step of steps[index] ?? []) {
          if (step.kind === "review") reviewMerchantDescription(decision, abId, OPERATOR_ACTOR);
          else if (step.kind === "status") {
            changeMerchantStatus(decision, abId, { status: step.status, reason: step.reason }, OPERATOR_ACTOR);
          } else updateMerchant(decision, abId, step.update, OPERATOR_ACTOR);
        }
      }
    });
    options.onProgress?.({ phase: "lifecycle", done: Math.min(count, start + STEPS_PER_TRANSACTION), total: count });
  }
  const announcements = await importBodaccFile(deps, files.bodacc, IMPORT_ACTOR);
  if (announcements.rejected.length > 0) {
    throw new Error(`The demo's BODACC announcements were refused: ${announcements.rejected[0]?.error}`);
  }
  db?.$client.pragma("optimize");
  db?.$client.pragma("wal_checkpoint(TRUNCATE)");
  if (!options.keepFiles) rmSync(workDir, { recursive: true, force: true });

  const ownIndex =
    options.searchIndex === undefined && db ? createEmbeddedSearchIndex(db, { now: () => new Date(now) }) : null;
  const searchIndex = options.searchIndex === undefined ? ownIndex : options.searchIndex;
  if (searchIndex) {
    await searchIndex.rebuild((done, total) => options.onProgress?.({ phase: "search_index", done, total }));
  }
  ownIndex?.close();

  const collected = roster.finish();
  const demoRoster: DemoRoster = {
    seed,
    count,
    generated_at: options.now.toISOString(),
    cases: collected.cases,
    geo_queries: collected.geoQueries,
  };
  const rosterFile =
    options.rosterFile !== undefined ? options.rosterFile : dataDir ? path.join(dataDir, "demo-roster.json") : null;
  if (rosterFile) {
    mkdirSync(path.dirname(rosterFile), { recursive: true });
    writeFileSync(rosterFile, `${JSON.stringify(demoRoster, null, 2)}\n`);
  }
  const rows = await target.maintenance.count();
  return {
    merchants: rows.merchants,
    products: rows.products,
    signals: rows.signals,
    clusters: rows.clusters,
    nodes: rows.nodes,
    roster: demoRoster,
    rosterFile,
    searchIndexRebuilt: searchIndex !== null,
  };
}
