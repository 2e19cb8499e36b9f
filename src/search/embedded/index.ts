import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { openConnection } from "../../store/connection.ts";
import type { Db } from "../../store/db.ts";
import { writeLock } from "../../store/write-lock.ts";
import type { SearchIndex, SearchPage, SearchQuery } from "../search-index.ts";
import { createSearchSource, createSynchronousSearchSource, type SearchSource } from "../source.ts";
import {
  createGenerationTables,
  EMPTY_PAGE,
  type EmbeddedSearchIndexOptions,
  type Generation,
  openGeneration,
  type StoreBeside,
} from "./generation.ts";
import { dropStoreFileTables } from "./old-tables.ts";
import { CATALOG_STATEMENTS, INDEX_FORMAT } from "./tables.ts";

export type { EmbeddedSearchIndexOptions } from "./generation.ts";

/*
 * The embedded index on disk: DATA_DIR/search-index/, whatever the store's engine. A small
 * catalog (catalog.db, tables.ts CATALOG_STATEMENTS) names the generation that answers; each
 * generation is a SQLite file of its own (generation-<n>.db, generation.ts). A full build writes
 * a new generation page by page, reading the store in keyset pages (SearchSource.listedPage: by
 * ab_id, one snapshot a page), never taking the store's write lock and holding one page in
 * memory; the generation records the last ab_id it wrote with each page, so a build killed midway
 * goes on from there. Once every page is in, its FTS segments are merged step by step, then the
 * catalog switches to it in one transaction and the generations before it are deleted.
 *
 * Meanwhile searches answer from what is indexed: the current generation, else the one being
 * built (its pages so far, most trusted first: tables.ts idInBand), flagged `index_building`;
 * health says `building` with the build's progress (the catalog's copy, any process).
 *
 * Every write (a build's page, a follower's step, the switch) runs under the catalog's write lock
 * (write-lock.ts whenFree: the thread free while another process holds it), the generation's own
 * transaction inside it: writers of one folder, in any process, take turns, and a step checks
 * what it builds on (the cursor, the build's last ab_id) under the lock before it writes.
 */

/** The index's folder in DATA_DIR. */
export const SEARCH_INDEX_DIR = "search-index";
const CATALOG_FILE = "catalog.db";
const generationFile = (dir: string, id: number) => path.join(dir, `generation-${id}.db`);

/** A build's page aims at this long on the thread (reading the store, then writing the page). */
const PAGE_TARGET_MS = 50;
const FIRST_PAGE = 200;
const SMALLEST_PAGE = 20;
const LARGEST_PAGE = 2_000;
/** FTS pages a merge step writes (a few MB, tens of ms). */
const MERGE_STEP_PAGES = 256;
/** Merchants a refresh reads from the store and writes at a time. */
const REFRESH_CHUNK = 500;
/** How long a last try for the catalog's lock waits on the thread (write-lock.ts whenFree). */
const CATALOG_BUSY_MS = 100;
/** A build whose catalog row moved within this long is under way (in some process). */
const BUILD_ALIVE_MS = 60_000;

export interface BuildProgress {
  done: number;
  total: number;
}

/** The embedded index, wherever the store is. */
export interface EmbeddedSearchIndex extends SearchIndex {
  /** Answers from the current generation; from a build's pages so far (flagged index_building) while there is none. */
  search(query: SearchQuery): SearchPage;
  /** Builds a new generation (or goes on with the one under way), then switches to it. */
  rebuild(onProgress?: (done: number, total: number) => void): Promise<void>;
  /** Reads these merchants from the store and applies them to the current generation (the cursor stays). */
  refresh(abIds: string[]): Promise<void>;
  /** Reads these merchants, then applies them and moves the cursor from `from` to `through` (false: moved meanwhile). */
  refreshThrough(abIds: string[], from: number, through: number): Promise<boolean>;
  /** The current generation's cursor (the store revision it reflects); null when there is none. */
  readCursor(): number | null;
  writeCursor(revision: number): Promise<void>;
  /** True while no generation of this format is whole (a search answers from a build's pages meanwhile). */
  needsRebuild(): boolean;
  /** A build under way, in this process or another (its catalog row moved within the last minute); null when none. */
  building(): BuildProgress | null;
  readonly dir: string;
  close(): void;
}

/** The same index: the name the PostgreSQL deployment's wiring uses. */
export type LocalSearchIndex = EmbeddedSearchIndex;

export interface GenerationsOptions extends EmbeddedSearchIndexOptions {
  /** How long a write waits for the catalog's lock another process holds (write-lock.ts whenFree; default 30 s). */
  lockPatienceMs?: number;
  /** Merchants a build's page reads; default sized by time (PAGE_TARGET_MS). */
  pageSize?: number;
}

/**
 * The index of the SQLite store: in DATA_DIR/search-index/ beside the store's file, built from
 * the store's reads; a returned merchant touched since its generation applied it is described
 * from the store. The old layout's tables in the store's own file are dropped in the background,
 * a round at a time (old-tables.ts).
 */
export function createEmbeddedSearchIndex(db: Db, options: GenerationsOptions = {}): EmbeddedSearchIndex {
  const file = db.$client.name;
  const inMemory = file === "" || file === ":memory:";
  const dir = inMemory
    ? mkdtempSync(path.join(os.tmpdir(), "abeille-search-index-"))
    : path.join(path.dirname(file), SEARCH_INDEX_DIR);
  const reads = createSynchronousSearchSource(db);
  if (!db.$client.readonly && !inMemory) void dropStoreFileTables(db.$client).catch(() => undefined);
  return createGenerations(dir, createSearchSource(db), reads, { ...options, readonly: db.$client.readonly });
}

/** The index of a store elsewhere (PostgreSQL): in `dir` (DATA_DIR/search-index/), built from `source`. */
export function createLocalSearchIndex(
  dir: string,
  source: SearchSource,
  options: GenerationsOptions = {},
): LocalSearchIndex {
  return createGenerations(dir, source, null, options);
}

interface CatalogRow {
  id: number;
  state: "building" | "current" | "retired";
  from_revision: number;
  done: number;
  total: number;
  updated_at: string;
}

interface Handle {
  id: number;
  connection: ReturnType<typeof openConnection>;
  generation: Generation;
}

function createGenerations(
  dir: string,
  source: SearchSource,
  beside: StoreBeside | null,
  options: GenerationsOptions & { readonly?: boolean },
): EmbeddedSearchIndex {
  const now = options.now ?? (() => new Date());
  const readonly = options.readonly ?? false;
  let catalog: ReturnType<typeof openConnection> | null = null;
  let liveStatement: ReturnType<ReturnType<typeof openConnection>["prepare"]> | null = null;
  const handles = new Map<number, Handle>();
  /** Set while this process builds: health says building whatever the row's age. */
  let buildingHere = false;

  function openCatalog(): ReturnType<typeof openConnection> | null {
    if (catalog) return catalog;
    const file = path.join(dir, CATALOG_FILE);
    if (readonly) {
      if (!existsSync(file)) return null;
      catalog = openConnection(file, { readonly: true, storeMigrations: false, small: true });
      return catalog;
    }
    // A short busy timeout: writers wait for the catalog's lock in whenFree, the thread free
    // (write-lock.ts); SQLite's own wait, past their patience, would hold the thread.
    catalog = openConnection(file, { storeMigrations: false, small: true, busyTimeoutMs: CATALOG_BUSY_MS });
    for (const statement of CATALOG_STATEMENTS) catalog.exec(statement);
    return catalog;
  }

  const lock = () => {
    const opened = openCatalog();
    if (!opened) throw new Error("the search index is read-only here");
    return writeLock(opened);
  };
  /** Runs `work` under the catalog's write lock, the thread free while another process holds it. */
  const underLock = <T>(work: () => T): Promise<T> => lock().whenFree(work, options.lockPatienceMs);

  /** The generations of this format that answer or are being built (the catalog as it is now). */
  function live(): { current: CatalogRow | null; building: CatalogRow | null } {
    const opened = openCatalog();
    if (!opened) return { current: null, building: null };
    // Read at every search: prepared once.
    liveStatement ??= opened.prepare(
      `SELECT id, state, from_revision, done, total, updated_at FROM generations
       WHERE format = ? AND state IN ('current', 'building') ORDER BY id DESC`,
    );
    const rows = liveStatement.all(INDEX_FORMAT) as CatalogRow[];
    return {
      current: rows.find((row) => row.state === "current") ?? null,
      building: rows.find((row) => row.state === "building") ?? null,
    };
  }

  /** The generation `id`, opened (once; `create`: a new file, else the file must be there). */
  function handle(id: number, create = false): Handle {
    let found = handles.get(id);
    if (!found) {
      const connection = openConnection(generationFile(dir, id), {
        storeMigrations: false,
        mustExist: !create,
        readonly,
      });
      // A generation holds public documents only, and is deleted whole: deletes need not zero pages.
      if (!readonly) connection.exec("PRAGMA secure_delete = OFF");
      found = { id, connection, generation: openGeneration(connection, beside, options) };
      handles.set(id, found);
    }
    return found;
  }

  /** Closes the handles of generations that are neither current nor being built. */
  function closeStale(keep: readonly (CatalogRow | null)[]): void {
    const ids = new Set(keep.flatMap((row) => (row ? [row.id] : [])));
    for (const [id, opened] of handles) {
      if (ids.has(id)) continue;
      opened.connection.close();
      handles.delete(id);
    }
  }

  /** What answers a search now: the current generation, else the one being built (partial). */
  function readable(): { generation: Generation; partial: boolean } | null {
    const { current, building } = live();
    closeStale([current, building]);
    const row = current ?? building;
    if (!row) return null;
    try {
      return { generation: handle(row.id).generation, partial: current === null };
    } catch {
      // Deleted by another process between the catalog's read and the open: nothing this time.
      return null;
    }
  }

  /** Runs `work` in one IMMEDIATE transaction of a generation (inside the catalog's lock: never waits). */
  const inGeneration = <T>(opened: Handle, work: () => T): T => opened.connection.transaction(work).immediate();

  function search(query: SearchQuery): SearchPage {
    const view = readable();
    if (!view) return { ...EMPTY_PAGE, degraded: "index_building" };
    const page = view.generation.search(query);
    return view.partial ? { ...page, degraded: "index_building" } : page;
  }

  function readCursor(): number | null {
    const { current } = live();
    if (!current) return null;
    return handle(current.id).generation.readCursor();
  }

  async function writeCursor(revision: number): Promise<void> {
    await underLock(() => {
      const { current } = live();
      if (!current) return;
      const opened = handle(current.id);
      inGeneration(opened, () => opened.generation.setCursor(revision));
    });
  }

  async function refresh(abIds: string[]): Promise<void> {
    const unique = uniqueIds(abIds);
    for (let start = 0; start < unique.length; start += REFRESH_CHUNK) {
      // Nothing current: the build under way (or the next) starts from a revision before these changes.
      if (!live().current) return;
      const listed = await source.listedDocumentsAt(unique.slice(start, start + REFRESH_CHUNK), now());
      await underLock(() => {
        const { current } = live();
        if (!current) return;
        const opened = handle(current.id);
        inGeneration(opened, () => opened.generation.writeListed(listed));
      });
    }
  }

  async function refreshThrough(abIds: string[], from: number, through: number): Promise<boolean> {
    const listed = await source.listedDocumentsAt(uniqueIds(abIds), now());
    return underLock(() => {
      // Under the lock: another process following the same feed may have applied them, or
      // switched to a new generation (whose cursor is another).
      const { current } = live();
      if (!current) return false;
      const opened = handle(current.id);
      if (opened.generation.readCursor() !== from) return false;
      inGeneration(opened, () => {
        opened.generation.writeListed(listed);
        opened.generation.setCursor(through);
      });
      return true;
    });
  }

  /** The build under way, or a new one (its row and file), under the lock. */
  async function startOrResume(): Promise<CatalogRow> {
    const found = live().building;
    const total = await source.countListed();
    if (found) {
      await underLock(() =>
        openCatalog()
          ?.prepare("UPDATE generations SET total = ?, updated_at = ? WHERE id = ?")
          .run(total, now().toISOString(), found.id),
      );
      return { ...found, total };
    }
    // Read before the first page: every change after it is in the feed the follower applies once the build is in.
    const fromRevision = await source.revision();
    return underLock(() => {
      const again = live().building; // another process may have started one meanwhile
      if (again) return again;
      const at = now().toISOString();
      const id = Number(
        openCatalog()
          ?.prepare(
            `INSERT INTO generations (format, state, from_revision, total, started_at, updated_at)
             VALUES (?, 'building', ?, ?, ?, ?)`,
          )
          .run(INDEX_FORMAT, fromRevision, total, at, at).lastInsertRowid,
      );
      removeFiles(id); // a file left by a number never committed to the catalog
      const opened = handle(id, true);
      inGeneration(opened, () => {
        createGenerationTables(opened.connection);
        opened.generation.writeMeta("built_at", String(fromRevision));
        opened.generation.writeMeta("build_after", "");
        opened.generation.writeMeta("build_done", "0");
      });
      return { id, state: "building", from_revision: fromRevision, done: 0, total, updated_at: at } as CatalogRow;
    });
  }

  async function rebuild(onProgress?: (done: number, total: number) => void): Promise<void> {
    buildingHere = true;
    try {
      await build(onProgress);
    } finally {
      buildingHere = false;
    }
    await deleteRetired();
  }

  async function build(onProgress?: (done: number, total: number) => void): Promise<void> {
    const row = await startOrResume();
    try {
      await buildGeneration(row, onProgress);
    } catch (error) {
      // A generation being built is written without fsync (see buildGeneration): after an
      // operating system's crash it may be damaged. Retired, the next build starts anew.
      if (isDamaged(error)) {
        await underLock(() =>
          openCatalog()
            ?.prepare("UPDATE generations SET state = 'retired' WHERE id = ? AND state = 'building'")
            .run(row.id),
        );
      }
      throw error;
    }
  }

  async function buildGeneration(row: CatalogRow, onProgress?: (done: number, total: number) => void): Promise<void> {
    // Written without fsync while it is built (synchronous OFF): a checkpoint's fsync on the
    // thread held it up to a second at a time (measured: 359 turns of the event loop late by more
    // than 80 ms over a build of 305,580 merchants, 38 without); a killed process loses nothing
    // (the pages are in the operating system's cache), and the files are flushed, off the
    // thread, before the generation answers.
    handle(row.id).connection.exec("PRAGMA synchronous = OFF");
    let total = row.total;
    let size = Math.max(1, Math.floor(options.pageSize ?? FIRST_PAGE));
    let done = Number(handle(row.id).generation.readMeta("build_done") ?? 0);
    onProgress?.(done, Math.max(total, done));
    // The pages: each read from the store (no lock), then written under the lock if the build is
    // still where it was when the page was read (another process building the same generation
    // may have written it: then read the next one from where that one left it).
    for (;;) {
      const generation = handle(row.id).generation;
      if (generation.readMeta("build_state") === "merging") break;
      const after = generation.readMeta("build_after") ?? "";
      const started = performance.now();
      const page = await source.listedPage(after, size, now());
      const outcome = await underLock(() => {
        const opened = handle(row.id);
        const state = catalogState(row.id);
        if (state !== "building") return "gone" as const;
        if ((opened.generation.readMeta("build_after") ?? "") !== after) return "raced" as const;
        const doneNow = Number(opened.generation.readMeta("build_done") ?? 0) + page.scanned;
        inGeneration(opened, () => {
          if (page.last === null) {
            opened.generation.writeMeta("build_state", "merging");
            return;
          }
          opened.generation.writePage(page.documents);
          opened.generation.writeMeta("build_after", page.last);
          opened.generation.writeMeta("build_done", String(doneNow));
        });
        openCatalog()
          ?.prepare("UPDATE generations SET done = ?, after_key = ?, updated_at = ? WHERE id = ?")
          .run(doneNow, page.last ?? after, now().toISOString(), row.id);
        return doneNow;
      });
      if (outcome === "gone") return; // finished (or replaced) by another process
      if (outcome !== "raced") {
        done = outcome;
        total = Math.max(total, done);
        onProgress?.(done, total);
        if (options.pageSize === undefined) size = nextPageSize(size, performance.now() - started);
      }
      // The server's process answers requests between two pages.
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Every page is in: merge the FTS segments into one b-tree (the fastest layout to query), a
    // step at a time, then switch.
    for (;;) {
      const more = await underLock(() => {
        if (catalogState(row.id) !== "building") return false;
        const opened = handle(row.id);
        return inGeneration(opened, () => opened.generation.mergeStep(MERGE_STEP_PAGES));
      });
      if (!more) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Flushed to disk (the pool's threads, not this one) before it answers, then written as
    // the current generation is.
    await flushFiles(row.id);
    await underLock(() => {
      const current = openCatalog();
      if (!current || catalogState(row.id) !== "building") return;
      const opened = handle(row.id);
      opened.connection.exec("PRAGMA synchronous = NORMAL");
      const fromRevision = (current.prepare("SELECT from_revision FROM generations WHERE id = ?").pluck().get(row.id) ??
        0) as number;
      inGeneration(opened, () => opened.generation.finish(fromRevision));
      const at = now().toISOString();
      // Every other generation is retired, whatever its format: this one answers from now on.
      current.prepare("UPDATE generations SET state = 'retired', updated_at = ? WHERE id <> ?").run(at, row.id);
      current
        .prepare("UPDATE generations SET state = 'current', done = ?, total = ?, updated_at = ? WHERE id = ?")
        .run(done, Math.max(total, done), at, row.id);
    });
    onProgress?.(done, Math.max(total, done));
  }

  /** fsync of a generation's file and its WAL, on libuv's threads. */
  async function flushFiles(id: number): Promise<void> {
    for (const file of [generationFile(dir, id), `${generationFile(dir, id)}-wal`]) {
      const opened = await open(file, "r+").catch(() => null);
      if (!opened) continue;
      try {
        await opened.sync();
      } finally {
        await opened.close();
      }
    }
  }

  function catalogState(id: number): CatalogRow["state"] | undefined {
    return openCatalog()?.prepare("SELECT state FROM generations WHERE id = ?").pluck().get(id) as
      | CatalogRow["state"]
      | undefined;
  }

  function removeFiles(id: number): void {
    const file = generationFile(dir, id);
    for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(`${file}${suffix}`, { force: true });
  }

  /** Deletes the retired generations' files, then their rows. A process that still reads one keeps its open file until it looks at the catalog again. */
  async function deleteRetired(): Promise<void> {
    if (readonly) return;
    await underLock(() => {
      const opened = openCatalog();
      if (!opened) return;
      const retired = opened.prepare("SELECT id FROM generations WHERE state = 'retired'").pluck().all() as number[];
      const { current, building } = live();
      closeStale([current, building]);
      for (const id of retired) {
        removeFiles(id);
        opened.prepare("DELETE FROM generations WHERE id = ?").run(id);
      }
    });
  }

  function building(): BuildProgress | null {
    const row = live().building;
    if (!row) return null;
    const alive = buildingHere || Date.now() - Date.parse(row.updated_at) < BUILD_ALIVE_MS;
    return alive ? { done: row.done, total: Math.max(row.total, row.done) } : null;
  }

  return {
    name: "embedded",
    dir,
    search,
    rebuild,
    refresh,
    refreshThrough,
    readCursor,
    writeCursor,
    needsRebuild: () => live().current === null,
    building,
    close() {
      for (const opened of handles.values()) opened.connection.close();
      handles.clear();
      catalog?.close();
      catalog = null;
      liveStatement = null;
    },
  };
}

/** SQLite's word for a file it cannot read as a database. */
function isDamaged(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^SQLITE_(CORRUPT|NOTADB)/.test(code);
}

/** The next page's size: towards PAGE_TARGET_MS on the thread, at most doubling or halving a step. */
function nextPageSize(size: number, tookMs: number): number {
  const wanted = size * (PAGE_TARGET_MS / Math.max(1, tookMs));
  const bounded = Math.min(size * 2, Math.max(size / 2, wanted));
  return Math.round(Math.min(LARGEST_PAGE, Math.max(SMALLEST_PAGE, bounded)));
}

function uniqueIds(abIds: readonly string[]): string[] {
  return [...new Set(abIds.filter((abId) => typeof abId === "string"))];
}
