import { COMPONENT_MAX, trustComponents } from "../../domain/trust/signal-catalog.ts";
import { NORMALIZATION_VERSION } from "../normalize.ts";
import { VOCABULARY_FINGERPRINT } from "../vocabulary.ts";
import { FILTER_MARK } from "./filter-tokens.ts";

/*
 * The embedded index's own tables, derived from the store (merchants, territorial_proofs,
 * products, signals) and rebuildable from it at any time, in files of their own under
 * DATA_DIR/search-index/ (index.ts): one file a generation, with these tables, and a catalog
 * naming the generation that answers.
 *
 * They are deliberately NOT drizzle migrations: they hold no data of record, their layout follows
 * the normalisation rules and ranking needs of this one implementation (a Meilisearch deployment
 * has none of them), and changing them never needs a data migration: a new generation is built
 * (see INDEX_FORMAT).
 *
 * Tables: search_merchant_fts (one document per listed merchant: text columns, plus a `filters`
 * column of tag, NAF, grid-cell and opening tokens, see filter-tokens.ts and opening-filter.ts), search_geo (R*Tree of merchant
 * points, for searches by point alone), search_merchants (ranking data: trust, status, lat, lng),
 * search_details (what a returned merchant matched in), search_sirets (each merchant's SIRET),
 * search_meta (the format the tables were built with, the cursor, a build's progress), search_terms (fts5vocab: the indexed words,
 * for the fuzzy fallback, see typos.ts).
 *
 * Ids: each listed merchant gets an integer id (search_merchants.id), the rowid of its FTS
 * document and of its R*Tree entry, in its trust band (idInBand): the most trusted merchants have
 * the smallest ids whatever order they were built or refreshed in, which lets a search bound its
 * work on very common words (see textCandidates in generation.ts), and a generation still being
 * built answer from its best merchants first.
 *
 * There is no product-level FTS table: products are matched against the query, with the same
 * normalisation, only for the few merchants a search returns (see product-match.ts), from their
 * words stored normalised in search_merchants.products (normalising a returned merchant's
 * catalogue at search time cost about 0.6 ms of a search's first 10 hits at 100,000). A product
 * FTS table was measured: one lookup per returned merchant, restricted by rowid range, still walks
 * the whole doclist of a common word (about 1 ms per merchant at 5,000 merchants, growing with the
 * registry), where matching a merchant's handful of products in memory takes microseconds.
 */

/** Bump when the layout or the content of the derived tables changes (an edit of the vocabulary moves it too). */
export const INDEX_FORMAT = `embedded-14/norm-${NORMALIZATION_VERSION}/vocabulary-${VOCABULARY_FINGERPRINT}`;

/** The merchant document's columns (text relevance: ranking.ts textScore). */
export const MERCHANT_COLUMNS = ["name", "trade", "products", "tags", "place", "about", "filters"] as const;
/** The columns user text is matched against (all but `filters`, see filter-tokens.ts). */
export const TEXT_COLUMNS = MERCHANT_COLUMNS.filter((column) => column !== "filters");

/**
 * Prefix indexes of 2, 3 and 4 characters: FTS5 answers a prefix of exactly one of these lengths
 * from its own index; a longer prefix makes it merge the doclists of every word it starts, for
 * the whole table (see index.ts spelledOut).
 */
export const LONGEST_PREFIX_INDEX = 4;
/** Underscores stay inside tokens: the mark of filter tokens, never in normalised text (filter-tokens.ts). */
const TOKENIZER = `tokenize = "unicode61 remove_diacritics 2 tokenchars '${FILTER_MARK}'", prefix = '2 3 ${LONGEST_PREFIX_INDEX}'`;

/**
 * A contentless FTS5 table (content='') with contentless_delete=1: documents are only ever matched
 * and ranked, never read back, so storing their text twice would only cost space and build time.
 */
export const CREATE_STATEMENTS: readonly string[] = [
  "CREATE TABLE IF NOT EXISTS search_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
  `CREATE TABLE IF NOT EXISTS search_merchants (
    id INTEGER PRIMARY KEY,
    ab_id TEXT NOT NULL UNIQUE,
    status TEXT NOT NULL,
    trust INTEGER NOT NULL,
    lat REAL,
    lng REAL,
    -- What text relevance is scored from (ranking.ts textScore): the trade by its NAF code, and the
    -- normalised name, place and tags.
    naf_code TEXT NOT NULL,
    naf_code_2025 TEXT,
    name TEXT NOT NULL,
    place TEXT NOT NULL,
    tags TEXT NOT NULL,
    -- The opening schedule (opening-filter.ts storedSchedule: JSON, null when unknown): what the
    -- opening filters check exactly on the matches their tokens keep.
    opening TEXT
  )`,
  // What a returned merchant reports it matched in (index.ts hitDetails): the normalised
  // description, and the products with their normalised words (product-match.ts storedCatalogue),
  // as of the store revision the document was built at. A table of its own: search_merchants is
  // read for up to 200 matches a search and stays small (22 MB at 100,000 merchants, this one 110).
  `CREATE TABLE IF NOT EXISTS search_details (
    id INTEGER PRIMARY KEY,
    about TEXT NOT NULL,
    products TEXT NOT NULL,
    revision INTEGER NOT NULL
  )`,
  `CREATE VIRTUAL TABLE IF NOT EXISTS search_merchant_fts USING fts5(
    ${MERCHANT_COLUMNS.join(", ")},
    content = '', contentless_delete = 1, ${TOKENIZER}
  )`,
  // The indexed words and how many documents hold each: the fuzzy fallback's dictionary.
  "CREATE VIRTUAL TABLE IF NOT EXISTS search_terms USING fts5vocab(search_merchant_fts, row)",
  // +trust: an auxiliary column, so a search by point alone never leaves the R*Tree.
  "CREATE VIRTUAL TABLE IF NOT EXISTS search_geo USING rtree(id, min_lat, max_lat, min_lng, max_lng, +trust)",
  // A SIRET or a SIREN found without the store's tables (the identifier's answer from the store
  // itself comes first: identifier-index.ts). Not unique: two listed merchants may share a SIRET
  // (a listing registered again beside the old).
  `CREATE TABLE IF NOT EXISTS search_sirets (
    siret TEXT NOT NULL,
    id INTEGER NOT NULL,
    PRIMARY KEY (siret, id)
  ) WITHOUT ROWID`,
  "CREATE INDEX IF NOT EXISTS search_sirets_id ON search_sirets (id)",
];

/** The highest trust total (four components of COMPONENT_MAX points): the first band. */
export const MAX_TRUST = COMPONENT_MAX * trustComponents.length;
/** Ids a band holds: far more than merchants a generation numbers in its life. */
const BAND_SIZE = 2 ** 32;

/**
 * A merchant's id: its trust band (the most trusted first), then the generation's sequence
 * (tables search_meta `sequence`: build order, then refresh order). At most 101 bands of 2^32:
 * below 2^39, exact as a JavaScript number and a SQLite integer.
 */
export function idInBand(trust: number, sequence: number): number {
  const band = MAX_TRUST - Math.min(MAX_TRUST, Math.max(0, Math.round(trust)));
  return band * BAND_SIZE + (sequence % BAND_SIZE);
}

/** Whether an id is in the band of this trust total (a refresh keeps the id then). */
export function sameBand(id: number, trust: number): boolean {
  return Math.floor(id / BAND_SIZE) === Math.floor(idInBand(trust, 0) / BAND_SIZE);
}

/** The old layout's tables in the SQLite store's own file (before DATA_DIR/search-index/): dropped in rounds (index.ts). */
export const STORE_FILE_TABLES = [
  "search_terms",
  "search_merchant_fts",
  "search_geo",
  "search_tags",
  "search_merchants",
  "search_details",
  "search_sirets",
  "search_meta",
] as const;

/**
 * The catalog (DATA_DIR/search-index/catalog.db): the generations, which one answers
 * (`current`, at most one), the one being built and how far (`building`), and the ones left to
 * delete (`retired`). A generation's own file holds its build's progress too (search_meta
 * build_after, build_done), written with its pages: the catalog's copy is what health reads.
 */
export const CATALOG_STATEMENTS: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS generations (
    -- AUTOINCREMENT: a number, and so a file name, is never given twice.
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    format TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('building', 'current', 'retired')),
    -- The store revision read before the build's first page: its cursor once whole.
    from_revision INTEGER NOT NULL,
    after_key TEXT NOT NULL DEFAULT '',
    done INTEGER NOT NULL DEFAULT 0,
    total INTEGER NOT NULL DEFAULT 0,
    started_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`,
];
