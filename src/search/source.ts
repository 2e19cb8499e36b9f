import { isSearchHit } from "../domain/merchants/lifecycle.ts";
import type { Db } from "../store/db.ts";
import { storeRevisionReader } from "../store/store-revision.ts";
import {
  buildMerchantDocument,
  LISTED_STATUSES,
  type MerchantDocument,
  type MerchantRow,
  type ProductRow,
  type SignalRow,
  trustOf,
} from "./embedded/documents.ts";
import type { Identifier } from "./query.ts";
import { MAX_SEARCH_DEPTH } from "./search-index.ts";

/*
 * What every search engine reads from the store (merchants with their place, products, signals)
 * and the documents it makes of them: one reader for the embedded index and Meilisearch, on
 * either engine of the store (the PostgreSQL twin: src/store/postgres/search-source.ts, the same
 * statements, rows and order).
 */

/** The columns a merchant is read with (MerchantRow), from `merchants m` and `territorial_proofs tp`. */
export const MERCHANT_COLUMNS_SQL = `m.ab_id, m.siret, m.business_name, m.legal_name, m.naf_code, m.naf_code_2025, m.sector, m.status, m.postal_code, m.city,
         m.description, m.closure, m.hours, m.hours_exceptions, tp.latitude, tp.longitude, tp.postal_code AS proof_postal_code, tp.city_normalized,
         tp.department_code`;
const MERCHANT_SELECT = `
  SELECT ${MERCHANT_COLUMNS_SQL}
  FROM merchants m LEFT JOIN territorial_proofs tp ON tp.ab_id = m.ab_id`;
export const PRODUCT_COLUMNS_SQL = "ab_id, product_id, name, description, tags, position";
export const SIGNAL_COLUMNS_SQL = "ab_id, key, status, value, expires_at";
const PRODUCT_SELECT = `SELECT ${PRODUCT_COLUMNS_SQL} FROM products`;
const SIGNAL_SELECT = `SELECT ${SIGNAL_COLUMNS_SQL} FROM signals`;
export const LISTED_SQL = [...LISTED_STATUSES].map((status) => `'${status.replaceAll("'", "''")}'`).join(", ");
/** The merchants that are search hits (isSearchHit), as a condition on `merchants`: listed and not closed. */
export const SEARCH_HIT_SQL = `status IN (${LISTED_SQL}) AND closure IS NULL`;
/**
 * A page of a full build (SearchSource.listedPage), one statement for both engines (named
 * parameters; PostgreSQL's numbered by src/store/postgres/transaction.ts): the merchants of a
 * listed status after an ab_id, in ab_id order, walked along the primary key. On SQLite the
 * status is written `+m.status`, which keeps the planner off the status index: with it, SQLite
 * reads every listed merchant and sorts them, for each page (measured: "USE TEMP B-TREE FOR
 * ORDER BY"). PostgreSQL needs the plain column (its statistics then tell it most merchants are
 * listed, and it walks merchants_pkey, filtering); its database orders text byte-wise (migrate.ts
 * refuses any other collation), so a plain ORDER BY ab_id is SQLite's order and the key's (with
 * COLLATE "C" written out it would sort every listed merchant for each page). Both plans are
 * checked by test/unit/search-postgres.test.ts. The closed merchants are read and dropped
 * (listedDocumentsOf): a page counts them as scanned, so the build's progress ends at
 * LISTED_COUNT_SQL's count.
 */
export function listedPageSql(engine: "sqlite" | "postgres"): string {
  return `${MERCHANT_SELECT}
  WHERE m.ab_id > @after AND ${engine === "sqlite" ? "+m.status" : "m.status"} IN (${LISTED_SQL})
  ORDER BY m.ab_id LIMIT @limit`;
}
/** The merchants of a listed status (a build's total): from the status index alone. */
export const LISTED_COUNT_SQL = `SELECT count(*) AS count FROM merchants WHERE status IN (${LISTED_SQL})`;
/**
 * The search hits a SIRET or a SIREN names (a range of SIRETs: the merchants_siret index), or an
 * ab_id: the identifier's answer from the store (identifier-index.ts), both engines. On SQLite the
 * status is written `+status` for the reason listedPageSql gives: with the plain column SQLite
 * reads every listed merchant through the status index, checking each one's SIRET (1 s a SIRET at
 * 5.17 million merchants, measured by bench:national-serving), where the SIRET range is a few rows.
 */
export function identifierSql(engine: "sqlite" | "postgres"): { siret: string; abId: string } {
  const listed = `${engine === "sqlite" ? "+status" : "status"} IN (${LISTED_SQL}) AND closure IS NULL`;
  return {
    siret: `SELECT ab_id FROM merchants WHERE siret >= @low AND siret <= @high AND ${listed}
    ORDER BY ab_id LIMIT ${MAX_SEARCH_DEPTH}`,
    abId: `SELECT ab_id FROM merchants WHERE ab_id = @abId AND ${listed}`,
  };
}

export type MerchantRows = { merchants: MerchantRow[]; products: Map<string, ProductRow[]> };
export type ListedDocuments = { documents: MerchantDocument[]; unlisted: string[] };
/**
 * A page of a full build: the documents of the search hits among `scanned` merchants of a listed
 * status, and the last ab_id read (null: none after the one asked, the build is through).
 */
export type ListedPage = { documents: MerchantDocument[]; scanned: number; last: string | null };
/** A merchant in the order of a full build: most trusted first (ties by ab_id). */
export type TrustEntry = { abId: string; trust: number };

/**
 * Every listed merchant of the store, read at one store revision: what an index kept apart from
 * the store (its own file, docs/several-machines.md) builds itself from, in one local transaction.
 */
export interface RegistrySnapshot {
  revision: number;
  order: TrustEntry[];
  merchants: Map<string, MerchantRow>;
  products: Map<string, ProductRow[]>;
}

export interface SearchSource {
  /** The store revision now (read it before the merchants of a build). */
  revision(): Promise<number>;
  /** The merchants (by ab_id), with their products (by position). */
  readMerchants(abIds: readonly string[]): Promise<MerchantRows>;
  readProducts(abIds: readonly string[]): Promise<Map<string, ProductRow[]>>;
  readSignals(abIds: readonly string[]): Promise<Map<string, SignalRow[]>>;
  /** Trust totals of every merchant that is a search hit (listed and in business), most trusted first (ties by ab_id). */
  listedByTrust(at: Date): Promise<TrustEntry[]>;
  /** The documents of these merchants that are search hits (listed, in business), and the ids that are not (or no longer exist). */
  listedDocuments(abIds: readonly string[], at: Date): Promise<ListedDocuments>;
  /** listedDocuments and the store revision they describe, in one read of the store. */
  listedDocumentsAt(abIds: readonly string[], at: Date): Promise<ListedDocuments & { revision: number }>;
  /** Every listed merchant, in one read of the store (RegistrySnapshot). */
  registrySnapshot(at: Date): Promise<RegistrySnapshot>;
  /**
   * The next page of a full build: up to `limit` merchants of a listed status after the ab_id
   * `after` ("" for the first), in ab_id order, read in one snapshot; their documents at `at`.
   */
  listedPage(after: string, limit: number, at: Date): Promise<ListedPage>;
  /** How many merchants have a listed status (a full build's total, closed ones included). */
  countListed(): Promise<number>;
  /** The search hits an identifier names (a SIRET, every SIRET of a SIREN, an ab_id), by ab_id, at most MAX_SEARCH_DEPTH. */
  identifierMatches(identifier: Identifier): Promise<string[]>;
}

/** identifierSql's statement for an identifier on an engine, and its named parameters. */
export function identifierStatement(
  identifier: Identifier,
  engine: "sqlite" | "postgres",
): { sql: string; params: Record<string, string> } {
  const statements = identifierSql(engine);
  if (identifier.kind === "ab_id") return { sql: statements.abId, params: { abId: identifier.value } };
  // Every SIRET of a SIREN: its nine digits and five more.
  const [low, high] =
    identifier.kind === "siren"
      ? [`${identifier.value}00000`, `${identifier.value}99999`]
      : [identifier.value, identifier.value];
  return { sql: statements.siret, params: { low, high } };
}

/**
 * The same reads, synchronous, over the SQLite file: what the embedded index reads inside its own
 * transactions when it lives in the store's file (a rebuild reads the store as it writes).
 */
export interface SynchronousSearchSource {
  revision(): number;
  readMerchants(abIds: readonly string[]): MerchantRows;
  readProducts(abIds: readonly string[]): Map<string, ProductRow[]>;
  readSignals(abIds: readonly string[]): Map<string, SignalRow[]>;
  listedByTrust(at: Date): TrustEntry[];
  listedDocuments(abIds: readonly string[], at: Date): ListedDocuments;
  listedPage(after: string, limit: number, at: Date): ListedPage;
  countListed(): number;
  identifierMatches(identifier: Identifier): string[];
  /** The store revision each of these merchants was last touched at (merchant_touches), for those touched. */
  touchesOf(abIds: readonly string[]): Map<string, number>;
}

export function createSynchronousSearchSource(db: Db): SynchronousSearchSource {
  const sqlite = db.$client;
  const statements = new Map<string, ReturnType<typeof sqlite.prepare>>();
  const prepare = (source: string) => {
    let statement = statements.get(source);
    if (!statement) {
      statement = sqlite.prepare(source);
      statements.set(source, statement);
    }
    return statement;
  };

  function readProducts(abIds: readonly string[]): Map<string, ProductRow[]> {
    const rows = prepare(
      `${PRODUCT_SELECT} WHERE ab_id IN (SELECT value FROM json_each(?)) ORDER BY ab_id, position, product_id`,
    ).all(JSON.stringify(abIds)) as ProductRow[];
    return groupBy(rows);
  }

  function readMerchants(abIds: readonly string[]): MerchantRows {
    const rows = prepare(`${MERCHANT_SELECT} WHERE m.ab_id IN (SELECT value FROM json_each(?)) ORDER BY m.ab_id`).all(
      JSON.stringify(abIds),
    ) as MerchantRow[];
    return { merchants: rows.map(withValidCoordinates), products: readProducts(abIds) };
  }

  function readSignals(abIds: readonly string[]): Map<string, SignalRow[]> {
    const rows = prepare(`${SIGNAL_SELECT} WHERE ab_id IN (SELECT value FROM json_each(?)) ORDER BY ab_id, key`).all(
      JSON.stringify(abIds),
    ) as SignalRow[];
    return groupBy(rows);
  }

  function listedByTrust(at: Date): TrustEntry[] {
    const rows = sqlite.prepare(`SELECT ab_id, sector FROM merchants WHERE ${SEARCH_HIT_SQL}`).all() as {
      ab_id: string;
      sector: string;
    }[];
    // Raw rows (arrays): this walks every signal of the registry.
    const signals = sqlite.prepare(`${SIGNAL_SELECT} ORDER BY ab_id`).raw().iterate() as IterableIterator<
      [string, string, string, string | null, string | null]
    >;
    return trustOrder(rows, signals, at);
  }

  function listedPage(after: string, limit: number, at: Date): ListedPage {
    const rows = prepare(listedPageSql("sqlite")).all({ after, limit }) as MerchantRow[];
    const abIds = rows.map((row) => row.ab_id);
    const merchants = { merchants: rows.map(withValidCoordinates), products: readProducts(abIds) };
    const { documents } = listedDocumentsOf(abIds, merchants, readSignals(abIds), at);
    return { documents, scanned: rows.length, last: abIds.at(-1) ?? null };
  }

  function identifierMatches(identifier: Identifier): string[] {
    const { sql, params } = identifierStatement(identifier, "sqlite");
    return prepare(sql).pluck().all(params) as string[];
  }

  function touchesOf(abIds: readonly string[]): Map<string, number> {
    const rows = prepare(
      "SELECT ab_id, touch FROM merchant_touches WHERE ab_id IN (SELECT value FROM json_each(?))",
    ).all(JSON.stringify(abIds)) as { ab_id: string; touch: number }[];
    return new Map(rows.map((row) => [row.ab_id, row.touch]));
  }

  return {
    revision: storeRevisionReader(db),
    readMerchants,
    readProducts,
    readSignals,
    listedByTrust,
    listedDocuments: (abIds, at) => listedDocumentsOf(abIds, readMerchants(abIds), readSignals(abIds), at),
    // One snapshot for the page's merchants, products and signals.
    listedPage: (after, limit, at) => inOneRead(sqlite, () => listedPage(after, limit, at)),
    countListed: () => Number(prepare(LISTED_COUNT_SQL).pluck().get() ?? 0),
    identifierMatches,
    touchesOf,
  };
}

/** The SQLite store's SearchSource: the synchronous reads, each in an async method (one await for the caller). */
export function createSearchSource(db: Db): SearchSource {
  const reads = createSynchronousSearchSource(db);
  return {
    revision: async () => reads.revision(),
    readMerchants: async (abIds) => reads.readMerchants(abIds),
    readProducts: async (abIds) => reads.readProducts(abIds),
    readSignals: async (abIds) => reads.readSignals(abIds),
    listedByTrust: async (at) => reads.listedByTrust(at),
    listedDocuments: async (abIds, at) => reads.listedDocuments(abIds, at),
    listedDocumentsAt: async (abIds, at) =>
      inOneRead(db.$client, () => ({ revision: reads.revision(), ...reads.listedDocuments(abIds, at) })),
    registrySnapshot: async (at) =>
      inOneRead(db.$client, () => {
        const revision = reads.revision();
        const order = reads.listedByTrust(at);
        const { merchants, products } = reads.readMerchants(order.map((entry) => entry.abId));
        return { revision, order, merchants: new Map(merchants.map((row) => [row.ab_id, row])), products };
      }),
    listedPage: async (after, limit, at) => reads.listedPage(after, limit, at),
    countListed: async () => reads.countListed(),
    identifierMatches: async (identifier) => reads.identifierMatches(identifier),
  };
}

/** A deferred transaction: its reads see one snapshot of the file (WAL), whatever other processes commit meanwhile. */
function inOneRead<T>(sqlite: Db["$client"], read: () => T): T {
  return sqlite.transaction(read)();
}

/**
 * Trust totals of the listed merchants (ab_id, sector) from every signal of the registry read in
 * ab_id order (rows as arrays of SIGNAL_COLUMNS_SQL), most trusted first, ties by ab_id.
 */
export function trustOrder(
  listedRows: readonly { ab_id: string; sector: string }[],
  signalsByAbId: Iterable<[string, string, string, string | null, string | null]>,
  at: Date,
): TrustEntry[] {
  const listed = new Map<string, { sector: string; trust: number }>();
  for (const row of listedRows) listed.set(row.ab_id, { sector: row.sector, trust: 0 });
  let current: string | undefined;
  let group: SignalRow[] = [];
  const flush = (): void => {
    const entry = current === undefined ? undefined : listed.get(current);
    if (entry) entry.trust = trustOf(group, entry.sector, at);
    group = [];
  };
  for (const [abId, key, status, value, expiresAt] of signalsByAbId) {
    if (abId !== current) {
      flush();
      current = abId;
    }
    group.push({ ab_id: abId, key, status, value, expires_at: expiresAt });
  }
  flush();
  return [...listed.entries()].map(([abId, entry]) => ({ abId, trust: entry.trust })).sort(byTrust);
}

/** The order of a full build: most trusted first, ties by ab_id. */
export function byTrust(a: TrustEntry, b: TrustEntry): number {
  return b.trust - a.trust || (a.abId < b.abId ? -1 : 1);
}

/** The documents of the listed merchants among those read, and the asked ids that are not listed. */
export function listedDocumentsOf(
  abIds: readonly string[],
  { merchants, products }: MerchantRows,
  signals: Map<string, SignalRow[]>,
  at: Date,
): ListedDocuments {
  const documents: MerchantDocument[] = [];
  const listed = new Set<string>();
  for (const merchant of merchants) {
    if (!isSearchHit(merchant.status, merchant.closure)) continue;
    listed.add(merchant.ab_id);
    const trust = trustOf(signals.get(merchant.ab_id) ?? [], merchant.sector, at);
    documents.push(buildMerchantDocument(merchant, products.get(merchant.ab_id) ?? [], trust));
  }
  return { documents, unlisted: abIds.filter((abId) => !listed.has(abId)) };
}

/** Drops coordinates that cannot be placed on a map (missing, not finite, out of range). */
export function withValidCoordinates(row: MerchantRow): MerchantRow {
  const { latitude: lat, longitude: lng } = row;
  const valid =
    typeof lat === "number" &&
    typeof lng === "number" &&
    Number.isFinite(lat) &&
    Number.isFinite(lng) &&
    Math.abs(lat) <= 90 &&
    Math.abs(lng) <= 180;
  return valid ? row : { ...row, latitude: null, longitude: null };
}

export function groupBy<Row extends { ab_id: string }>(rows: readonly Row[]): Map<string, Row[]> {
  const grouped = new Map<string, Row[]>();
  for (const row of rows) {
    const list = grouped.get(row.ab_id);
    if (list) list.push(row);
    else grouped.set(row.ab_id, [row]);
  }
  return grouped;
}
