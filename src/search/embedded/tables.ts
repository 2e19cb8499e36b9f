import { NORMALIZATION_VERSION } from "../normalize.ts";
import { VOCABULARY_FINGERPRINT } from "../vocabulary.ts";
import { FILTER_MARK } from "./filter-tokens.ts";

/*
 * The embedded index's own tables, derived from the store (merchants, territorial_proofs,
 * products, signals) and rebuildable from it at any time.
 *
 * They are deliberately NOT drizzle migrations: they hold no data of record, their layout follows
 * the normalisation rules and ranking needs of this one implementation (a Meilisearch deployment
 * has none of them), and changing them never needs a data migration: the index drops and rebuilds
 * them (see INDEX_FORMAT). Keeping them out of the migration history also keeps the store schema
 * check (store vs migrations) about the store alone.
 *
 * Tables: search_merchant_fts (one document per listed merchant: text columns, plus a `filters`
 * column of tag, NAF, grid-cell and opening tokens, see filter-tokens.ts and opening-filter.ts), search_geo (R*Tree of merchant
 * points, for searches by point alone), search_merchants (ranking data: trust, status, lat, lng),
 * search_details (what a returned merchant matched in),
 * search_meta (the format the tables were built with), search_terms (fts5vocab: the indexed words,
 * for the fuzzy fallback, see typos.ts).
 *
 * Ids: each listed merchant gets a small integer id (search_merchants.id), the rowid of its FTS
 * document and of its R*Tree entry. rebuild() numbers merchants most trusted first, which lets a
 * search bound its work on very common words (see textCandidates in index.ts).
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
export const INDEX_FORMAT = `embedded-13/norm-${NORMALIZATION_VERSION}/vocabulary-${VOCABULARY_FINGERPRINT}`;

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
];

/**
 * The index in a file of its own (index.ts createLocalSearchIndex) finds a SIRET or a SIREN here,
 * with no store tables beside it: each listed merchant's SIRET and its search_merchants id.
 */
export const CREATE_OWN_FILE_SIRETS: readonly string[] = [
  // Not unique: two listed merchants may share a SIRET (a listing registered again beside the old).
  `CREATE TABLE IF NOT EXISTS search_sirets (
    siret TEXT NOT NULL,
    id INTEGER NOT NULL,
    PRIMARY KEY (siret, id)
  ) WITHOUT ROWID`,
  "CREATE INDEX IF NOT EXISTS search_sirets_id ON search_sirets (id)",
];

export const DROP_STATEMENTS: readonly string[] = [
  "DROP TABLE IF EXISTS search_terms",
  "DROP TABLE IF EXISTS search_merchant_fts",
  "DROP TABLE IF EXISTS search_geo",
  "DROP TABLE IF EXISTS search_tags", // earlier formats
  "DROP TABLE IF EXISTS search_merchants",
  "DROP TABLE IF EXISTS search_details",
  "DROP TABLE IF EXISTS search_sirets",
  "DROP TABLE IF EXISTS search_meta",
];
