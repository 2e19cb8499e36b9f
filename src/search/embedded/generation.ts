import { createRevisionCache } from "../../domain/revision-cache.ts";
import type { Db } from "../../store/db.ts";
import type { QueryTerm } from "../normalize.ts";
import { checksKey, openingCheck, passesOpening, scheduleFromStore } from "../opening-filter.ts";
import { type Identifier, type NormalizedQuery, normalizeSearchQuery } from "../query.ts";
import {
  MATCHED_FIELDS,
  MAX_SEARCH_DEPTH,
  type MatchedField,
  type SearchHit,
  type SearchPage,
  type SearchQuery,
} from "../search-index.ts";
import type { ListedDocuments, MerchantRows } from "../source.ts";
import { MIN_TYPO_WORD_LENGTH, typoProbes, withinOneEdit } from "../typos.ts";
import { buildMerchantDocument, type MerchantDocument, tradeText } from "./documents.ts";
import { coveringCells, nafToken, tagToken } from "./filter-tokens.ts";
import { catalogueFromStored, matchProducts, type PreparedProduct, storedCatalogue } from "./product-match.ts";
import {
  blendedScore,
  blendSql,
  boundingBox,
  haversineKm,
  haversineSql,
  matchExpression,
  NEAREST_RINGS_KM,
  nearestScore,
  occursIn,
  roundKm,
  textScore,
  type Weights,
  weightsFor,
} from "./ranking.ts";
import { CREATE_STATEMENTS, INDEX_FORMAT, idInBand, LONGEST_PREFIX_INDEX, sameBand } from "./tables.ts";

/*
 * One generation of the embedded index: SQLite FTS5 (text), R*Tree (geo) and a few plain
 * tables, all derived from the store (see tables.ts), in a file of its own
 * (DATA_DIR/search-index/, generations.ts says which file answers and how one is built).
 * Synchronous, like better-sqlite3: every write here runs inside a transaction the caller opened
 * (generations.ts, under the catalog's lock), with documents read from the store before.
 *
 * With the SQLite store beside it (`beside`: the store's file, read synchronously), a returned
 * merchant touched since the generation applied it is described from the store; without (a store
 * elsewhere, PostgreSQL), a result describes the merchant as the index last applied it.
 */

type Sqlite = Db["$client"];
/** Statements take positional or named parameters; rows are typed where they are read. */
const prepareStatement = (sqlite: Sqlite, source: string) => sqlite.prepare<unknown[], unknown>(source);
type Statement = ReturnType<typeof prepareStatement>;

export interface EmbeddedSearchIndexOptions {
  /** Clock used to compute trust totals (signals expire) when documents are built. */
  now?: () => Date;
  /** How many text matches, best bm25 first, are re-ranked with trust and distance (default 80). */
  candidatePool?: number;
  /** At most this many text matches, the most trusted, get a bm25 score (default 200). */
  maxRankedMatches?: number;
}

/** What a generation reads synchronously from the SQLite store beside it (source.ts SynchronousSearchSource). */
export interface StoreBeside {
  revision(): number;
  touchesOf(abIds: readonly string[]): Map<string, number>;
  readMerchants(abIds: readonly string[]): MerchantRows;
}

/** One generation file, opened: its searches, and its writes (each inside the caller's write transaction). */
export interface Generation {
  search(query: SearchQuery): SearchPage;
  /** Writes a page of a full build: each merchant's id in its trust band (tables.ts idInBand), numbered on from the last. */
  writePage(documents: readonly MerchantDocument[]): void;
  /**
   * One step of merging the FTS index's segments into one b-tree (FTS5 'merge' with a negative
   * count: the same end as 'optimize', a bounded amount of work a step): false once there is
   * nothing left to merge.
   */
  mergeStep(pages: number): boolean;
  /** Marks the generation whole (its format) and sets its cursor. */
  finish(cursor: number): void;
  /** Writes documents read from the store at `revision` (and removes the unlisted). */
  writeListed(listed: ListedAt): void;
  readCursor(): number | null;
  setCursor(revision: number): void;
  /** A value of the generation's own meta table (the build's progress: build_after, build_done). */
  readMeta(key: string): string | null;
  writeMeta(key: string, value: string): void;
  /** How many merchants it holds. */
  count(): number;
}

export type ListedAt = ListedDocuments & { revision: number };

// bm25 costs 1-2 µs a row and a common trade word matches thousands of merchants. Measured at
// 100,000 merchants on the bench's trade words: 1,000/400 cost 3.2 ms a query, 200/80 0.9 ms,
// with 9.3 of the top 10 shared between the two (300/120 shared as many, at 1.0 ms).
const DEFAULT_POOL = 80;
const DEFAULT_MAX_RANKED = 200;
/** Extra rows a search by point alone reads, for R*Tree rounding at the radius (see nearCandidates). */
const NEAR_SLACK = 8;

interface CandidateRow {
  id: number;
  abId: string;
  trust: number;
  lat: number | null;
  lng: number | null;
}

interface Candidate {
  id: number;
  abId: string;
  score: number;
  distanceKm: number | null;
}

/** What a returned merchant's matched fields and products are read from: normalised words joined by spaces. */
interface HitDetail {
  products: PreparedProduct[];
  fields: Record<"name" | "trade" | "place" | "description" | "tag", string>;
}

/** Two-letter beginnings whose indexed words the fuzzy fallback keeps (per index revision). */
const PROBE_CACHE_ENTRIES = 200;
/** Alternatives kept for a misspelt word, the most frequent first. */
const MAX_ALTERNATIVES = 8;
/** Longer words a prefix term is spelled out as, at most (see spelledOut); beyond, FTS5 expands it. */
const MAX_SPELLED_OUT = 16;
/** Prefixes whose longer indexed words are kept between searches (see spelledOut). */
const LONGER_WORDS_ENTRIES = 2_000;
/**
 * Returned merchants whose details are kept between searches (see hitDetails): several KB each
 * (their products' words); a query asked again is answered from the kept pages anyway.
 */
const DETAIL_CACHE_ENTRIES = 2_000;
/** Pages of hits kept between searches (see search): ten small hits each, a few KB. */
const PAGE_CACHE_ENTRIES = 2_000;
export const EMPTY_PAGE: SearchPage = { hits: [], estimatedTotal: 0 };

/** Creates a new generation's tables in an empty file. */
export function createGenerationTables(sqlite: Sqlite): void {
  for (const statement of CREATE_STATEMENTS) sqlite.exec(statement);
}

export function openGeneration(
  sqlite: Sqlite,
  beside: StoreBeside | null,
  options: EmbeddedSearchIndexOptions = {},
): Generation {
  const pool = Math.max(1, Math.floor(options.candidatePool ?? DEFAULT_POOL));
  const maxRanked = Math.max(pool, Math.floor(options.maxRankedMatches ?? DEFAULT_MAX_RANKED));
  const statements = new Map<string, Statement>();
  const probeCache = createRevisionCache<[string, number][]>({ maxEntries: PROBE_CACHE_ENTRIES });
  const longerWords = createRevisionCache<string[]>({ maxEntries: LONGER_WORDS_ENTRIES });
  // Without the store beside it, what a page describes moves with the index alone (indexRevision).
  const storeRevision = beside ? beside.revision : () => indexRevision();
  const detailCache = createRevisionCache<HitDetail>({ maxEntries: DETAIL_CACHE_ENTRIES });
  const pageCache = createRevisionCache<SearchPage>({ maxEntries: PAGE_CACHE_ENTRIES });
  /** The index and store revisions the search under way read at its start (what it keeps is kept for them). */
  let searchedRevision = 0;
  let searchedStoreRevision = 0;

  const prepare = (source: string): Statement => {
    let statement = statements.get(source);
    if (!statement) {
      statement = prepareStatement(sqlite, source);
      statements.set(source, statement);
    }
    return statement;
  };

  // --- writing documents ---------------------------------------------------------------------
  //
  // FTS5 keeps new entries in memory and flushes them to a new segment whenever a rowid is not
  // larger than the previous one, and whenever a statement opens a savepoint (an UPSERT does).
  // A build's page therefore inserts plain rows in ascending id order; refresh touches few rows
  // and may take the slower path.

  function insertDocuments(id: number, doc: MerchantDocument, builtAt: number): void {
    prepare("INSERT INTO search_details (id, about, products, revision) VALUES (?, ?, ?, ?)").run(
      id,
      doc.about,
      storedCatalogue(doc.catalogue),
      builtAt,
    );
    prepare(
      `INSERT INTO search_merchant_fts (rowid, name, trade, products, tags, place, about, filters)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(id, doc.name, doc.trade, doc.products, doc.tagsText, doc.place, doc.about, doc.filters);
    prepare("INSERT INTO search_sirets (siret, id) VALUES (?, ?)").run(doc.siret, id);
    if (doc.lat !== null && doc.lng !== null) {
      prepare("INSERT INTO search_geo (id, min_lat, max_lat, min_lng, max_lng, trust) VALUES (?, ?, ?, ?, ?, ?)").run(
        id,
        doc.lat,
        doc.lat,
        doc.lng,
        doc.lng,
        doc.trust,
      );
    }
  }

  function removeDocuments(id: number): void {
    prepare("DELETE FROM search_merchant_fts WHERE rowid = ?").run(id);
    prepare("DELETE FROM search_geo WHERE id = ?").run(id);
    prepare("DELETE FROM search_details WHERE id = ?").run(id);
    prepare("DELETE FROM search_sirets WHERE id = ?").run(id);
  }

  function idOf(abId: string): number | undefined {
    const id = prepare("SELECT id FROM search_merchants WHERE ab_id = ?").pluck().get(abId);
    return typeof id === "number" ? id : undefined;
  }

  function removeMerchant(abId: string): void {
    const id = idOf(abId);
    if (id === undefined) return;
    removeDocuments(id);
    prepare("DELETE FROM search_merchants WHERE id = ?").run(id);
  }

  /** The next number in the generation's sequence (tables.ts idInBand), moved on by `count`. */
  function takeSequence(count: number): number {
    const next = Number(readMeta("sequence") ?? 0);
    writeMeta("sequence", String(next + count));
    return next;
  }

  /**
   * Refresh: replaces a merchant's documents, keeping its id while its trust stays in the same
   * band; a new merchant, or one whose trust moved to another band, takes the next id of its
   * band, so the walk of matches in id order stays most trusted first (textCandidates).
   */
  function replaceMerchant(doc: MerchantDocument, builtAt: number): void {
    const existing = idOf(doc.abId);
    let id: number;
    if (existing !== undefined && sameBand(existing, doc.trust)) {
      id = existing;
      prepare(`UPDATE search_merchants SET (${ROW_COLUMNS}) = (${ROW_PARAMS}) WHERE id = ?`).run(rowOf(doc), id);
      removeDocuments(id);
    } else {
      if (existing !== undefined) removeMerchant(doc.abId);
      id = idInBand(doc.trust, takeSequence(1));
      prepare(`INSERT INTO search_merchants (id, ${ROW_COLUMNS}) VALUES (?, ${ROW_PARAMS})`).run(id, rowOf(doc));
    }
    insertDocuments(id, doc, builtAt);
  }

  function writePage(documents: readonly MerchantDocument[]): void {
    const revision = indexRevision();
    const first = takeSequence(documents.length);
    const builtAt = Number(readMeta("built_at") ?? 0);
    const numbered = documents
      .map((doc, offset) => ({ id: idInBand(doc.trust, first + offset), doc }))
      .sort((a, b) => a.id - b.id);
    const insertMerchant = prepare(`INSERT INTO search_merchants (id, ${ROW_COLUMNS}) VALUES (?, ${ROW_PARAMS})`);
    for (const { id, doc } of numbered) {
      insertMerchant.run(id, rowOf(doc));
      insertDocuments(id, doc, builtAt);
    }
    moveRevision(revision);
  }

  function mergeStep(pages: number): boolean {
    const before = sqlite.prepare("SELECT total_changes()").pluck().get() as number;
    prepare("INSERT INTO search_merchant_fts (search_merchant_fts, rank) VALUES ('merge', ?)").run(-Math.abs(pages));
    const after = sqlite.prepare("SELECT total_changes()").pluck().get() as number;
    // FTS5's rule: fewer than two rows written by a 'merge' means there was nothing left to merge.
    return after - before >= 2;
  }

  function finish(cursor: number): void {
    writeMeta("format", INDEX_FORMAT);
    setCursor(cursor);
    moveRevision(indexRevision());
  }

  /** Writes documents read from the store at `revision` (and removes the unlisted); inside a write transaction. */
  function writeListed({ revision, documents, unlisted }: ListedAt): void {
    for (const abId of unlisted) removeMerchant(abId); // archived, suspended or deleted from the store
    for (const doc of documents) replaceMerchant(doc, revision);
    moveRevision(indexRevision());
  }

  function readMeta(key: string): string | null {
    const value = prepare("SELECT value FROM search_meta WHERE key = ?").pluck().get(key);
    return typeof value === "string" ? value : null;
  }

  function writeMeta(key: string, value: string): void {
    prepare("INSERT OR REPLACE INTO search_meta (key, value) VALUES (?, ?)").run(key, value);
  }

  // --- following the store (src/search/follower.ts, embedded/follow.ts) ----------------------
  //
  // The cursor is the store revision the generation reflects: every merchant touched at or
  // before it (merchant_touches) is in the index as it was then or later. A build sets it to the
  // revision read before its first page; a follower's step moves it with the documents, in the
  // same transaction.

  function readCursor(): number | null {
    const value = readMeta("cursor");
    return value !== null && /^\d+$/.test(value) ? Number(value) : null;
  }

  function setCursor(revision: number): void {
    writeMeta("cursor", String(revision));
  }

  /**
   * The index's own revision, moved by every page, refresh and merge, from any connection (a job
   * may write the index from another process): what searches keep of the index's words is kept
   * for it.
   */
  function indexRevision(): number {
    return Number(readMeta("revision") ?? 0);
  }

  function moveRevision(from: number): void {
    writeMeta("revision", String(from + 1));
  }

  // --- searching -----------------------------------------------------------------------------

  /**
   * A page is a function of the query, the index (its revision) and the store (the store
   * revision, with the store beside: the hits' details): pages are kept for both, so a query
   * asked again before either moves is answered without running it again. A kept page is shared
   * by the searches that get it: callers read it, never change it.
   */
  function search(query: SearchQuery): SearchPage {
    searchedRevision = indexRevision();
    searchedStoreRevision = storeRevision();
    return pageCache.readOrBuild(`${searchedRevision}|${pageKey(query)}`, searchedStoreRevision, undefined, () =>
      runSearch(query),
    );
  }

  function runSearch(query: SearchQuery): SearchPage {
    const normalized = normalizeSearchQuery(query);
    if (normalized === null) return EMPTY_PAGE;
    if (normalized.identifier) {
      const found = identifierCandidates(normalized.identifier, normalized);
      if (found.length > 0) return page(found, found.length, normalized, true);
    }
    const { terms, tags, near, nafCodes } = normalized;
    // Nothing searchable typed (empty, or only stop words): tags, NAF codes or a point alone may still
    // narrow the query; with neither, nothing matches rather than everything.
    if (terms.length === 0 && tags.length === 0 && nafCodes.length === 0 && near === null) return EMPTY_PAGE;
    const weights = weightsFor(terms.length > 0, near !== null);
    if (terms.length === 0 && tags.length === 0 && nafCodes.length === 0 && normalized.opening.length === 0) {
      const candidates = nearCandidates(normalized, weights);
      return page(candidates, estimateNear(normalized), normalized);
    }
    let found = matchCandidates(normalized, weights);
    if (found.candidates.length === 0 && terms.length > 0) {
      // Fuzzy fallback: words the index does not hold are replaced by indexed words one typo away.
      const corrected = correctTypos(terms);
      if (corrected) {
        normalized.terms = corrected;
        found = matchCandidates(normalized, weights);
      }
    }
    return page(found.candidates, found.total, normalized);
  }

  function page(
    candidates: readonly Candidate[],
    total: number,
    query: NormalizedQuery,
    byIdentifier = false,
  ): SearchPage {
    const hits = candidates.slice(query.offset, query.offset + query.limit);
    const details = hits.length > 0 && !byIdentifier ? hitDetails(hits) : new Map<string, HitDetail>();
    return {
      hits: hits.map((hit): SearchHit => {
        const detail = details.get(hit.abId);
        return {
          abId: hit.abId,
          score: hit.score,
          distanceKm: hit.distanceKm === null ? null : roundKm(hit.distanceKm),
          matchedProductIds: byIdentifier ? [] : matchProducts(detail?.products ?? [], query.terms, query.tags),
          matched: byIdentifier ? ["identifier"] : matchedFields(detail, query),
        };
      }),
      estimatedTotal: Math.min(MAX_SEARCH_DEPTH, Math.max(total, candidates.length)),
    };
  }

  /**
   * The returned merchants' fields and products, normalised, as they are in the store now: what
   * matchedFields and matchProducts read. The index keeps them normalised with each document
   * (search_merchants, search_details) and the store revision it was built at: a merchant not
   * touched since (merchant_touches) is read from there; one touched since, before the index
   * follows, is read from the store and normalised here. Reading every hit from the store and
   * normalising it cost about 1 ms a page of 10 at 100,000 merchants. Details are kept for the
   * store revision: they describe the store as it is at that revision either way.
   */
  function hitDetails(hits: readonly Candidate[]): Map<string, HitDetail> {
    const idOf = new Map(hits.map((hit) => [hit.abId, hit.id]));
    return detailCache.readThrough([...idOf.keys()], searchedStoreRevision, undefined, (missing) => {
      const rows = prepare(
        `SELECT s.ab_id AS abId, s.naf_code AS naf, s.naf_code_2025 AS naf2025, s.name, s.place, s.tags, d.about, d.products,
                d.revision AS builtAt
         FROM search_merchants s JOIN search_details d ON d.id = s.id
         WHERE s.id IN (SELECT value FROM json_each(?))`,
      ).all(JSON.stringify(missing.map((abId) => idOf.get(abId)))) as (DetailRow & {
        abId: string;
        builtAt: number;
      })[];
      // With the store beside: a merchant touched after its document was built is read from the store.
      const touches = beside ? beside.touchesOf(rows.map((row) => row.abId)) : new Map<string, number>();
      const details = new Map<string, HitDetail>();
      for (const row of rows) if ((touches.get(row.abId) ?? 0) <= row.builtAt) details.set(row.abId, detailOf(row));
      const fromStore = missing.filter((abId) => !details.has(abId));
      if (fromStore.length > 0 && beside) {
        const { merchants, products } = beside.readMerchants(fromStore);
        for (const merchant of merchants) {
          const doc = buildMerchantDocument(merchant, products.get(merchant.ab_id) ?? [], 0);
          details.set(
            merchant.ab_id,
            detailOf({
              ...doc,
              naf: doc.nafCode,
              naf2025: doc.nafCode2025,
              tags: doc.tagsText,
              products: doc.catalogue,
            }),
          );
        }
      }
      return details;
    });
  }

  /** A merchant found by its SIRET, its SIREN (each establishment) or its ab_id, if listed (and open, when asked). */
  function identifierCandidates(identifier: Identifier, query: NormalizedQuery): Candidate[] {
    const { near } = query;
    const select =
      "SELECT s.id AS id, s.ab_id AS abId, s.trust AS trust, s.lat AS lat, s.lng AS lng, s.opening AS opening";
    let rows: (CandidateRow & { opening: string | null })[];
    if (identifier.kind === "ab_id") {
      rows = prepare(`${select} FROM search_merchants s WHERE s.ab_id = ?`).all(identifier.value) as typeof rows;
    } else {
      const [low, high] =
        identifier.kind === "siret"
          ? [identifier.value, identifier.value]
          : [`${identifier.value}00000`, `${identifier.value}99999`];
      rows = prepare(
        `${select} FROM search_sirets m JOIN search_merchants s ON s.id = m.id
         WHERE m.siret >= ? AND m.siret <= ? ORDER BY s.trust DESC, s.ab_id LIMIT ?`,
      ).all(low, high, MAX_SEARCH_DEPTH) as typeof rows;
    }
    const open = rows.filter((row) => passesOpening(scheduleFromStore(row.opening), query.opening));
    return open.map((row) => ({
      id: row.id,
      abId: row.abId,
      score: IDENTIFIER_SCORE,
      distanceKm:
        near && row.lat !== null && row.lng !== null ? haversineKm(near, { lat: row.lat, lng: row.lng }) : null,
    }));
  }

  /** Merchants in the point's box (a little more than the circle), or placed anywhere without a radius, up to the deepest page. */
  function estimateNear(query: NormalizedQuery): number {
    if (!query.near) return 0;
    const count =
      query.near.radiusKm === null
        ? prepare(`SELECT count(*) FROM (SELECT id FROM search_geo LIMIT ${MAX_SEARCH_DEPTH})`).pluck().get()
        : prepare(
            `SELECT count(*) FROM (SELECT id FROM search_geo
         WHERE max_lat >= @minLat AND min_lat <= @maxLat AND max_lng >= @minLng AND min_lng <= @maxLng
         LIMIT ${MAX_SEARCH_DEPTH})`,
          )
            .pluck()
            .get(boundingBox(query.near, query.near.radiusKm));
    return typeof count === "number" ? count : 0;
  }

  /**
   * The query's words the index does not hold (as typed, or as a prefix for the last one), of
   * MIN_TYPO_WORD_LENGTH letters or more, replaced by the indexed words one edit away; null when
   * no word could be corrected. The dictionary is fts5vocab over the merchant documents, looked
   * up by ranges of two-letter beginnings (typoProbes), so a typo on the very first letter,
   * other than a swap with the second, is not forgiven.
   */
  function correctTypos(terms: readonly QueryTerm[]): QueryTerm[] | null {
    let changed = false;
    const known = prepare("SELECT 1 FROM search_terms WHERE term >= ? AND term < ? LIMIT 1").pluck();
    const range = prepare("SELECT term, doc FROM search_terms WHERE term >= ? AND term < ? LIMIT 20000").raw();
    // fts5vocab reads every doclist of a range to count its documents: the words of a two-letter
    // beginning are kept for the index revision they were read at.
    const revision = searchedRevision;
    const wordsStarting = (probe: string): [string, number][] =>
      probeCache.readOrBuild(
        probe,
        revision,
        undefined,
        () => range.all(probe, `${probe}\uffff`) as [string, number][],
      );
    const corrected = terms.map((term): QueryTerm => {
      const word = term.term;
      if (word.length < MIN_TYPO_WORD_LENGTH || /\d/.test(word)) return term;
      const end = term.prefix ? `${word}\uffff` : `${word}\u0000`;
      if (known.get(word, end) !== undefined) return term;
      const found = new Map<string, number>();
      for (const probe of typoProbes(word)) {
        for (const [candidate, docs] of wordsStarting(probe)) {
          if (withinOneEdit(word, candidate)) found.set(candidate, docs);
        }
      }
      if (found.size === 0) return term;
      changed = true;
      const alternatives = [...found.entries()]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, MAX_ALTERNATIVES)
        .map(([candidate]) => candidate);
      return { ...term, prefix: false, alternatives };
    });
    return changed ? corrected : null;
  }

  /**
   * A prefix term as the MATCH should spell it: as its word alone when the index holds no longer
   * word it starts; as the alternatives of its word and the (at most MAX_SPELLED_OUT) longer
   * indexed words it starts; as it is (FTS5 expands it) otherwise. FTS5 answers a prefix longer
   * than its prefix indexes (tables.ts) by merging the doclists of every word it starts over the
   * whole table, on every statement: "restaurant"* cost 0.9 ms at 100,000 merchants where
   * "restaurant" costs 0.05, and "Roussel Auto Service"* 2.8 ms where 0.5 ms finds the same four.
   * The words come from fts5vocab (the index's own words, so the matches are the same); it counts
   * the documents of each word it lists, so only the longer words are read, a few of them.
   * Prefixes that fit a prefix index, and non-ASCII ones (the tokenizer may fold them further),
   * are left to FTS5.
   */
  function spelledOut(term: QueryTerm): QueryTerm {
    const word = term.term;
    if (!term.prefix || word.length <= LONGEST_PREFIX_INDEX || !/^[a-z0-9]+$/.test(word)) return term;
    // fts5vocab counts the documents of each word it lists: the lists are kept for the index
    // revision they were read at (the same last words come back, "paris", "centre", "moulin").
    const revision = searchedRevision;
    const longer = longerWords.readOrBuild(word, revision, undefined, () => {
      // Every word that starts `word` and is longer: above word + U+0001 (no token holds a
      // control character), below the word with its last letter moved up by one.
      const successor = `${word.slice(0, -1)}${String.fromCharCode(word.charCodeAt(word.length - 1) + 1)}`;
      return prepare("SELECT term FROM search_terms WHERE term >= ? AND term < ? LIMIT ?")
        .pluck()
        .all(`${word}\u0001`, successor, MAX_SPELLED_OUT + 1) as string[];
    });
    if (longer.length > MAX_SPELLED_OUT) return term;
    if (longer.length === 0) return { ...term, prefix: false };
    return { ...term, prefix: false, alternatives: [word, ...longer] };
  }

  /**
   * Text and/or tags (and maybe a point), through FTS5, with bounded work. FTS5 has no top-k
   * pruning: `ORDER BY rank LIMIT n` still computes bm25 for every match (a few microseconds
   * each), so a common word ("qualite", "pa"*) over 100,000 merchants would cost hundreds of
   * milliseconds. So:
   * 1. The MATCH holds the text (text columns only), the tags and the grid cells covering the
   *    point (filter-tokens.ts): FTS5 intersects them itself.
   * 2. Walk the matches in rowid order without scoring (cheap) to find the `maxRanked`-th. Ids
   *    are given most trusted first at rebuild, so the matches up to it are the most trusted
   *    ones. Tags and cells filter before this cut, so a point or tags never lose their matches
   *    to better-ranked ones elsewhere.
   * 3. Score with bm25 those up to the cut that also lie within the exact radius (only rows that
   *    pass every filter are scored), keep the best `pool` and re-rank them with trust and
   *    distance. Without text, all of them are re-ranked by trust and distance.
   * Trade-off: on a broad query (more matches than `maxRanked`), a merchant less trusted than the
   * cut is not considered even if its text matches better; among thousands of matches of one
   * common word text relevance varies little, and trust is what the blend would reward. On other
   * queries every match is scored, and only near-ties at the pool's edge (below the pool's 80th
   * by text relevance) can be left out. Merchants added by refresh() take the next ids, so they
   * count as least trusted for this cut until the next rebuild; their score uses their real trust.
   */
  function matchCandidates(query: NormalizedQuery, weights: Weights): { candidates: Candidate[]; total: number } {
    const depth = query.offset + query.limit;
    const poolSize = Math.max(pool, depth);
    const filterTokens = [...query.tags.map(tagToken), ...query.nafCodes.map(nafToken)];
    const openingTokens = query.opening.map((check) => check.tokens);
    const matchFor = (terms: readonly QueryTerm[], cells: readonly string[] | null) =>
      matchExpression(terms, filterTokens, cells, openingTokens);
    // The last word typed also matches as a prefix. In the MATCH, a prefix term is spelled out as
    // the indexed words it starts (spelledOut): the same matches, without FTS5 merging whole
    // doclists. Most often it starts no longer word (a complete last word, "service" of "Auto
    // Service") and is matched as it is. When it does start longer words and the words as typed
    // already match `pool` merchants (many pages of answers), the expansion could only add longer
    // words: skip it. A partial word ("boulan") matches little as typed and is expanded.
    // `terms` (what text relevance is scored with) keep their prefix flag: spelling out changes
    // how the MATCH is written, not what matches.
    let terms = query.terms;
    let matchTerms = terms.map(spelledOut);
    // Expanded: left to FTS5 as a prefix, or spelled out with longer words (new alternatives).
    const expanded = (term: QueryTerm, index: number) =>
      term.prefix || term.alternatives !== terms[index]?.alternatives;
    if (matchTerms.some(expanded)) {
      const exact = terms.map((term) => ({ ...term, prefix: false }));
      const asTyped = prepare(
        `SELECT count(*) FROM (
           SELECT rowid FROM search_merchant_fts WHERE search_merchant_fts MATCH @match ORDER BY rowid LIMIT @pool)`,
      )
        .pluck()
        .get({ match: matchExpression(exact, [], null), pool });
      if (typeof asTyped === "number" && asTyped >= pool) {
        terms = exact;
        matchTerms = exact;
      }
    }
    const near = query.near;
    if (near && near.radiusKm === null) {
      return nearestMatches(query, { lat: near.lat, lng: near.lng }, terms, (cells) => matchFor(matchTerms, cells));
    }
    const params: Record<string, unknown> = {};
    const clauses: string[] = [];
    let cells: string[] | null = null;
    if (near && near.radiusKm !== null) {
      const box = boundingBox(near, near.radiusKm);
      cells = coveringCells(box);
      Object.assign(params, box, { lat: near.lat, lng: near.lng, radius: near.radiusKm });
      clauses.push(
        "m.lat BETWEEN @minLat AND @maxLat AND m.lng BETWEEN @minLng AND @maxLng",
        `${haversineSql("m.lat", "m.lng")} <= @radius`,
      );
    }
    const match = matchFor(matchTerms, cells);
    // One walk of the matches (text, tags, covering cells, opening tokens) in rowid order, most
    // trusted first, up to the deepest page: the first `maxRanked` are ranked, and when there
    // are more (the walk is cut) how many there are, up to the deepest page, is the estimated
    // total (one walk where a second statement counted them again from the start). The cut is
    // taken before the exact distance, so a few fewer rows remain when some cells stick out of
    // the circle. The opening filters' exact rule is applied to the walk (walkMatches).
    const cut = query.offset > 0 ? Math.max(maxRanked, depth) : maxRanked; // a later page reads deeper
    const walk = walkMatches(match, Math.max(cut, MAX_SEARCH_DEPTH), query);
    const ids = walk.ids;
    const counted = Math.min(ids.length, MAX_SEARCH_DEPTH);
    params.ids = JSON.stringify(ids.length > cut ? ids.slice(0, cut) : ids);
    const where = clauses.length > 0 ? `AND ${clauses.join(" AND ")}` : "";
    if (terms.length === 0) {
      // Tags (and maybe a point) alone: no text to score; trust and distance rank them all.
      const rows = prepare(
        `SELECT m.id AS id, m.ab_id AS abId, m.trust AS trust, m.lat AS lat, m.lng AS lng
         FROM search_merchants m WHERE ${IN_WALK} ${where}`,
      ).all(params) as CandidateRow[];
      const candidates = rank(rows, query, weights, () => 1);
      return { candidates, total: ids.length <= cut ? candidates.length : counted };
    }
    const rows = prepare(`SELECT ${MATCH_ROW_COLUMNS} FROM search_merchants m WHERE ${IN_WALK} ${where}`).all(
      params,
    ) as MatchRow[];
    const { scored, text } = scoreText(rows, terms, poolSize);
    const candidates = rank(scored, query, weights, (row) => text.get(row.id) ?? 0);
    // Not cut: every match was ranked. No match within the radius: nothing to page through.
    return { candidates, total: ids.length <= cut || rows.length === 0 ? rows.length : counted };
  }

  /**
   * The matches of a MATCH in rowid order (most trusted first), at most `limit` of them walked
   * (`cut` when there were more), those the opening filters keep by their exact rule
   * (opening-filter.ts): the MATCH's opening tokens keep a superset.
   */
  function walkMatches(match: string, limit: number, query: NormalizedQuery): { ids: number[]; cut: boolean } {
    const ids = prepare(
      "SELECT rowid FROM search_merchant_fts WHERE search_merchant_fts MATCH ? ORDER BY rowid LIMIT ?",
    )
      .pluck()
      .all(match, limit) as number[];
    const cut = ids.length >= limit;
    if (query.opening.length === 0 || ids.length === 0) return { ids, cut };
    const schedules = prepare(`SELECT m.id AS id, m.opening AS opening FROM search_merchants m WHERE ${IN_IDS}`).all(
      JSON.stringify(ids),
    ) as { id: number; opening: string | null }[];
    const open = new Set(
      schedules.filter((row) => passesOpening(scheduleFromStore(row.opening), query.opening)).map((row) => row.id),
    );
    return { ids: ids.filter((id) => open.has(id)), cut };
  }

  /**
   * Text relevance, scored here from the fields each word occurs in (textScore), not by FTS5's
   * bm25(): bm25 counts, for each word of the query, every document holding it (its IDF) on
   * every statement, which cost milliseconds a query for a common word or a long prefix at
   * 100,000 merchants. The best `poolSize` by text, and each one's relevance relative to the best.
   */
  function scoreText(
    rows: readonly MatchRow[],
    terms: readonly QueryTerm[],
    poolSize: number,
  ): { scored: MatchRow[]; text: Map<number, number> } {
    const ranked = rows
      .map((row) => ({
        row,
        text: textScore(terms, {
          name: row.name,
          trade: tradeWords(row.naf, row.naf2025),
          place: row.place,
          tags: row.tags,
        }),
      }))
      .sort((a, b) => b.text - a.text || a.row.id - b.row.id)
      .slice(0, poolSize);
    const best = ranked[0]?.text ?? 0;
    return {
      scored: ranked.map((entry) => entry.row),
      text: new Map(ranked.map((entry) => [entry.row.id, best > 0 ? entry.text / best : 1])),
    };
  }

  /**
   * A point without a radius: no distance cut, nearer first among comparable matches. The matches
   * within growing distances (NEAREST_RINGS_KM: the ring's grid cells in the MATCH, then the exact
   * distance) until a ring holds the page's depth (at least the candidate pool), or its walk is
   * cut (a ring this dense: its most trusted matches), or the last ring (anywhere) is reached; its
   * `wanted` nearest are scored by text relevance times nearness (ranking.ts nearestScore).
   * Merchants without coordinates are left out, as with a radius. The total counts every match
   * placed anywhere (up to the deepest page).
   */
  function nearestMatches(
    query: NormalizedQuery,
    point: { lat: number; lng: number },
    terms: readonly QueryTerm[],
    matchWithin: (cells: readonly string[] | null) => string,
  ): { candidates: Candidate[]; total: number } {
    const wanted = Math.max(pool, query.offset + query.limit);
    let within: { row: MatchRow; distanceKm: number }[] = [];
    let everywhere: { ids: number[]; cut: boolean } | null = null;
    for (const ring of NEAREST_RINGS_KM) {
      const walk = walkMatches(
        matchWithin(ring === null ? null : coveringCells(boundingBox(point, ring))),
        MAX_SEARCH_DEPTH,
        query,
      );
      if (ring === null) everywhere = walk;
      const rows = prepare(`SELECT ${MATCH_ROW_COLUMNS} FROM search_merchants m WHERE ${IN_IDS}`).all(
        JSON.stringify(walk.ids),
      ) as MatchRow[];
      within = rows.flatMap((row) => {
        if (row.lat === null || row.lng === null) return [];
        const distanceKm = haversineKm(point, { lat: row.lat, lng: row.lng });
        return ring === null || distanceKm <= ring ? [{ row, distanceKm }] : [];
      });
      if (within.length >= wanted || walk.cut) break;
    }
    const nearest = within.sort((a, b) => a.distanceKm - b.distanceKm || a.row.id - b.row.id).slice(0, wanted);
    const { text } =
      terms.length > 0
        ? scoreText(
            nearest.map((entry) => entry.row),
            terms,
            wanted,
          )
        : { text: null };
    const candidates = nearest
      .map(({ row, distanceKm }) => ({
        id: row.id,
        abId: row.abId,
        trust: row.trust,
        distanceKm,
        score: nearestScore(text ? (text.get(row.id) ?? 0) : 1, distanceKm),
      }))
      .sort(byNearestScore)
      .map(({ trust: _trust, ...candidate }) => candidate);
    // Every placed match, wherever it is: the last ring's walk, or one more walk without cells.
    const all = everywhere ?? walkMatches(matchWithin(null), MAX_SEARCH_DEPTH, query);
    const placed = prepare(`SELECT count(*) FROM search_merchants m WHERE ${IN_IDS} AND m.lat IS NOT NULL`)
      .pluck()
      .get(JSON.stringify(all.ids));
    return { candidates, total: Math.max(candidates.length, typeof placed === "number" ? placed : 0) };
  }

  /**
   * A point alone (no text, no tags): the R*Tree alone (its box, then the distance on its
   * coordinates, trust from its auxiliary column) picks the best by trust and distance, exactly;
   * their merchant rows are read afterwards. R*Tree coordinates are 32-bit floats (about 1 m
   * here): the exact distance is computed again from the merchant row, and a few extra rows
   * absorb the difference at the radius. Without a radius: the nearest, growing the box ring by
   * ring (NEAREST_RINGS_KM) until it holds the page's depth.
   */
  function nearCandidates(query: NormalizedQuery, weights: Weights): Candidate[] {
    const near = query.near;
    if (!near) return [];
    const limit = query.offset + query.limit + NEAR_SLACK;
    const distance = haversineSql("g.min_lat", "g.min_lng");
    const inBox = "g.max_lat >= @minLat AND g.min_lat <= @maxLat AND g.max_lng >= @minLng AND g.min_lng <= @maxLng";
    let ids: unknown[] = [];
    if (near.radiusKm === null) {
      for (const ring of NEAREST_RINGS_KM) {
        const params = {
          lat: near.lat,
          lng: near.lng,
          limit,
          ...(ring === null ? {} : { ...boundingBox(near, ring), radius: ring }),
        };
        ids = prepare(
          `SELECT g.id FROM search_geo g
           ${ring === null ? "" : `WHERE ${inBox} AND ${distance} <= @radius`}
           ORDER BY ${distance}, g.trust DESC, g.id
           LIMIT @limit`,
        )
          .pluck()
          .all(params);
        if (ids.length >= limit) break;
      }
    } else {
      const params = {
        ...boundingBox(near, near.radiusKm),
        lat: near.lat,
        lng: near.lng,
        radius: near.radiusKm,
        limit,
      };
      ids = prepare(
        `SELECT g.id FROM search_geo g
         WHERE ${inBox} AND ${distance} <= @radius
         ORDER BY ${blendSql(weights, "g.trust", distance)} DESC, g.id
         LIMIT @limit`,
      )
        .pluck()
        .all(params);
    }
    const rows = prepare(
      `SELECT m.id AS id, m.ab_id AS abId, m.trust AS trust, m.lat AS lat, m.lng AS lng
       FROM search_merchants m WHERE ${IN_IDS}`,
    ).all(JSON.stringify(ids)) as CandidateRow[];
    return rank(rows, query, weights, () => 1);
  }

  function rank(
    rows: readonly CandidateRow[],
    query: NormalizedQuery,
    weights: Weights,
    textOf: (row: CandidateRow) => number,
  ): Candidate[] {
    const radiusKm = query.near?.radiusKm ?? null;
    const nearest = query.near !== null && radiusKm === null;
    const candidates: (Candidate & { trust: number })[] = [];
    for (const row of rows) {
      let distanceKm: number | null = null;
      if (query.near) {
        if (row.lat === null || row.lng === null) continue;
        distanceKm = haversineKm(query.near, { lat: row.lat, lng: row.lng });
        if (radiusKm !== null && distanceKm > radiusKm) continue; // the SQL filter already did; float guard
      }
      const score =
        nearest && distanceKm !== null
          ? nearestScore(textOf(row), distanceKm)
          : blendedScore({ text: textOf(row), trust: row.trust, distanceKm, radiusKm }, weights);
      candidates.push({ id: row.id, abId: row.abId, score, distanceKm, trust: row.trust });
    }
    return candidates
      .sort(nearest ? byNearestScore : byBlendedScore)
      .map(({ trust: _trust, ...candidate }) => candidate);
  }

  return {
    search,
    writePage,
    mergeStep,
    finish,
    writeListed,
    readCursor,
    setCursor,
    readMeta,
    writeMeta,
    count: () => Number(prepare("SELECT count(*) FROM search_merchants").pluck().get() ?? 0),
  };
}

/** Highest score first, then the nearer, then by ab_id. */
function byBlendedScore(a: Candidate, b: Candidate): number {
  return (
    b.score - a.score || (a.distanceKm ?? 0) - (b.distanceKm ?? 0) || (a.abId < b.abId ? -1 : a.abId > b.abId ? 1 : 0)
  );
}

/** Without a radius: highest score (text times nearness) first, then the more trusted, the nearer, by ab_id. */
function byNearestScore(a: Candidate & { trust: number }, b: Candidate & { trust: number }): number {
  return (
    b.score - a.score ||
    b.trust - a.trust ||
    (a.distanceKm ?? 0) - (b.distanceKm ?? 0) ||
    (a.abId < b.abId ? -1 : a.abId > b.abId ? 1 : 0)
  );
}

/** The merchants a statement reads, by the ids given as a JSON array: named (@ids) or positional. */
const IN_WALK = "m.id IN (SELECT value FROM json_each(@ids))";
const IN_IDS = "m.id IN (SELECT value FROM json_each(?))";

/** What a text match is scored and ranked from. */
type MatchRow = CandidateRow & { naf: string; naf2025: string | null; name: string; place: string; tags: string };
const MATCH_ROW_COLUMNS = `m.id AS id, m.ab_id AS abId, m.trust AS trust, m.lat AS lat, m.lng AS lng, m.naf_code AS naf,
       m.naf_code_2025 AS naf2025, m.name AS name, m.place AS place, m.tags AS tags`;

/** What tells one page of hits from another besides the revisions: every field of the query the index reads. */
function pageKey(query: SearchQuery): string {
  const near = query.near ? `${query.near.lat},${query.near.lng},${query.near.radiusKm ?? "-"}` : "";
  const opening = checksKey((query.openAt ?? []).map(openingCheck));
  return `${query.text}|${query.tags.join(",")}|${near}|${query.limit}|${query.offset ?? 0}|${opening}`;
}

/** search_merchants' columns but its id, and the values a document gives them. */
const ROW_COLUMNS = "ab_id, status, trust, lat, lng, naf_code, naf_code_2025, name, place, tags, opening";
const ROW_PARAMS = ROW_COLUMNS.split(", ")
  .map(() => "?")
  .join(", ");

function rowOf(doc: MerchantDocument): unknown[] {
  return [
    doc.abId,
    doc.status,
    doc.trust,
    doc.lat,
    doc.lng,
    doc.nafCode,
    doc.nafCode2025,
    doc.name,
    doc.place,
    doc.tagsText,
    doc.schedule,
  ];
}

interface DetailRow {
  naf: string;
  naf2025: string | null;
  name: string;
  place: string;
  tags: string;
  about: string;
  /** As stored (product-match.ts storedCatalogue), or already prepared. */
  products: string | PreparedProduct[];
}

/** A hit's details from its document's fields (normalised words joined by spaces). */
function detailOf(row: DetailRow): HitDetail {
  return {
    products: typeof row.products === "string" ? catalogueFromStored(row.products) : row.products,
    fields: {
      name: row.name,
      trade: tradeText(row.naf, row.naf2025),
      place: row.place,
      description: row.about,
      tag: row.tags,
    },
  };
}

const tradeWordSets = new Map<string, ReadonlySet<string>>();

/** The words indexed with a merchant's codes and trade (documents.ts tradeText), as a set, cached. */
function tradeWords(nafCode: string, nafCode2025: string | null): ReadonlySet<string> {
  const key = `${nafCode}|${nafCode2025 ?? ""}`;
  let words = tradeWordSets.get(key);
  if (!words) {
    words = new Set(tradeText(nafCode, nafCode2025).split(" "));
    tradeWordSets.set(key, words);
  }
  return words;
}

/** Score of a merchant found by its identifier: above any blend. */
const IDENTIFIER_SCORE = 100;

/** The fields the query's words occur in (a trade word never counts its place), and `tag` when tags were asked. */
function matchedFields(detail: HitDetail | undefined, query: NormalizedQuery): MatchedField[] {
  const matched = new Set<MatchedField>();
  if (query.tags.length > 0) matched.add("tag");
  if (query.nafCodes.length > 0) matched.add("trade");
  if (detail) {
    const { fields, products } = detail;
    for (const term of query.terms) {
      if (occursIn(term, fields.name)) matched.add("name");
      if (occursIn(term, fields.trade)) matched.add("trade");
      if (products.some((product) => occursIn(term, product.name) || occursIn(term, product.description))) {
        matched.add("product");
      }
      if (occursIn(term, fields.tag)) matched.add("tag");
      if (!term.trade && occursIn(term, fields.place)) matched.add("place");
      if (occursIn(term, fields.description)) matched.add("description");
    }
  }
  return MATCHED_FIELDS.filter((field) => matched.has(field));
}
