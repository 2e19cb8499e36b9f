import { statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { fixedAnswerWriter, writeAnswer } from "../http/conventions.ts";
import type { Reply } from "../http/reply.ts";
import { addDiscoveryLinks, discoveryLinks } from "../openapi/link-header.ts";
import { MANIFEST_CACHE_MAX_SECONDS } from "../signing/policy.ts";
import { openPackIndexReader, type PackIndexReader, packIndexFile } from "../store/pack-index.ts";
import type { PublishSource } from "../store/publish-source.ts";
import {
  DOCUMENT_CACHE_CONTROL,
  etagOf,
  JSON_TYPE,
  JSONLD_TYPE,
  MARKDOWN_TYPE,
  matchesIfNoneMatch,
} from "./document.ts";
import { matchPublishedPath, type PublishedKind, publishedPath } from "./documents.ts";
import { PackReader } from "./pack-files.ts";
import { STATE_DIRNAME } from "./publish-folder.ts";
import type { ServeEntry } from "./serve-index.ts";
import { isPublishedStatus } from "./view.ts";

const CONTENT_TYPES: Record<PublishedKind, string> = {
  jsonld: JSONLD_TYPE,
  "ai-digest": JSON_TYPE,
  "decision-card": JSON_TYPE,
  "ai-md": MARKDOWN_TYPE,
  snapshot: JSON_TYPE,
};

/** A snapshot closer than this to its expiry is not served from the folder (the live route signs a fresh one). */
const SNAPSHOT_MIN_REMAINING_MS = 60_000;
const INDEX_RECHECK_MS = 1000;
/**
 * When the store moved by more writes than this since the kept stamps were read, they are all
 * dropped rather than the touched merchants listed (each write moves the revision by one or more).
 */
const MAX_TOUCHES_FOLLOWED = 5_000;
/** Kept store stamps, at most (about 100 bytes each); past this they are dropped and read again. */
const MAX_KEPT_STAMPS = 200_000;
/** Kept serve entries of the packs' committed generation, at most. */
const MAX_KEPT_ENTRIES = 200_000;

/**
 * What the fast path reads from the store: the store revision (moved by every write to a
 * merchant's published inputs, from any connection), the merchants written since a revision, and
 * one merchant's status and source stamp.
 */
export type FastPathStore = Pick<PublishSource, "revision" | "touchedSince" | "stampOf" | "knownRevision">;

export interface FastPathOptions {
  publishDir: string;
  /** What the store says about a merchant now (status and source stamp), and when that changes. */
  store: FastPathStore;
  /** The server's publish key (BASE_URL, order rail, format): files published under another one are not served. */
  publishKey: string;
  nowMs?: () => number;
  /** The agent-access kill switch: while on, every request goes to the routes (503 SERVICE_SUSPENDED). */
  isSuspended?: () => boolean;
  /** BASE_URL, for the Link header routes put on the same documents. */
  baseUrl?: string;
  /** Bytes of file bodies kept in memory (default 64 MiB). */
  maxCacheBytes?: number;
  /** How often the packs' index is asked for a new generation (ms, default 1000). */
  indexRecheckMs?: number;
}

export interface FastPathStats {
  served: number;
  notModified: number;
  passed: number;
}

export interface PublishedFastPath {
  /**
   * Answers the request from the publish folder when it can; false: let the next handler answer.
   * Synchronous when the store revision is known without waiting and the merchant's stamp is kept
   * (the common case: no Promise per request); a Promise when it must read the store.
   */
  handle(request: IncomingMessage, response: ServerResponse): boolean | Promise<boolean>;
  stats(): FastPathStats;
}

interface CachedFile {
  body: Buffer;
  etag: string;
  /** The answer, written as the conventions say, built once (not for snapshots: their cache lifetime follows the clock). */
  write: ((request: IncomingMessage, response: ServerResponse) => void) | null;
}

/**
 * The published-file fast path in front of the routes. A request for a published document is
 * answered from `DATA_DIR/publish/<url path>` when the file is fresh:
 *
 * - the serve index (written by the refresh job) lists the merchant under this server's publish key;
 * - the store's source stamp of the merchant equals the one the file was rendered from, and the
 *   merchant is still published;
 * - the content period has not ended (a signal expiry, an anniversary: period.ts), and a snapshot
 *   manifest is more than a minute from its expiry;
 * - agent access is not suspended, and the request presents no API key (the guard checks keys).
 *
 * What a request costs is one read of the store revision and a few map lookups: the store's stamp
 * of a merchant is kept until a write touches that merchant (`merchant_touches`, read when the
 * revision moves), and a file's bytes and headers until the refresh job writes a new serve index
 * (it rewrites the index after the files of every run; the index is looked at once a second).
 * Until then the bytes kept are the ones the index vouches for.
 *
 * Published documents are not counted against rate limits here: they are static artifacts a CDN
 * would serve as well (the spec rate-limits search, resolve, leads, orders, registration and tools).
 * Otherwise the request falls through to the route, which renders the same bytes on demand. The
 * answer has the strong ETag of its bytes, 304 on If-None-Match, and the same headers as the route.
 */
export function createPublishedFastPath(options: FastPathOptions): PublishedFastPath {
  const nowMs = options.nowMs ?? Date.now;
  const stateDir = path.join(options.publishDir, STATE_DIRNAME);
  const indexFile = packIndexFile(stateDir);
  const maxCacheBytes = options.maxCacheBytes ?? 64 * 1024 * 1024;
  const indexRecheckMs = options.indexRecheckMs ?? INDEX_RECHECK_MS;
  const cache = new Map<string, CachedFile>();
  let cacheBytes = 0;
  /** The packs' index and reader, the generation last seen and its publish key. */
  let packIndex: PackIndexReader | null = null;
  let packs: PackReader | null = null;
  let indexSignature = "";
  let generation = -1;
  let servedKey: string | null = null;
  let indexCheckedAt = Number.NEGATIVE_INFINITY;
  /** Each merchant's serve entry in the committed generation (null: not served), kept until the next one. */
  const entries = new Map<string, ServeEntry | null>();
  const counters: FastPathStats = { served: 0, notModified: 0, passed: 0 };
  /** The store's stamp of each merchant asked for, null when it is not published, as of `stampsRevision`. */
  const storeStamps = new Map<string, string | null>();
  let stampsRevision = -1;

  const forgetGeneration = () => {
    cache.clear();
    cacheBytes = 0;
    entries.clear();
  };

  /**
   * The packs' index as of its committed generation, asked at most once a second: a new
   * generation (a refresh or the mirror committed) drops what was kept of the last one. The file
   * replaced or removed (a publish folder deleted by hand) is opened again.
   */
  const currentIndex = (): PackIndexReader | null => {
    const at = performance.now();
    if (at - indexCheckedAt < indexRecheckMs) return packIndex;
    indexCheckedAt = at;
    const stat = statSync(indexFile, { throwIfNoEntry: false });
    const signature = stat ? `${stat.dev}:${stat.ino}` : "";
    if (signature !== indexSignature) {
      indexSignature = signature;
      packs?.close();
      packIndex?.close();
      packIndex = stat ? openPackIndexReader(stateDir) : null;
      const opened = packIndex;
      packs = opened ? new PackReader(stateDir, (id) => opened.dictionary(id)) : null;
      generation = -1;
    }
    if (packIndex) {
      try {
        const committed = packIndex.committed();
        if (committed.generation !== generation) {
          generation = committed.generation;
          servedKey = committed.publishKey;
          forgetGeneration();
        }
      } catch {
        // Not made yet (a first refresh creating its tables): nothing is served.
        servedKey = null;
      }
    }
    return packIndex;
  };

  const entryOf = (index: PackIndexReader, abId: string): ServeEntry | null => {
    const kept = entries.get(abId);
    if (kept !== undefined) return kept;
    const record = index.serve(abId);
    const entry: ServeEntry | null = record
      ? {
          stamp: record.stamp,
          until: record.until,
          untilMs: record.until === null ? Number.POSITIVE_INFINITY : Date.parse(record.until),
          snapshotExpiresMs: record.snapshotExpiresAt === null ? Number.NaN : Date.parse(record.snapshotExpiresAt),
          snapshotExpiresAt: record.snapshotExpiresAt,
        }
      : null;
    if (entries.size >= MAX_KEPT_ENTRIES) entries.clear();
    entries.set(abId, entry);
    return entry;
  };

  /**
   * The store's stamp of a published merchant now, or null. Kept stamps are dropped for the
   * merchants written since they were read; a stamp read after the revision it is kept under can
   * only be newer than that revision, so a later write always drops it. Requests interleave at
   * each read: a stamp is kept only when no other request moved `stampsRevision` during its read.
   * Answered without a Promise when the revision is known at once and the stamp is kept.
   */
  const storeStampOf = (abId: string): string | null | Promise<string | null> => {
    const known = options.store.knownRevision?.() ?? null;
    if (known === null) return options.store.revision().then((revision) => stampAtRevision(abId, revision));
    return stampAtRevision(abId, known);
  };

  const stampAtRevision = (abId: string, revision: number): string | null | Promise<string | null> => {
    if (revision !== stampsRevision) {
      if (stampsRevision < 0 || revision < stampsRevision || revision - stampsRevision > MAX_TOUCHES_FOLLOWED) {
        storeStamps.clear();
        stampsRevision = revision;
      } else {
        return options.store.touchedSince(stampsRevision).then((touched) => {
          for (const touchedId of touched.abIds) storeStamps.delete(touchedId);
          stampsRevision = touched.revision;
          return keptOrReadStamp(abId);
        });
      }
    }
    return keptOrReadStamp(abId);
  };

  const keptOrReadStamp = (abId: string): string | null | Promise<string | null> => {
    const kept = storeStamps.get(abId);
    if (kept !== undefined) return kept;
    const keptUnder = stampsRevision;
    return options.store.stampOf(abId).then((current) => {
      const stamp = current && isPublishedStatus(current.status) ? current.stamp : null;
      if (stampsRevision === keptUnder) {
        if (storeStamps.size >= MAX_KEPT_STAMPS) storeStamps.clear();
        storeStamps.set(abId, stamp);
      }
      return stamp;
    });
  };

  /**
   * A published document by the request path that names it (the snapshot's two paths are kept
   * apart): its frame read from its pack and decoded, its ETag from the hash the index holds.
   */
  const readFile = (index: PackIndexReader, kind: PublishedKind, abId: string, pathname: string): CachedFile | null => {
    const cached = cache.get(pathname);
    if (cached) {
      // Refresh its place in the LRU order.
      cache.delete(pathname);
      cache.set(pathname, cached);
      return cached;
    }
    let body: Buffer | null;
    let etag: string;
    try {
      const location = index.document(publishedPath(kind, abId));
      body = location && packs ? packs.read(location) : null;
      if (!location || !body) return null;
      etag = etagOf(location.sha256);
    } catch {
      // A pack removed or damaged since: the route renders the document.
      return null;
    }
    const file: CachedFile = {
      body,
      etag,
      write:
        kind === "snapshot" ? null : fixedAnswerWriter({ status: 200, headers: answerHeaders(kind, abId, etag), body }),
    };
    if (body.length <= maxCacheBytes / 16) {
      cache.set(pathname, file);
      cacheBytes += body.length;
      for (const [key, value] of cache) {
        if (cacheBytes <= maxCacheBytes) break;
        cache.delete(key);
        cacheBytes -= value.body.length;
      }
    }
    return file;
  };

  /** The route's headers for a document, the Link header included (the same as the route that renders it). */
  const answerHeaders = (
    kind: PublishedKind,
    abId: string,
    etag: string,
    cacheControl = DOCUMENT_CACHE_CONTROL,
    pathname = `/${publishedPath(kind, abId)}`,
  ): Record<string, string> => {
    const answer: Reply = {
      status: 200,
      headers: {
        "content-type": CONTENT_TYPES[kind],
        etag,
        "cache-control": cacheControl,
        "x-content-type-options": "nosniff",
        "x-served-from": "publish-folder",
      },
      body: null,
    };
    if (options.baseUrl) addDiscoveryLinks(answer, discoveryLinks(options.baseUrl, pathname, { ab_id: abId }));
    return answer.headers;
  };

  return {
    stats: () => ({ ...counters }),
    handle(request, response) {
      if (request.method !== "GET" && request.method !== "HEAD") return false;
      const url = request.url ?? "/";
      const query = url.indexOf("?");
      const pathname = query === -1 ? url : url.slice(0, query);
      const match = matchPublishedPath(pathname, query === -1 ? "" : url.slice(query));
      if (!match) return false;
      const pass = () => {
        counters.passed += 1;
        // The folder's snapshot path has no route of its own: the manifest route answers it live.
        if (match.kind === "snapshot" && pathname.endsWith("/snapshot")) {
          request.url = `/api/registry/verify/${match.abId}?snapshot=1`;
        }
        return false;
      };
      // A presented API key is checked by the route's guard (a bad one is 401, never a silent downgrade).
      if (request.headers.authorization !== undefined || request.headers["x-api-key"] !== undefined) return pass();
      if (options.isSuspended?.()) return pass();

      const served = currentIndex();
      if (!served || servedKey !== options.publishKey) return pass();
      let entry: ServeEntry | null;
      try {
        entry = entryOf(served, match.abId);
      } catch {
        return pass();
      }
      const now = nowMs();
      if (!entry || now >= entry.untilMs) return pass();
      let snapshotCacheControl: string | null = null;
      if (match.kind === "snapshot") {
        const remaining = entry.snapshotExpiresMs - now;
        if (!(remaining > SNAPSHOT_MIN_REMAINING_MS)) return pass();
        snapshotCacheControl = `public, max-age=${Math.min(MANIFEST_CACHE_MAX_SECONDS, Math.floor(remaining / 1000))}`;
      }
      const answer = (stamp: string | null): boolean => {
        if (stamp !== entry.stamp) return pass();
        const file = readFile(served, match.kind, match.abId, pathname);
        if (!file) return pass();
        if (matchesIfNoneMatch(request.headers["if-none-match"], file.etag)) counters.notModified += 1;
        else counters.served += 1;
        // X-Request-Id (fixed on the request by jobs/serve.ts), CORS, 304 on If-None-Match and
        // compression: the server's conventions, as on the routes.
        if (file.write) file.write(request, response);
        else {
          const headers = answerHeaders(match.kind, match.abId, file.etag, snapshotCacheControl ?? undefined, pathname);
          writeAnswer(request, response, { status: 200, headers, body: file.body });
        }
        return true;
      };
      const stamp = storeStampOf(match.abId);
      return stamp instanceof Promise ? stamp.then(answer) : answer(stamp);
    },
  };
}
