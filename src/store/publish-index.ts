import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import type { PublishedKind } from "../publish/documents.ts";
import type { Publication } from "../publish/publication.ts";

export interface IndexEntry {
  status: string;
  /** Source stamp (store/publish-source.ts) when rendered: what the server compares against the store. */
  stamp: string;
  /** Hash of the whole loaded profile: equal means the renderers' inputs are equal. */
  fingerprint: string;
  since: string;
  until: string | null;
  /** Content hash (base64 SHA-256) of each file written for the merchant. */
  hashes: Partial<Record<PublishedKind, string>>;
  /** The decision card's content_hash: a new one means the snapshot manifest must be re-signed. */
  cardHash: string | null;
  snapshotExpiresAt: string | null;
}

export interface PublishIndex {
  version: 1;
  /** Format version, BASE_URL and order rail: what the published bytes depend on besides the store. */
  publishKey: string;
  /** Hash of the source code that rendered the files (job side only; a change re-renders everything). */
  codeKey: string;
  generatedAt: string;
  merchants: Record<string, IndexEntry>;
  /** Hashes of the files that belong to no merchant (key set, static server configuration). */
  files: Record<string, string>;
  /**
   * The store revision read before the run read any merchant: whatever was written after it is
   * in merchant_touches with a later one, so the next run renders only those (and the due ones).
   * Absent in an index written before migration 0007: the next run reads every stamp.
   */
  cursor?: number;
  /** Merchants that failed to render: the next run tries them again. */
  retry?: string[];
}

/**
 * The refresh job's own record of what it published (DATA_DIR/publish/.abeille/index.db): one row
 * per published merchant, and the run's keys. A run reads the rows of the merchants it renders and
 * of those falling due (indexed by date), and writes the rows that changed, in one transaction:
 * the cost of a run follows what changed, not the size of the registry (the whole index as one
 * JSON file was 56 MB at 100,000 merchants, read and written by every run). Only the refresh job
 * opens it, under its lock; the server reads the serve index instead.
 */
export interface PublishIndexStore {
  /** The last run's keys and bookkeeping, or null when no run completed here. */
  meta(): PublishIndexMeta | null;
  /** The entries of these merchants (absent: not published by the last run). */
  entriesOf(abIds: readonly string[]): Map<string, IndexEntry>;
  /**
   * Merchants whose content period ended by `nowIso`, or whose snapshot manifest expires by
   * `renewBeforeIso` or is missing (when snapshots are published), or that have one although
   * snapshots are not published any more.
   */
  due(nowIso: string, renewBeforeIso: string, snapshots: boolean): string[];
  /** Every merchant the index holds, in ab_id order. */
  abIds(): string[];
  /** How many merchants and merchant files the index holds. */
  counts(): { merchants: number; files: number };
  /**
   * Writes a run's outcome in one transaction: its keys, the entries it wrote (`upserts`, and
   * those it staged), the merchants it withdrew.
   */
  commit(run: { meta: PublishIndexMeta; upserts: Iterable<[string, IndexEntry]>; deletes: Iterable<string> }): void;
  /** Forgets what an earlier run staged and did not commit. */
  clearStaged(): void;
  /** Keeps a run's entries on disk until its commit (a run's memory stays a batch's, whatever the registry's size). */
  stageEntries(entries: readonly [string, IndexEntry][]): void;
  /** Of these merchants, those this run staged. */
  stagedAmong(abIds: readonly string[]): Set<string>;
  /** Index rows this run has not staged, in ab_id order. */
  unstaged(): string[];
  /** Every entry in ab_id order with the columns the serve index needs (stamp, until, snapshot expiry). */
  serveRows(): [abId: string, stamp: string, until: string | null, snapshotExpiresAt: string | null][];
  /** The whole index as one object (tests and tools). */
  snapshot(): PublishIndex | null;
  close(): void;
}

/**
 * The refresh's index as a run reads and writes it, on either engine: on one machine the folder's
 * own SQLite file (openPublishIndex, asPublishIndexPort); on PostgreSQL the shared tables, so that
 * whichever instance leads carries on from the last run, and the run's published documents are
 * written in the same transaction as the index (src/store/postgres/publish-index.ts).
 */
export interface PublishIndexPort {
  /** True when commit writes the run's publication itself (in the index's own transaction). */
  readonly publishesDocuments: boolean;
  meta(): Promise<PublishIndexMeta | null>;
  entriesOf(abIds: readonly string[]): Promise<Map<string, IndexEntry>>;
  due(nowIso: string, renewBeforeIso: string, snapshots: boolean): Promise<string[]>;
  abIds(): Promise<string[]>;
  counts(): Promise<{ merchants: number; files: number }>;
  /**
   * Writes a run's outcome in one transaction; with `publication` (publishesDocuments), its files
   * and the serve index too, and the notice leaves with the commit.
   */
  commit(
    run: { meta: PublishIndexMeta; upserts: Iterable<[string, IndexEntry]>; deletes: Iterable<string> },
    publication?: Publication | null,
  ): Promise<void>;
  serveRows(): Promise<[abId: string, stamp: string, until: string | null, snapshotExpiresAt: string | null][]>;
  snapshot(): Promise<PublishIndex | null>;
  close(): Promise<void>;
  /**
   * Where a run keeps the entries it writes until its commit, when the index keeps them on disk
   * (the folder's SQLite index): the run then holds a batch's entries at a time. Absent (the
   * shared index on PostgreSQL, whose commit publishes the run's documents): the run keeps them.
   */
  staging?: {
    clear(): Promise<void>;
    add(entries: readonly [string, IndexEntry][]): Promise<void>;
    among(abIds: readonly string[]): Promise<Set<string>>;
    unstaged(): Promise<string[]>;
  };
}

/** The folder's SQLite index as the refresh's port (it writes no documents: the folder is the only copy). */
export function asPublishIndexPort(index: PublishIndexStore): PublishIndexPort {
  return {
    publishesDocuments: false,
    meta: async () => index.meta(),
    entriesOf: async (abIds) => index.entriesOf(abIds),
    due: async (nowIso, renewBeforeIso, snapshots) => index.due(nowIso, renewBeforeIso, snapshots),
    abIds: async () => index.abIds(),
    counts: async () => index.counts(),
    commit: async (run) => index.commit(run),
    serveRows: async () => index.serveRows(),
    snapshot: async () => index.snapshot(),
    close: async () => index.close(),
    staging: {
      clear: async () => index.clearStaged(),
      add: async (entries) => index.stageEntries(entries),
      among: async (abIds) => index.stagedAmong(abIds),
      unstaged: async () => index.unstaged(),
    },
  };
}

export interface PublishIndexMeta {
  publishKey: string;
  codeKey: string;
  generatedAt: string;
  /** The store revision the run started from (merchant_touches after it are the next run's work). */
  cursor: number | null;
  /** Hashes of the files that belong to no merchant. */
  files: Record<string, string>;
  /** Merchants that failed to render: the next run tries them again. */
  retry: string[];
}

export const INDEX_DATABASE = "index.db";
/** A run's staged entries (openPublishIndex), beside index.db: `index-run-<pid>-<random>.db`. */
const RUN_DATABASE_PREFIX = "index-run-";

/** Removes the staged-entries files of processes that are gone (killed before they closed the index). */
function sweepRunFiles(stateDir: string): void {
  let names: string[];
  try {
    names = readdirSync(stateDir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^index-run-(\d+)-/.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    let alive = true;
    try {
      process.kill(pid, 0);
    } catch (error) {
      alive = (error as NodeJS.ErrnoException).code === "EPERM";
    }
    if (!alive) rmSync(path.join(stateDir, name), { force: true });
  }
}
/** The JSON index of earlier versions, taken over once. */
const LEGACY_INDEX = "index.json";

/** An index row as both engines store it (the PostgreSQL twin: src/store/postgres/publish-index.ts). */
export interface EntryRow {
  ab_id: string;
  status: string;
  stamp: string;
  fingerprint: string;
  since: string;
  until: string | null;
  hashes: string;
  card_hash: string | null;
  snapshot_expires_at: string | null;
}

export const toEntry = (row: EntryRow): IndexEntry => ({
  status: row.status,
  stamp: row.stamp,
  fingerprint: row.fingerprint,
  since: row.since,
  until: row.until,
  hashes: JSON.parse(row.hashes) as IndexEntry["hashes"],
  cardHash: row.card_hash,
  snapshotExpiresAt: row.snapshot_expires_at,
});

/** An entry as the SQLite index's columns hold it. */
function rowOf(abId: string, entry: IndexEntry) {
  return {
    ab_id: abId,
    status: entry.status,
    stamp: entry.stamp,
    fingerprint: entry.fingerprint,
    since: entry.since,
    until: entry.until,
    hashes: JSON.stringify(entry.hashes),
    file_count: Object.keys(entry.hashes).length,
    card_hash: entry.cardHash,
    snapshot_expires_at: entry.snapshotExpiresAt,
    has_snapshot: entry.hashes.snapshot ? 1 : 0,
    snapshot_due: entry.hashes.snapshot && entry.snapshotExpiresAt ? entry.snapshotExpiresAt : "",
  };
}

export function openPublishIndex(stateDir: string): PublishIndexStore {
  const file = path.join(stateDir, INDEX_DATABASE);
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  // The columns of an entry: the index's rows, and a run's rows until its commit.
  const entryColumns = `
      ab_id TEXT PRIMARY KEY,
      status TEXT NOT NULL,
      stamp TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      since TEXT NOT NULL,
      until TEXT,
      hashes TEXT NOT NULL,
      file_count INTEGER NOT NULL,
      card_hash TEXT,
      snapshot_expires_at TEXT,
      has_snapshot INTEGER NOT NULL,
      -- When the snapshot manifest falls due: its expiry, or '' (before any date) when there is none.
      snapshot_due TEXT NOT NULL`;
  db.exec(`
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS entries (${entryColumns});
    CREATE INDEX IF NOT EXISTS entries_until ON entries (until) WHERE until IS NOT NULL;
    CREATE INDEX IF NOT EXISTS entries_snapshot_due ON entries (snapshot_due);
    CREATE INDEX IF NOT EXISTS entries_with_snapshot ON entries (has_snapshot) WHERE has_snapshot = 1;
  `);
  const readMeta = db.prepare<[string], string>("SELECT value FROM meta WHERE key = ?").pluck();
  const writeMeta = db.prepare<[string, string]>(
    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  );
  const some = db.prepare<[string], EntryRow>(
    "SELECT * FROM entries WHERE ab_id IN (SELECT value FROM json_each(?)) ORDER BY ab_id",
  );
  const dueUntil = db
    .prepare<[string], string>("SELECT ab_id FROM entries WHERE until IS NOT NULL AND until <= ?")
    .pluck();
  const dueSnapshot = db.prepare<[string], string>("SELECT ab_id FROM entries WHERE snapshot_due <= ?").pluck();
  const withSnapshot = db.prepare<[], string>("SELECT ab_id FROM entries WHERE has_snapshot = 1").pluck();
  const all = db.prepare<[], string>("SELECT ab_id FROM entries ORDER BY ab_id").pluck();
  const count = db.prepare<[], { merchants: number; files: number }>(
    "SELECT count(*) AS merchants, coalesce(sum(file_count), 0) AS files FROM entries",
  );
  const upsert = db.prepare(
    `INSERT INTO entries (ab_id, status, stamp, fingerprint, since, until, hashes, file_count, card_hash, snapshot_expires_at, has_snapshot, snapshot_due)
     VALUES (@ab_id, @status, @stamp, @fingerprint, @since, @until, @hashes, @file_count, @card_hash, @snapshot_expires_at, @has_snapshot, @snapshot_due)
     ON CONFLICT (ab_id) DO UPDATE SET status = excluded.status, stamp = excluded.stamp, fingerprint = excluded.fingerprint,
       since = excluded.since, until = excluded.until, hashes = excluded.hashes, file_count = excluded.file_count,
       card_hash = excluded.card_hash, snapshot_expires_at = excluded.snapshot_expires_at, has_snapshot = excluded.has_snapshot,
       snapshot_due = excluded.snapshot_due`,
  );
  const remove = db.prepare<[string]>("DELETE FROM entries WHERE ab_id = ?");
  const serve = db.prepare<[], [string, string, string | null, string | null]>(
    "SELECT ab_id, stamp, until, CASE WHEN has_snapshot = 1 THEN snapshot_expires_at END FROM entries ORDER BY ab_id",
  );
  serve.raw(true);
  const everything = db.prepare<[], EntryRow>("SELECT * FROM entries ORDER BY ab_id");

  const meta = (): PublishIndexMeta | null => {
    const publishKey = readMeta.get("publishKey");
    if (publishKey === undefined) return null;
    const cursor = readMeta.get("cursor");
    return {
      publishKey,
      codeKey: readMeta.get("codeKey") ?? "",
      generatedAt: readMeta.get("generatedAt") ?? "",
      cursor: cursor === undefined || cursor === "" ? null : Number(cursor),
      files: JSON.parse(readMeta.get("files") ?? "{}") as Record<string, string>,
      retry: JSON.parse(readMeta.get("retry") ?? "[]") as string[],
    };
  };

  // A run's entries until its commit live in a file of their own, made anew by each process and
  // removed when it closes the index: staged in index.db, their pages stayed in the file once the
  // commit had moved them (SQLite does not give a file's pages back), and index.db doubled.
  sweepRunFiles(stateDir);
  const runFile = path.join(stateDir, `${RUN_DATABASE_PREFIX}${process.pid}-${randomBytes(3).toString("hex")}.db`);
  db.prepare("ATTACH DATABASE ? AS run").run(runFile);
  db.pragma("run.journal_mode = OFF");
  db.pragma("run.synchronous = OFF");
  db.exec(`CREATE TABLE run.staged_entries (${entryColumns}) WITHOUT ROWID`);
  const COLUMNS =
    "ab_id, status, stamp, fingerprint, since, until, hashes, file_count, card_hash, snapshot_expires_at, has_snapshot, snapshot_due";
  const UPDATE_ALL = `status = excluded.status, stamp = excluded.stamp, fingerprint = excluded.fingerprint,
       since = excluded.since, until = excluded.until, hashes = excluded.hashes, file_count = excluded.file_count,
       card_hash = excluded.card_hash, snapshot_expires_at = excluded.snapshot_expires_at, has_snapshot = excluded.has_snapshot,
       snapshot_due = excluded.snapshot_due`;
  const stage = db.prepare(
    `INSERT INTO staged_entries (${COLUMNS})
     VALUES (@ab_id, @status, @stamp, @fingerprint, @since, @until, @hashes, @file_count, @card_hash, @snapshot_expires_at, @has_snapshot, @snapshot_due)
     ON CONFLICT (ab_id) DO UPDATE SET ${UPDATE_ALL}`,
  );
  const mergeStaged = db.prepare(
    `INSERT INTO entries (${COLUMNS}) SELECT ${COLUMNS} FROM staged_entries WHERE true
     ON CONFLICT (ab_id) DO UPDATE SET ${UPDATE_ALL}`,
  );
  const stagedIn = db
    .prepare<[string], string>("SELECT ab_id FROM staged_entries WHERE ab_id IN (SELECT value FROM json_each(?))")
    .pluck();
  const notStaged = db
    .prepare<[], string>(
      "SELECT ab_id FROM entries WHERE ab_id NOT IN (SELECT ab_id FROM staged_entries) ORDER BY ab_id",
    )
    .pluck();
  const unstage = db.prepare<[string]>("DELETE FROM staged_entries WHERE ab_id = ?");
  const clearStaged = db.prepare("DELETE FROM staged_entries");
  const stageEntries = db.transaction((entries: readonly [string, IndexEntry][]) => {
    for (const [abId, entry] of entries) stage.run(rowOf(abId, entry));
  });

  const commit = db.transaction(
    (run: { meta: PublishIndexMeta; upserts: Iterable<[string, IndexEntry]>; deletes: Iterable<string> }) => {
      for (const abId of run.deletes) {
        remove.run(abId);
        unstage.run(abId);
      }
      mergeStaged.run();
      for (const [abId, entry] of run.upserts) upsert.run(rowOf(abId, entry));
      writeMeta.run("publishKey", run.meta.publishKey);
      writeMeta.run("codeKey", run.meta.codeKey);
      writeMeta.run("generatedAt", run.meta.generatedAt);
      writeMeta.run("cursor", run.meta.cursor === null ? "" : String(run.meta.cursor));
      writeMeta.run("files", JSON.stringify(run.meta.files));
      writeMeta.run("retry", JSON.stringify(run.meta.retry));
      clearStaged.run();
    },
  );
  /** The commit, then the staged rows' pages given back (the run's file is empty by then: instant). */
  const commitAndShrink = (run: Parameters<typeof commit>[0]) => {
    commit.immediate(run);
    db.exec("VACUUM run");
  };

  // An index written by an earlier version (one JSON file): taken over once, so the first run after
  // an upgrade does not render everything again.
  const legacy = path.join(stateDir, LEGACY_INDEX);
  if (existsSync(legacy) && meta() === null) {
    try {
      const old = JSON.parse(readFileSync(legacy, "utf8")) as PublishIndex;
      if (old.version === 1 && typeof old.merchants === "object") {
        commit.immediate({
          meta: {
            publishKey: old.publishKey,
            codeKey: old.codeKey,
            generatedAt: old.generatedAt,
            cursor: typeof old.cursor === "number" ? old.cursor : null,
            files: old.files ?? {},
            retry: old.retry ?? [],
          },
          upserts: Object.entries(old.merchants),
          deletes: [],
        });
      }
    } catch {
      // unreadable: the next run is a full pass
    }
    rmSync(legacy, { force: true });
  }

  return {
    meta,
    entriesOf(abIds) {
      const found = new Map<string, IndexEntry>();
      if (abIds.length === 0) return found;
      for (const row of some.all(JSON.stringify(abIds))) found.set(row.ab_id, toEntry(row));
      return found;
    },
    due(nowIso, renewBeforeIso, snapshots) {
      const found = new Set(dueUntil.all(nowIso));
      for (const abId of snapshots ? dueSnapshot.all(renewBeforeIso) : withSnapshot.all()) found.add(abId);
      return [...found];
    },
    abIds: () => all.all(),
    counts: () => count.get() ?? { merchants: 0, files: 0 },
    commit: (run) => commitAndShrink(run),
    clearStaged: () => void clearStaged.run(),
    stageEntries: (entries) => stageEntries.immediate(entries),
    stagedAmong(abIds) {
      return abIds.length === 0 ? new Set() : new Set(stagedIn.all(JSON.stringify(abIds)));
    },
    unstaged: () => notStaged.all(),
    serveRows: () => serve.all(),
    snapshot() {
      const current = meta();
      if (!current) return null;
      return {
        version: 1,
        publishKey: current.publishKey,
        codeKey: current.codeKey,
        generatedAt: current.generatedAt,
        merchants: Object.fromEntries(everything.all().map((row) => [row.ab_id, toEntry(row)])),
        files: current.files,
        ...(current.cursor === null ? {} : { cursor: current.cursor }),
        retry: current.retry,
      };
    },
    close: () => {
      db.close();
      rmSync(runFile, { force: true });
    },
  };
}
