import { mkdirSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";

/**
 * The index of a machine's published documents (DATA_DIR/publish/.abeille/packs.db, issue 35): where
 * each document's compressed frame lies in the pack files (src/publish/pack-store.ts), with the
 * SHA-256 its ETag is made of, and what the fast path needs of each merchant to serve its
 * documents (the source stamp they were rendered from, until when they hold, the snapshot's
 * expiry).
 *
 * Staged: a writer (the refresh, or on PostgreSQL the machine's mirror) writes its rows under the
 * next generation while readers see only the committed one (`generation <= committed`); the
 * commit moves one row. A run killed before its commit leaves rows nobody reads, dropped by the
 * next `begin`. A row that replaces an older one (or a tombstone, a removal) carries `replaces`
 * until `prune` has deleted the rows it supersedes: pruning never changes what a reader sees, so
 * it runs in small transactions after the commit, and again at the next begin if it was cut short.
 */
export const PACK_INDEX_DATABASE = "packs.db";

export interface DocumentLocation {
  pack: number;
  /** Where the frame starts in the pack, and its length in bytes. */
  offset: number;
  length: number;
  /** The frame's length decoded: the document's, or its packed form's (src/publish/snapshot-packing.ts). */
  size: number;
  /** Base64 SHA-256 of the document's bytes (its strong ETag). */
  sha256: string;
  /** The zstd dictionary the frame was compressed with (dictionaries table); 0: stored as is. */
  dictionary: number;
}

export interface ServeRecord {
  stamp: string;
  until: string | null;
  snapshotExpiresAt: string | null;
}

/** A document row to stage: its location, or null for a document removed; `replaces`: an older row may exist. */
export interface StagedDocument {
  path: string;
  location: DocumentLocation | null;
  replaces: boolean;
}

export interface StagedServe {
  abId: string;
  record: ServeRecord | null;
  replaces: boolean;
}

export interface PackRecord {
  id: number;
  bytes: number;
  /** Bytes of the frames rows point to. */
  live: number;
}

/** What the server reads: only the committed generation. */
export interface PackIndexReader {
  /**
   * The committed generation (0: nothing published yet), the publish key it was made under and
   * the run that made it (the refresh index's generatedAt; a mirror's revision), or nulls.
   */
  committed(): { generation: number; publishKey: string | null; run: string | null };
  document(relative: string): DocumentLocation | null;
  serve(abId: string): ServeRecord | null;
  dictionary(id: number): Buffer | null;
  /** Committed document paths after `after`, in order, at most `limit` (export, a mirror's full catch-up). */
  paths(after: string, limit: number): [string, DocumentLocation][];
  /** Committed serve records after `after`, in ab_id order. */
  serveRecords(after: string, limit: number): [string, ServeRecord][];
  /** Runs reads in one read transaction: they all see the same generation, whatever commits meanwhile. */
  snapshot<T>(work: () => T): T;
  close(): void;
}

export interface PackIndexWriter extends PackIndexReader {
  /**
   * Starts the next generation: rows of one abandoned before its commit are dropped, the pruning
   * a killed run left is finished. Answers the generation and the first pack id free.
   */
  begin(): { generation: number; nextPack: number };
  stageDocuments(generation: number, rows: readonly StagedDocument[]): void;
  stageServe(generation: number, rows: readonly StagedServe[]): void;
  /** Documents as they will be once `generation` commits (staged rows over committed ones). */
  documentsAt(generation: number, paths: readonly string[]): Map<string, DocumentLocation>;
  /** The serve records of these merchants as they will be once `generation` commits. */
  serveAt(generation: number, abIds: readonly string[]): Map<string, ServeRecord>;
  /** The dictionary new frames are compressed with under this publish key, or null. */
  currentDictionary(publishKey: string): { id: number; body: Buffer } | null;
  addDictionary(publishKey: string, body: Buffer): number;
  /** Makes `generation` the one readers see, with the packs it wrote, in one transaction. */
  commit(generation: number, made: { publishKey: string; run: string }, packs: readonly PackRecord[]): void;
  /** Deletes superseded rows (a batch at a time); answers the packs left with no live frame. */
  prune(): number[];
  /** Packs no row points to since an earlier generation than `before`: their files can go. */
  deadPacks(before: number): number[];
  forgetPacks(ids: readonly number[]): void;
  /** Every registered pack. */
  packs(): PackRecord[];
  /** Rows pointing into these packs, at the committed generation (compaction, a lost pack). */
  documentsIn(packs: readonly number[]): [string, DocumentLocation][];
  counts(): { documents: number; merchants: number };
}

/** Rows handled per transaction while pruning: the server's reads wait for none of them long. */
const PRUNE_BATCH = 5_000;

interface LocationRow {
  pack: number | null;
  offset: number | null;
  length: number | null;
  size: number | null;
  sha256: Buffer | null;
  dictionary: number | null;
}

const locationOf = (row: LocationRow | undefined): DocumentLocation | null =>
  row && row.pack !== null
    ? {
        pack: row.pack,
        offset: row.offset ?? 0,
        length: row.length ?? 0,
        size: row.size ?? 0,
        sha256: (row.sha256 ?? Buffer.alloc(0)).toString("base64"),
        dictionary: row.dictionary ?? 0,
      }
    : null;

interface ServeRow {
  stamp: string | null;
  until: string | null;
  snapshot_expires_at: string | null;
}

const serveOf = (row: ServeRow | undefined): ServeRecord | null =>
  row && row.stamp !== null ? { stamp: row.stamp, until: row.until, snapshotExpiresAt: row.snapshot_expires_at } : null;

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS documents (
    path TEXT NOT NULL,
    generation INTEGER NOT NULL,
    pack INTEGER,
    offset INTEGER,
    length INTEGER,
    size INTEGER,
    sha256 BLOB,
    dictionary INTEGER,
    replaces INTEGER NOT NULL,
    PRIMARY KEY (path, generation)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS documents_replacing ON documents (generation) WHERE replaces = 1;
  CREATE INDEX IF NOT EXISTS documents_pack ON documents (pack, path);
  CREATE TABLE IF NOT EXISTS serve (
    ab_id TEXT NOT NULL,
    generation INTEGER NOT NULL,
    stamp TEXT,
    until TEXT,
    snapshot_expires_at TEXT,
    replaces INTEGER NOT NULL,
    PRIMARY KEY (ab_id, generation)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS serve_replacing ON serve (generation) WHERE replaces = 1;
  CREATE TABLE IF NOT EXISTS packs (
    id INTEGER PRIMARY KEY,
    generation INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    live INTEGER NOT NULL,
    dead_since INTEGER
  );
  CREATE TABLE IF NOT EXISTS dictionaries (id INTEGER PRIMARY KEY, publish_key TEXT NOT NULL, body BLOB NOT NULL);
`;

const COMMITTED = "(SELECT CAST(value AS INTEGER) FROM state WHERE key = 'generation')";

export function packIndexFile(stateDir: string): string {
  return path.join(stateDir, PACK_INDEX_DATABASE);
}

/** Opens the index for reading (the server): null while no refresh has made it. */
export function openPackIndexReader(stateDir: string): PackIndexReader | null {
  let db: Database.Database;
  try {
    db = new Database(packIndexFile(stateDir), { readonly: true, fileMustExist: true });
  } catch {
    return null;
  }
  try {
    return readerOn(db);
  } catch {
    db.close();
    return null;
  }
}

function readerOn(db: Database.Database): PackIndexReader {
  const stateValue = db.prepare<[string], string>("SELECT value FROM state WHERE key = ?").pluck();
  const documentAt = db.prepare<[string], LocationRow>(
    `SELECT pack, offset, length, size, sha256, dictionary FROM documents
     WHERE path = ? AND generation <= ${COMMITTED} ORDER BY generation DESC LIMIT 1`,
  );
  const serveAt = db.prepare<[string], ServeRow>(
    `SELECT stamp, until, snapshot_expires_at FROM serve
     WHERE ab_id = ? AND generation <= ${COMMITTED} ORDER BY generation DESC LIMIT 1`,
  );
  const dictionaryOf = db.prepare<[number], Buffer>("SELECT body FROM dictionaries WHERE id = ?").pluck();
  const pathsAfter = db.prepare<[string, number, number], LocationRow & { path: string }>(
    `SELECT path, pack, offset, length, size, sha256, dictionary FROM documents d
     WHERE path > ? AND generation = (SELECT max(generation) FROM documents o WHERE o.path = d.path AND o.generation <= ?)
       AND pack IS NOT NULL
     ORDER BY path LIMIT ?`,
  );
  const serveAfter = db.prepare<[string, number, number], ServeRow & { ab_id: string }>(
    `SELECT ab_id, stamp, until, snapshot_expires_at FROM serve s
     WHERE ab_id > ? AND generation = (SELECT max(generation) FROM serve o WHERE o.ab_id = s.ab_id AND o.generation <= ?)
       AND stamp IS NOT NULL
     ORDER BY ab_id LIMIT ?`,
  );
  const generation = () => Number(stateValue.get("generation") ?? 0);
  return {
    committed: () => ({
      generation: Number(stateValue.get("generation") ?? 0),
      publishKey: stateValue.get("publishKey") ?? null,
      run: stateValue.get("run") ?? null,
    }),
    document: (relative) => locationOf(documentAt.get(relative)),
    serve: (abId) => serveOf(serveAt.get(abId)),
    dictionary: (id) => dictionaryOf.get(id) ?? null,
    paths(after, limit) {
      const found: [string, DocumentLocation][] = [];
      for (const row of pathsAfter.all(after, generation(), limit)) {
        const location = locationOf(row);
        if (location) found.push([row.path, location]);
      }
      return found;
    },
    serveRecords(after, limit) {
      const found: [string, ServeRecord][] = [];
      for (const row of serveAfter.all(after, generation(), limit)) {
        const record = serveOf(row);
        if (record) found.push([row.ab_id, record]);
      }
      return found;
    },
    snapshot: <T>(work: () => T): T => db.transaction(work).deferred(),
    close: () => db.close(),
  };
}

/** Opens (and creates) the index for the one writer of the folder, under the folder's lock. */
export function openPackIndexWriter(stateDir: string): PackIndexWriter {
  mkdirSync(stateDir, { recursive: true });
  const db = new Database(packIndexFile(stateDir));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec(SCHEMA);
  const reader = readerOn(db);
  const writeState = db.prepare<[string, string]>(
    "INSERT INTO state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  );
  const insertDocument = db.prepare(
    `INSERT INTO documents (path, generation, pack, offset, length, size, sha256, dictionary, replaces)
     VALUES (@path, @generation, @pack, @offset, @length, @size, @sha256, @dictionary, @replaces)
     ON CONFLICT (path, generation) DO UPDATE SET pack = excluded.pack, offset = excluded.offset,
       length = excluded.length, size = excluded.size, sha256 = excluded.sha256,
       dictionary = excluded.dictionary, replaces = max(documents.replaces, excluded.replaces)`,
  );
  const insertServe = db.prepare(
    `INSERT INTO serve (ab_id, generation, stamp, until, snapshot_expires_at, replaces)
     VALUES (@ab_id, @generation, @stamp, @until, @snapshot_expires_at, @replaces)
     ON CONFLICT (ab_id, generation) DO UPDATE SET stamp = excluded.stamp, until = excluded.until,
       snapshot_expires_at = excluded.snapshot_expires_at, replaces = max(serve.replaces, excluded.replaces)`,
  );
  const documentUpTo = db.prepare<[string, number], LocationRow>(
    `SELECT pack, offset, length, size, sha256, dictionary FROM documents
     WHERE path = ? AND generation <= ? ORDER BY generation DESC LIMIT 1`,
  );
  const serveUpTo = db.prepare<[string, number], ServeRow>(
    `SELECT stamp, until, snapshot_expires_at FROM serve
     WHERE ab_id = ? AND generation <= ? ORDER BY generation DESC LIMIT 1`,
  );
  const abandonedDocuments = db
    .prepare<[number], string>(`SELECT path FROM documents WHERE generation > ? LIMIT ${PRUNE_BATCH}`)
    .pluck();
  const abandonedServe = db
    .prepare<[number], string>(`SELECT ab_id FROM serve WHERE generation > ? LIMIT ${PRUNE_BATCH}`)
    .pluck();
  const dropDocument = db.prepare<[string, number]>("DELETE FROM documents WHERE path = ? AND generation > ?");
  const dropServe = db.prepare<[string, number]>("DELETE FROM serve WHERE ab_id = ? AND generation > ?");
  const replacingDocuments = db.prepare<[number], { path: string; generation: number; tombstone: number }>(
    `SELECT path, generation, pack IS NULL AS tombstone FROM documents
     WHERE replaces = 1 AND generation <= ? LIMIT ${PRUNE_BATCH}`,
  );
  const supersededDocuments = db.prepare<[string, number], { pack: number | null; length: number | null }>(
    "DELETE FROM documents WHERE path = ? AND generation < ? RETURNING pack, length",
  );
  const settleDocument = db.prepare<[string, number]>(
    "UPDATE documents SET replaces = 0 WHERE path = ? AND generation = ?",
  );
  const dropTombstone = db.prepare<[string, number]>("DELETE FROM documents WHERE path = ? AND generation = ?");
  const replacingServe = db.prepare<[number], { ab_id: string; generation: number; tombstone: number }>(
    `SELECT ab_id, generation, stamp IS NULL AS tombstone FROM serve
     WHERE replaces = 1 AND generation <= ? LIMIT ${PRUNE_BATCH}`,
  );
  const supersededServe = db.prepare<[string, number]>("DELETE FROM serve WHERE ab_id = ? AND generation < ?");
  const settleServe = db.prepare<[string, number]>("UPDATE serve SET replaces = 0 WHERE ab_id = ? AND generation = ?");
  const dropServeTombstone = db.prepare<[string, number]>("DELETE FROM serve WHERE ab_id = ? AND generation = ?");
  const lessLive = db.prepare<[number, number]>("UPDATE packs SET live = live - ? WHERE id = ?");
  const markDead = db
    .prepare<[number], number>("UPDATE packs SET dead_since = ? WHERE live <= 0 AND dead_since IS NULL RETURNING id")
    .pluck();
  const insertPack = db.prepare<[number, number, number, number]>(
    `INSERT INTO packs (id, generation, bytes, live) VALUES (?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET bytes = excluded.bytes, live = packs.live + excluded.live, dead_since = NULL`,
  );
  const allPacks = db.prepare<[], PackRecord>("SELECT id, bytes, live FROM packs ORDER BY id");
  const maxPack = db.prepare<[], number | null>("SELECT max(id) FROM packs").pluck();
  const deadBefore = db
    .prepare<[number], number>("SELECT id FROM packs WHERE dead_since IS NOT NULL AND dead_since < ?")
    .pluck();
  const forgetPack = db.prepare<[number]>("DELETE FROM packs WHERE id = ?");
  const inPack = db.prepare<[number, number], LocationRow & { path: string }>(
    `SELECT d.path, d.pack, d.offset, d.length, d.size, d.sha256, d.dictionary FROM documents d
     WHERE d.pack = ? AND d.generation = (SELECT max(generation) FROM documents o WHERE o.path = d.path AND o.generation <= ?)`,
  );
  const countDocuments = db
    .prepare<[], number>(
      `SELECT count(*) FROM documents d WHERE pack IS NOT NULL
       AND generation = (SELECT max(generation) FROM documents o WHERE o.path = d.path AND o.generation <= ${COMMITTED})`,
    )
    .pluck();
  const countServe = db
    .prepare<[], number>(
      `SELECT count(*) FROM serve s WHERE stamp IS NOT NULL
       AND generation = (SELECT max(generation) FROM serve o WHERE o.ab_id = s.ab_id AND o.generation <= ${COMMITTED})`,
    )
    .pluck();
  const dictionaryFor = db.prepare<[string], { id: number; body: Buffer }>(
    "SELECT id, body FROM dictionaries WHERE publish_key = ? ORDER BY id DESC LIMIT 1",
  );
  const insertDictionary = db.prepare<[string, Buffer]>("INSERT INTO dictionaries (publish_key, body) VALUES (?, ?)");

  const committedGeneration = () => reader.committed().generation;

  const commitRun = db.transaction(
    (generation: number, made: { publishKey: string; run: string }, packs: readonly PackRecord[]) => {
      for (const pack of packs) insertPack.run(pack.id, generation, pack.bytes, pack.live);
      writeState.run("publishKey", made.publishKey);
      writeState.run("run", made.run);
      writeState.run("generation", String(generation));
    },
  );
  const forgetPackRows = db.transaction((ids: readonly number[]) => {
    for (const id of ids) forgetPack.run(id);
  });
  const stageDocuments = db.transaction((generation: number, rows: readonly StagedDocument[]) => {
    for (const row of rows) {
      const location = row.location;
      insertDocument.run({
        path: row.path,
        generation,
        pack: location?.pack ?? null,
        offset: location?.offset ?? null,
        length: location?.length ?? null,
        size: location?.size ?? null,
        sha256: location ? Buffer.from(location.sha256, "base64") : null,
        dictionary: location?.dictionary ?? null,
        replaces: row.replaces || location === null ? 1 : 0,
      });
    }
  });
  const stageServe = db.transaction((generation: number, rows: readonly StagedServe[]) => {
    for (const row of rows) {
      insertServe.run({
        ab_id: row.abId,
        generation,
        stamp: row.record?.stamp ?? null,
        until: row.record?.until ?? null,
        snapshot_expires_at: row.record?.snapshotExpiresAt ?? null,
        replaces: row.replaces || row.record === null ? 1 : 0,
      });
    }
  });

  /** Drops, a batch at a time, what a run abandoned before its commit. */
  const dropAbandoned = (committed: number) => {
    for (;;) {
      const paths = abandonedDocuments.all(committed);
      const abIds = abandonedServe.all(committed);
      if (paths.length === 0 && abIds.length === 0) return;
      db.transaction(() => {
        for (const relative of paths) dropDocument.run(relative, committed);
        for (const abId of abIds) dropServe.run(abId, committed);
      }).immediate();
    }
  };

  const pruneOnce = (committed: number): boolean => {
    const documents = replacingDocuments.all(committed);
    const serves = replacingServe.all(committed);
    if (documents.length === 0 && serves.length === 0) return false;
    db.transaction(() => {
      const freed = new Map<number, number>();
      for (const row of documents) {
        for (const old of supersededDocuments.all(row.path, row.generation)) {
          if (old.pack !== null) freed.set(old.pack, (freed.get(old.pack) ?? 0) + (old.length ?? 0));
        }
        if (row.tombstone) dropTombstone.run(row.path, row.generation);
        else settleDocument.run(row.path, row.generation);
      }
      for (const [pack, bytes] of freed) lessLive.run(bytes, pack);
      for (const row of serves) {
        supersededServe.run(row.ab_id, row.generation);
        if (row.tombstone) dropServeTombstone.run(row.ab_id, row.generation);
        else settleServe.run(row.ab_id, row.generation);
      }
    }).immediate();
    return true;
  };

  const prune = (): number[] => {
    const committed = committedGeneration();
    while (pruneOnce(committed)) {
      // a batch at a time
    }
    return markDead.all(committed);
  };

  return {
    ...reader,
    begin() {
      const committed = committedGeneration();
      dropAbandoned(committed);
      prune();
      return { generation: committed + 1, nextPack: (maxPack.get() ?? 0) + 1 };
    },
    stageDocuments: (generation, rows) => stageDocuments.immediate(generation, rows),
    stageServe: (generation, rows) => stageServe.immediate(generation, rows),
    documentsAt(generation, paths) {
      const found = new Map<string, DocumentLocation>();
      for (const relative of paths) {
        const location = locationOf(documentUpTo.get(relative, generation));
        if (location) found.set(relative, location);
      }
      return found;
    },
    serveAt(generation, abIds) {
      const found = new Map<string, ServeRecord>();
      for (const abId of abIds) {
        const record = serveOf(serveUpTo.get(abId, generation));
        if (record) found.set(abId, record);
      }
      return found;
    },
    currentDictionary: (publishKey) => dictionaryFor.get(publishKey) ?? null,
    addDictionary: (publishKey, body) => Number(insertDictionary.run(publishKey, body).lastInsertRowid),
    commit: (generation, made, packs) => commitRun.immediate(generation, made, packs),
    prune,
    deadPacks: (before) => deadBefore.all(before),
    forgetPacks: (ids) => forgetPackRows.immediate(ids),
    packs: () => allPacks.all(),
    documentsIn(packs) {
      const committed = committedGeneration();
      const found: [string, DocumentLocation][] = [];
      for (const pack of packs) {
        for (const row of inPack.all(pack, committed)) {
          const location = locationOf(row);
          if (location) found.push([row.path, location]);
        }
      }
      return found;
    },
    counts: () => ({ documents: countDocuments.get() ?? 0, merchants: countServe.get() ?? 0 }),
  };
}
