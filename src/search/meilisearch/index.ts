import { createHash } from "node:crypto";
import {
  type Hits,
  type Index,
  Meilisearch,
  type MultiSearchParams,
  type SearchParams,
  type Settings,
} from "meilisearch";
import type { MerchantDocument, ProductRow } from "../embedded/documents.ts";
import { matchProducts, prepareProduct } from "../embedded/product-match.ts";
import { blendedScore, haversineKm, nearestScore, roundKm, weightsFor } from "../embedded/ranking.ts";
import { INDEX_FORMAT } from "../embedded/tables.ts";
import { documentEmbeddingText, type Embedder } from "../embedder.ts";
import type { QueryTerm } from "../normalize.ts";
import { passesOpening, scheduleFromStore } from "../opening-filter.ts";
import { type Identifier, normalizeSearchQuery } from "../query.ts";
import {
  MATCHED_FIELDS,
  MAX_SEARCH_DEPTH,
  type MatchedField,
  type SearchHit,
  type SearchIndex,
  type SearchPage,
  type SearchQuery,
} from "../search-index.ts";
import type { SearchSource } from "../source.ts";
import { MIN_TYPO_WORD_LENGTH } from "../typos.ts";
import { TRADE_WORDS } from "../vocabulary.ts";
import { MeilisearchHttpError, nodeHttpClient } from "./http-client.ts";

/*
 * The second SearchIndex: a Meilisearch index (community edition features only) holding one
 * document per listed merchant, built from the same normalised documents as the embedded index
 * (embedded/documents.ts), so both engines meet the same words: plurals folded, accents removed,
 * the trade's vocabulary indexed with it. Meilisearch picks and orders the candidates (words,
 * typos, proximity, attribute, exactness, trust); the blend of text relevance, trust and distance
 * is the embedded index's own (ranking.ts), computed here on Meilisearch's ranking score.
 *
 * With an embedder, each document carries its vector (`_vectors`, computed here, in this process,
 * when the follower writes it), the index has a `userProvided` embedder of that name, and a query
 * that comes with a vector (semantic-index.ts) runs as a hybrid search: Meilisearch merges the
 * words' and the vector's candidates; neighbours less similar than the embedder's floor are left
 * out, and those found by the vector alone say `matched: ["meaning"]`.
 */

export interface MeilisearchIndexOptions {
  url: string;
  apiKey?: string | null;
  /** The index uid searches read (default "abeille_merchants"); rebuilds swap a new one in. */
  indexUid?: string;
  /** A search slower than this fails (the caller then degrades, see resilient-index.ts). */
  searchTimeoutMs?: number;
  /** Writes (documents, settings, swaps) and their tasks. */
  writeTimeoutMs?: number;
  now?: () => Date;
  /** How many candidates, best first by Meilisearch, are re-ranked with trust and distance (default 80). */
  candidatePool?: number;
  /** Computes the documents' vectors (and names the index's embedder); none: no vectors, no hybrid search. */
  embedder?: Embedder | null;
  /** The vector's share of a hybrid search, 0 (words only) to 1 (vector only); default 0.5. */
  semanticRatio?: number;
  /**
   * Every request that changes the index (documents, settings, swaps, the cursor) goes through it:
   * on a deployment of several machines, the leader's fence (src/store/postgres/leader-fence.ts
   * `hold`), which refuses it once this instance no longer leads. Searches and reads never do.
   */
  writeGate?: <T>(write: () => Promise<T>) => Promise<T>;
}

export interface MeilisearchSearchIndex extends SearchIndex {
  search(query: SearchQuery): Promise<SearchPage>;
  refresh(abIds: string[]): Promise<void>;
  rebuild(onProgress?: (done: number, total: number) => void): Promise<void>;
  /** The store revision the index reflects (acknowledged by the follower), or null before any build. */
  readCursor(): Promise<number | null>;
  writeCursor(revision: number): Promise<void>;
  /** Throws when Meilisearch does not answer. */
  ping(): Promise<void>;
  /**
   * Whether a full build is under way, by this process or another: its index exists and was
   * written within the last minute (a build killed midway leaves one that goes quiet).
   */
  buildUnderWay(): Promise<boolean>;
}

/** How long a build's index may go unwritten and still be a build under way (a batch takes seconds). */
const BUILD_QUIET_MS = 60_000;

interface MeiliDocument {
  ab_id: string;
  siret: string;
  siren: string;
  name: string;
  trade: string;
  products: string;
  tags: string;
  place: string;
  about: string;
  tag_filter: string[];
  /** The merchant's NAF codes, NAF rev. 2 and NAF 2025: a NAF code typed in a query filters on them. */
  naf: string[];
  sector: string;
  department: string | null;
  status: string;
  trust: number;
  _geo: { lat: number; lng: number } | null;
  /** The opening tokens (src/search/opening-filter.ts): the opening filters' first step. */
  opening: string[];
  /** The opening schedule as the embedded index keeps it (JSON, null when unknown): the exact rule's input. */
  schedule: string | null;
  _vectors?: Record<string, number[]>;
}

/** Searchable attributes, most important first (the `attribute` ranking rule weighs them in this order). */
const SEARCHABLE = ["name", "trade", "tags", "place", "products", "about"] as const;
/** Attributes that name the merchant's town: they never make it a match for a trade word alone. */
const TOWN_ATTRIBUTES: ReadonlySet<string> = new Set(["place", "about"]);
const FIELD_OF: Record<string, MatchedField> = {
  name: "name",
  trade: "trade",
  products: "product",
  tags: "tag",
  place: "place",
  about: "description",
};

export const MEILISEARCH_SETTINGS: Settings = {
  searchableAttributes: [...SEARCHABLE],
  filterableAttributes: [
    "_geo",
    "tag_filter",
    "naf",
    "opening",
    "status",
    "sector",
    "department",
    "siret",
    "siren",
    "ab_id",
  ],
  sortableAttributes: ["trust", "_geo"],
  // `sort` first: a search around a point without a radius sorts by distance (its candidates are
  // the nearest matches, re-ranked here); the others pass no sort and the rule does nothing.
  rankingRules: ["sort", "words", "typo", "proximity", "attribute", "exactness", "trust:desc"],
  // The text is already folded to French root forms (normalize.ts): the French tokenizer, no
  // stop words of Meilisearch's own (the query drops them), no synonyms (the vocabulary is indexed).
  localizedAttributes: [{ attributePatterns: ["*"], locales: ["fra"] }],
  typoTolerance: {
    enabled: true,
    minWordSizeForTypos: { oneTypo: MIN_TYPO_WORD_LENGTH, twoTypos: 9 },
    // Postal codes and other numbers never match with a typo; nor does a word that names a trade
    // ("maçon" is not "Manon"): a misspelt one, which is not a trade word, still does.
    disableOnNumbers: true,
    disableOnWords: [...TRADE_WORDS],
  },
  pagination: { maxTotalHits: MAX_SEARCH_DEPTH },
  // Word proximity within an attribute only, and no facet search: a fraction of the indexing
  // work (measured: bench/search.ts), for answers that rank the same on these short documents.
  proximityPrecision: "byAttribute",
  facetSearch: false,
};

/**
 * The layout the index was built with: its settings and the documents' format (the embedded
 * index's, as both are built by documents.ts with the same normalisation and vocabulary). A cursor
 * written by another layout reads as none, so the follower rebuilds after an upgrade.
 */
export const MEILISEARCH_FORMAT = createHash("sha256")
  .update(JSON.stringify(MEILISEARCH_SETTINGS))
  .update(INDEX_FORMAT)
  .digest("base64url")
  .slice(0, 16);

/** The settings of an index whose documents carry the embedder's vectors. */
export function meilisearchSettings(embedder: { name: string; dimensions: number } | null): Settings {
  if (!embedder) return MEILISEARCH_SETTINGS;
  return {
    ...MEILISEARCH_SETTINGS,
    embedders: { [embedder.name]: { source: "userProvided", dimensions: embedder.dimensions } },
  };
}

const BATCH_SIZE = 5_000;
const REFRESH_CHUNK = 1_000;
const DEFAULT_POOL = 80;
/** The radius Meilisearch filters with, a little wider than asked: the exact cut is made here. */
const RADIUS_SLACK = 1.005;
/** Half the Earth's circumference, in metres: a _geoRadius this wide keeps every placed merchant, and only those. */
const ANYWHERE_M = 20_037_509;

/**
 * `source`: the store's search reads, on either engine (src/search/source.ts createSearchSource,
 * src/store/postgres/search-source.ts createPostgresSearchSource).
 */
export function createMeilisearchSearchIndex(
  source: SearchSource,
  options: MeilisearchIndexOptions,
): MeilisearchSearchIndex {
  const uid = options.indexUid ?? "abeille_merchants";
  const embedder = options.embedder ?? null;
  const semanticRatio = options.semanticRatio ?? 0.5;
  // The embedder's name says which model and dimension the vectors come from: another one reads
  // as another layout, and the follower rebuilds the index with the new vectors.
  const format = embedder ? `${MEILISEARCH_FORMAT}.${embedder.name}` : MEILISEARCH_FORMAT;
  const metaUid = `${uid}_meta`;
  const now = options.now ?? (() => new Date());
  const pool = Math.max(1, Math.floor(options.candidatePool ?? DEFAULT_POOL));
  const apiKey = options.apiKey ?? undefined;
  const httpClient = nodeHttpClient();
  const reader = new Meilisearch({
    host: options.url,
    ...(apiKey ? { apiKey } : {}),
    httpClient,
    timeout: options.searchTimeoutMs ?? 1_000,
  });
  const gate = options.writeGate;
  const writer = new Meilisearch({
    host: options.url,
    ...(apiKey ? { apiKey } : {}),
    httpClient: gate
      ? (target, init) =>
          (init?.method ?? "GET").toUpperCase() === "GET"
            ? httpClient(target, init)
            : gate(() => httpClient(target, init))
      : httpClient,
    timeout: options.writeTimeoutMs ?? 30_000,
    defaultWaitOptions: { timeout: options.writeTimeoutMs ?? 120_000, interval: 20 },
  });

  async function ensureIndex(indexUid: string): Promise<Index<MeiliDocument>> {
    const exists = await writer
      .getIndex(indexUid)
      .then(() => true)
      .catch(() => false);
    if (!exists) await writer.createIndex(indexUid, { primaryKey: "ab_id" }).waitTask();
    const vectors = embedder ? { name: embedder.name, dimensions: await embedder.dimensions() } : null;
    const task = await writer.index(indexUid).updateSettings(meilisearchSettings(vectors)).waitTask();
    if (task.status !== "succeeded") throw new Error(`Meilisearch refused the settings: ${task.error?.message}`);
    return writer.index<MeiliDocument>(indexUid);
  }

  /** The documents as Meilisearch stores them, with their vectors when there is an embedder (one call a batch). */
  async function toMeili(documents: MerchantDocument[]): Promise<MeiliDocument[]> {
    const converted = documents.map(meiliDocument);
    if (!embedder || documents.length === 0) return converted;
    const vectors = await embedder.embed(documents.map(documentEmbeddingText));
    if (vectors.length !== documents.length) {
      throw new Error(`the embedder ${embedder.name} returned ${vectors.length} vectors for ${documents.length} texts`);
    }
    return converted.map((doc, position) => ({
      ...doc,
      _vectors: { [embedder.name]: Array.from(vectors[position] ?? []) },
    }));
  }

  async function push(index: Index<MeiliDocument>, documents: MerchantDocument[], unlisted: string[]) {
    if (documents.length > 0) {
      const task = await index.addDocuments(await toMeili(documents), { primaryKey: "ab_id" }).waitTask();
      if (task.status !== "succeeded") throw new Error(`Meilisearch refused documents: ${task.error?.message}`);
    }
    if (unlisted.length > 0) await index.deleteDocuments(unlisted).waitTask();
  }

  async function refresh(abIds: string[]): Promise<void> {
    const unique = [...new Set(abIds.filter((abId) => typeof abId === "string"))];
    if (unique.length === 0) return;
    const index = writer.index<MeiliDocument>(uid);
    for (let start = 0; start < unique.length; start += REFRESH_CHUNK) {
      const { documents, unlisted } = await source.listedDocuments(unique.slice(start, start + REFRESH_CHUNK), now());
      await push(index, documents, unlisted);
    }
  }

  /**
   * Builds a new index beside the one searches read, then swaps them in one task (searches never
   * see a half-built index) and deletes the old one. The cursor is the store revision read before
   * the first merchant was: changes made during the build are caught up by the follower.
   */
  async function rebuild(onProgress?: (done: number, total: number) => void): Promise<void> {
    const revision = await source.revision();
    const buildUid = `${uid}_build`;
    await writer.deleteIndexIfExists(buildUid);
    const build = await ensureIndex(buildUid);
    // The swap needs the index searches read to exist; its settings go with it when it is swapped out.
    const live = await writer
      .getIndex(uid)
      .then(() => true)
      .catch(() => false);
    if (!live) await ensureIndex(uid);
    const order = await source.listedByTrust(now());
    onProgress?.(0, order.length);
    let pending: Promise<unknown>[] = [];
    for (let start = 0; start < order.length; start += BATCH_SIZE) {
      const ids = order.slice(start, start + BATCH_SIZE).map((entry) => entry.abId);
      const { documents } = await source.listedDocuments(ids, now());
      // Enqueue while the previous batches index; wait before the queue grows past two.
      const batch = await toMeili(documents);
      pending.push(
        build
          .addDocuments(batch, { primaryKey: "ab_id" })
          .waitTask()
          .then((task) => {
            if (task.status !== "succeeded") throw new Error(`Meilisearch refused documents: ${task.error?.message}`);
          }),
      );
      if (pending.length >= 2) {
        await Promise.all(pending);
        pending = [];
      }
      onProgress?.(Math.min(order.length, start + ids.length), order.length);
    }
    await Promise.all(pending);
    const swap = await writer.swapIndexes([{ indexes: [uid, buildUid], rename: false }]).waitTask();
    if (swap.status !== "succeeded") throw new Error(`Meilisearch index swap failed: ${swap.error?.message}`);
    await writer.deleteIndex(buildUid).waitTask();
    await writeCursor(revision);
    onProgress?.(order.length, order.length);
  }

  async function readCursor(): Promise<number | null> {
    try {
      const doc = await reader.index<{ id: string; cursor: number; format: string }>(metaUid).getDocument("sync");
      return typeof doc.cursor === "number" && doc.format === format ? doc.cursor : null;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async function buildUnderWay(): Promise<boolean> {
    try {
      const build = await reader.getRawIndex(`${uid}_build`);
      return now().getTime() - Date.parse(build.updatedAt) < BUILD_QUIET_MS;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  async function writeCursor(revision: number): Promise<void> {
    const task = await writer
      .index(metaUid)
      .addDocuments([{ id: "sync", cursor: revision, format, at: now().toISOString() }], {
        primaryKey: "id",
      })
      .waitTask();
    if (task.status !== "succeeded") throw new Error(`Meilisearch refused the cursor: ${task.error?.message}`);
  }

  async function search(query: SearchQuery): Promise<SearchPage> {
    const normalized = normalizeSearchQuery(query);
    if (normalized === null) return { hits: [], estimatedTotal: 0 };
    const { terms, tags, near, limit, offset, identifier, nafCodes, opening } = normalized;
    const index = reader.index<MeiliDocument>(uid);
    // Without a radius, the point ranks and keeps the placed merchants only (as with one).
    const nearest = near !== null && near.radiusKm === null;
    const geo = near
      ? `_geoRadius(${near.lat}, ${near.lng}, ${near.radiusKm === null ? ANYWHERE_M : Math.ceil(near.radiusKm * 1000 * RADIUS_SLACK)})`
      : null;
    const isOpen = (doc: MeiliDocument) => passesOpening(scheduleFromStore(doc.schedule ?? null), opening);

    if (identifier) {
      const found = await index.search("", {
        filter: identifierFilter(identifier),
        limit: MAX_SEARCH_DEPTH,
        attributesToRetrieve: ["ab_id", "trust", "_geo", "schedule"],
      });
      if (found.hits.length > 0) {
        const byTrust = found.hits.filter(isOpen).sort((a, b) => b.trust - a.trust || (a.ab_id < b.ab_id ? -1 : 1));
        const hits = byTrust.map(
          (doc): SearchHit => ({
            abId: doc.ab_id,
            score: 100,
            distanceKm: near && doc._geo ? roundKm(haversineKm(near, doc._geo)) : null,
            matchedProductIds: [],
            matched: ["identifier"],
          }),
        );
        if (hits.length > 0) return { hits: hits.slice(offset, offset + limit), estimatedTotal: hits.length };
      }
    }
    if (terms.length === 0 && tags.length === 0 && nafCodes.length === 0 && near === null) {
      return { hits: [], estimatedTotal: 0 };
    }

    const filters: string[] = [
      ...tags.map((tag) => `tag_filter = ${quoteFilter(tag)}`),
      ...nafCodes.map((code) => `naf = ${quoteFilter(code)}`),
      // The opening tokens keep a superset; the exact rule runs on the candidates below.
      ...opening.map((check) => `opening IN [${check.tokens.map(quoteFilter).join(", ")}]`),
    ];
    if (geo) filters.push(geo);
    const hasText = terms.length > 0;
    const depth = offset + limit;
    const wanted = Math.max(pool, depth);
    const params: SearchParams = {
      // Without words, every merchant the filters keep is a candidate: trust and distance rank
      // them (without a radius, the nearest are enough). The opening filters scan up to the
      // deepest page for what passes their exact rule.
      limit:
        opening.length > 0
          ? MAX_SEARCH_DEPTH
          : nearest
            ? hasText
              ? wanted
              : depth
            : hasText
              ? wanted
              : MAX_SEARCH_DEPTH,
      offset: 0,
      matchingStrategy: "all",
      showRankingScore: true,
      attributesToRetrieve: ["ab_id", "trust", "_geo", ...(opening.length > 0 ? ["schedule"] : [])],
      ...(filters.length > 0 ? { filter: filters.join(" AND ") } : {}),
      ...(nearest && near ? { sort: [`_geoPoint(${near.lat}, ${near.lng}):asc`] } : {}),
    };
    // A trade word never makes a merchant a match through its town alone (vocabulary.ts): a
    // query of one trade word is not matched against the place nor the description (which names
    // the town too); with more words, a hit that matched in those only is left out.
    const tradeQuery = hasText && terms.some((term) => term.trade);
    if (tradeQuery && terms.length === 1) {
      params.attributesToSearchOn = SEARCHABLE.filter((attribute) => !TOWN_ATTRIBUTES.has(attribute));
    }
    const text = hasText ? queryText(terms) : "";
    let degraded: SearchPage["degraded"];
    let answer: { hits: Hits<MeiliDocument>; estimatedTotalHits?: number | undefined };
    let candidates: Hits<MeiliDocument>;
    /** The hits found by the vector alone (not by the words). */
    const byMeaning = new Set<string>();
    if (embedder && query.vector && hasText) {
      const hybrid = await hybridSearch(text, query.vector, params);
      if (hybrid) {
        // Nearest neighbours always exist: one is kept when the words match it too, or when it
        // is at least as similar as the embedder's floor (Meilisearch scores it (1 + cosine) / 2).
        const floor = (1 + embedder.minSimilarity) / 2;
        const byWords = new Set(hybrid.words.hits.map((hit) => hit.ab_id));
        candidates = hybrid.hybrid.hits.filter((hit) => {
          if (byWords.has(hit.ab_id)) return true;
          const similarity = hit._rankingScoreDetails?.vectorSort?.similarity;
          if (typeof similarity !== "number" || similarity < floor) return false;
          byMeaning.add(hit.ab_id);
          return true;
        });
        // Meilisearch counts every neighbour it merged: the words' count and the neighbours kept
        // say more (and when the pool was not filled, the candidates kept are all there is).
        answer = {
          hits: hybrid.hybrid.hits,
          estimatedTotalHits:
            hybrid.hybrid.hits.length < (params.limit ?? 0)
              ? undefined
              : (hybrid.words.estimatedTotalHits ?? 0) + byMeaning.size,
        };
      } else {
        degraded = "embedding_unavailable";
        answer = await index.search(text, params);
        candidates = answer.hits;
      }
    } else {
      answer = await index.search(text, params);
      candidates = answer.hits;
    }
    let estimatedTotal = answer.estimatedTotalHits ?? candidates.length;
    if (opening.length > 0) {
      // The exact rule, in Meilisearch's order: what passes is the answer (up to the deepest page),
      // and its count among those scanned.
      candidates = candidates.filter(isOpen);
      estimatedTotal = candidates.length;
      if (hasText || nearest) candidates = candidates.slice(0, nearest && !hasText ? depth : wanted);
    }
    const weights = weightsFor(hasText, near !== null);
    const best = candidates.reduce((max, hit) => Math.max(max, hit._rankingScore ?? 0), 0);
    const ranked = candidates
      .map((doc) => {
        const distanceKm = near && doc._geo ? haversineKm(near, doc._geo) : null;
        const text = hasText ? (best > 0 ? (doc._rankingScore ?? 0) / best : 1) : 1;
        const score =
          nearest && distanceKm !== null
            ? nearestScore(text, distanceKm)
            : blendedScore({ text, trust: doc.trust, distanceKm, radiusKm: near?.radiusKm ?? null }, weights);
        return { doc, distanceKm, score };
      })
      .filter(
        (entry) =>
          near === null || (entry.distanceKm !== null && (near.radiusKm === null || entry.distanceKm <= near.radiusKm)),
      )
      .sort(
        (a, b) =>
          b.score - a.score ||
          (nearest ? b.doc.trust - a.doc.trust : 0) ||
          (a.distanceKm ?? 0) - (b.distanceKm ?? 0) ||
          (a.doc.ab_id < b.doc.ab_id ? -1 : a.doc.ab_id > b.doc.ab_id ? 1 : 0),
      );
    const pageOf = ranked.slice(offset, offset + limit);
    const pageIds = pageOf.map((entry) => entry.doc.ab_id);
    const products = pageOf.length > 0 ? await source.readProducts(pageIds) : new Map<string, ProductRow[]>();
    // What matched, asked for the page's merchants alone: match positions over the whole pool
    // cost Meilisearch ten times the search itself (long descriptions and catalogues).
    const positions = new Map<string, Record<string, unknown>>();
    if (hasText && pageIds.length > 0) {
      const matches = await index.search(queryText(terms), {
        filter: `ab_id IN [${pageIds.map(quoteFilter).join(", ")}]`,
        limit: pageIds.length,
        matchingStrategy: "all",
        showMatchesPosition: true,
        attributesToRetrieve: ["ab_id"],
        ...(params.attributesToSearchOn ? { attributesToSearchOn: params.attributesToSearchOn } : {}),
      });
      for (const doc of matches.hits) positions.set(doc.ab_id, doc._matchesPosition ?? {});
    }
    const hits = pageOf.map(({ doc, distanceKm, score }): SearchHit => {
      const matched = new Set<MatchedField>();
      if (tags.length > 0) matched.add("tag");
      if (nafCodes.length > 0) matched.add("trade");
      for (const attribute of Object.keys(positions.get(doc.ab_id) ?? {})) {
        const field = FIELD_OF[attribute];
        if (field) matched.add(field);
      }
      if (byMeaning.has(doc.ab_id)) matched.add("meaning");
      return {
        abId: doc.ab_id,
        score,
        distanceKm: distanceKm === null ? null : roundKm(distanceKm),
        matchedProductIds: matchProducts((products.get(doc.ab_id) ?? []).map(prepareProduct), terms, tags),
        matched: MATCHED_FIELDS.filter((field) => matched.has(field)),
      };
    });
    // A hybrid answer that did not fill the pool held every candidate: those kept are the total.
    return {
      hits,
      estimatedTotal: Math.min(MAX_SEARCH_DEPTH, Math.max(estimatedTotal, ranked.length)),
      ...(degraded ? { degraded } : {}),
    };
  }

  /**
   * The hybrid search (words and vector merged by Meilisearch) and, in the same request, the
   * words alone over the same pool: which candidates the words match. Null when Meilisearch
   * refuses the vector (an index built before this embedder, another dimension): the words alone
   * then answer, flagged. A Meilisearch that does not answer throws, as for any search.
   */
  async function hybridSearch(text: string, vector: readonly number[], params: SearchParams) {
    if (!embedder) return null;
    try {
      const { results } = await reader.multiSearch<MultiSearchParams, MeiliDocument>({
        queries: [
          {
            indexUid: uid,
            q: text,
            ...params,
            hybrid: { embedder: embedder.name, semanticRatio },
            vector: [...vector],
            // How similar each neighbour is (vectorSort).
            showRankingScoreDetails: true,
          },
          { indexUid: uid, q: text, ...params, showRankingScore: false, attributesToRetrieve: ["ab_id"] },
        ],
      });
      const [hybrid, words] = results;
      return hybrid && words ? { hybrid, words } : null;
    } catch (error) {
      if (isRefusal(error)) return null;
      throw error;
    }
  }

  return {
    name: "meilisearch",
    search,
    refresh,
    rebuild,
    readCursor,
    writeCursor,
    buildUnderWay,
    ping: async () => {
      await reader.health();
    },
  };
}

function meiliDocument(doc: MerchantDocument): MeiliDocument {
  return {
    ab_id: doc.abId,
    siret: doc.siret,
    siren: doc.siret.slice(0, 9),
    name: doc.name,
    trade: doc.trade,
    products: doc.products,
    tags: doc.tagsText,
    place: doc.place,
    about: doc.about,
    tag_filter: doc.tags,
    naf: [...new Set([doc.nafCode, doc.nafCode2025 ?? ""].filter((code) => code !== ""))],
    sector: doc.sector,
    department: doc.departmentCode,
    status: doc.status,
    trust: doc.trust,
    _geo: doc.lat !== null && doc.lng !== null ? { lat: doc.lat, lng: doc.lng } : null,
    opening: doc.openingTokens,
    schedule: doc.schedule,
  };
}

/** The normalised terms as Meilisearch reads them: a trailing space when the last one is a whole word. */
function queryText(terms: readonly QueryTerm[]): string {
  const text = terms.map((term) => term.term).join(" ");
  return terms.at(-1)?.prefix ? text : `${text} `;
}

/** Filter values hold letters, digits and spaces only (normalised); quoting is belt and braces. */
function quoteFilter(value: string): string {
  return `"${value.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

function identifierFilter(identifier: Identifier): string {
  const attribute = identifier.kind === "ab_id" ? "ab_id" : identifier.kind;
  return `${attribute} = ${quoteFilter(identifier.value)}`;
}

/** Meilisearch answered, with a 4xx: the request was refused (not a failure of Meilisearch itself). */
function isRefusal(error: unknown): boolean {
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause instanceof MeilisearchHttpError && cause.status >= 400 && cause.status < 500;
}

function isNotFound(error: unknown): boolean {
  const cause = (error as { cause?: unknown } | null)?.cause;
  const code = cause instanceof MeilisearchHttpError ? cause.code : (cause as { code?: string } | undefined)?.code;
  return code === "index_not_found" || code === "document_not_found";
}
