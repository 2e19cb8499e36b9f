import { chmodSync, mkdirSync, statSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { migrations } from "./migrations/index.ts";

/** What the repositories that write with raw SQL need of a store: its connection. */
export interface StoreConnection {
  $client: Database.Database;
}

export interface OpenOptions {
  readonly?: boolean;
  /**
   * A connection that touches few pages (the outbox thread's) keeps a small page cache (4 MB): the
   * default (32 MB) is for the server's reads. No connection maps the file (docs/performance.md).
   */
  small?: boolean;
  /**
   * automatic (default): SQLite checkpoints the WAL after the commit that takes it past 1,000
   * pages, on the committing thread: two fsyncs (4 ms and more each on a virtual disk) in the
   * middle of serving requests. primary: `npm start`'s primary does it (wal-checkpoints.ts), and
   * this connection checkpoints only past a backstop, should the primary fall behind. bulk: a
   * command that writes millions of rows (the national SIRENE import) checkpoints past 20,000
   * pages (80 MB): each of its transactions writes thousands of pages, so at 1,000 it paid a
   * checkpoint (a copy and two fsyncs) at nearly every commit, and pages the next transactions
   * wrote again were copied each time (measured: a third more rows a second).
   */
  checkpoints?: "automatic" | "primary" | "bulk";
  /**
   * How long a write waits for the write lock another process holds (SQLite's busy timeout),
   * default 5 s: a server's thread serves requests meanwhile, and its writes try for the lock
   * without waiting first (write-lock.ts). Operator commands wait JOB_BUSY_TIMEOUT_MS.
   */
  busyTimeoutMs?: number;
  /**
   * false: a file that holds no store (the search index's catalog and generations, DATA_DIR/search-index/,
   * src/search/embedded/index.ts): the store's migrations are not applied.
   */
  storeMigrations?: boolean;
  /** true: a file that is gone is an error, never a new empty database (a generation of the search index another process deleted). */
  mustExist?: boolean;
}

/**
 * The busy timeout of the operator commands (imports, merchants, verify, refresh, search): a job
 * has nothing else to do than wait for the lock, and a full build of the embedded search index
 * holds it for its whole length (43 s at 100,000 merchants, docs/performance.md).
 */
export const JOB_BUSY_TIMEOUT_MS = 300_000;

/** Pages (4 KB) past which a connection checkpoints anyway when the primary is meant to. */
const BACKSTOP_CHECKPOINT_PAGES = 10_000;
/**
 * Pages past which a bulk writer checkpoints on its own connection: a backstop, its checkpoint
 * thread (checkpoint-worker.ts) copying the WAL back every 100 ms meanwhile.
 */
const BULK_CHECKPOINT_PAGES = 50_000;

/**
 * Opens DATA_DIR's database in WAL mode and applies the committed migrations: the raw connection,
 * for a thread that needs no query builder (the outbox thread: drizzle and the schema would cost
 * it 8 MB of heap). openDatabase (db.ts) wraps it for everyone else.
 */
export function openConnection(file: string, options: OpenOptions = {}): Database.Database {
  makePrivateDirectory(path.dirname(file));
  const sqlite = new Database(file, { readonly: options.readonly ?? false, fileMustExist: options.mustExist ?? false });
  if (!options.readonly) makePrivateFiles(file);
  sqlite.pragma("journal_mode = WAL");
  // Deleted and overwritten content is zeroed in the file, not left in free space: retention's
  // anonymised names, emails and messages must not stay readable in abeille.db.
  sqlite.pragma("secure_delete = ON");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5_000))}`);
  sqlite.pragma(options.small ? "cache_size = -4096" : "cache_size = -32768");
  sqlite.pragma("mmap_size = 0");
  sqlite.pragma("temp_store = MEMORY");
  if (options.checkpoints === "primary") sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`);
  if (options.checkpoints === "bulk") sqlite.pragma(`wal_autocheckpoint = ${BULK_CHECKPOINT_PAGES}`);
  if (!options.readonly && options.storeMigrations !== false) applyMigrations(sqlite);
  return sqlite;
}

/**
 * DATA_DIR holds personal data (leads) and secrets: readable by the service's user only. Made
 * 0700 when created, and when it already exists with wider permissions and belongs to us; never
 * a shared directory (the sticky bit: /tmp), which everyone else on the machine needs as it is
 * (a database given a path right in /tmp once took /tmp from every other user).
 */
export function makePrivateDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    const { mode } = statSync(dir);
    if ((mode & 0o077) !== 0 && (mode & 0o1000) === 0) chmodSync(dir, 0o700);
  } catch {
    // Not ours to change (a shared mount): the files inside are still 0600.
  }
}

/** A database file and its -wal and -shm companions (SQLite creates those with the file's mode): 0600. */
export function makePrivateFiles(file: string): void {
  for (const candidate of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      chmodSync(candidate, 0o600);
    } catch {
      // Not there yet: created later with the database file's mode.
    }
  }
}

export function applyMigrations(sqlite: Database.Database): string[] {
  sqlite.exec(
    "CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')))",
  );
  const applied = new Set(sqlite.prepare("SELECT id FROM schema_migrations").pluck().all() as string[]);
  const pending = migrations.filter((migration) => !applied.has(migration.id));
  const record = sqlite.prepare("INSERT INTO schema_migrations (id) VALUES (?)");
  // BEGIN IMMEDIATE: two processes starting at once cannot both apply the same migration.
  const apply = sqlite.transaction(() => {
    for (const migration of pending) {
      const stillPending =
        sqlite.prepare("SELECT 1 FROM schema_migrations WHERE id = ?").get(migration.id) === undefined;
      if (!stillPending) continue;
      for (const statement of migration.statements) sqlite.exec(statement);
      record.run(migration.id);
    }
  });
  if (pending.length > 0) apply.immediate();
  return pending.map((migration) => migration.id);
}
