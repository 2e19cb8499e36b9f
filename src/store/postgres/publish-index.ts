/**
 * The refresh's index on PostgreSQL (the port: PublishIndexPort in src/store/publish-index.ts,
 * whose SQLite twin is the publish folder's own index.db; the tables: migration 0004). Shared by
 * every instance, so whichever one leads carries on from the last run. A commit writes the run's
 * entries and keys, the serve index made from the entries as they now are, and the run's published
 * documents (publishOn) in one transaction: an instance's mirror never sees files whose index did
 * not commit, nor an index whose files are missing.
 */
import type pg from "pg";
import { contentTypeOf, SERVE_INDEX_PATH } from "../../publish/published-documents.ts";
import type { RefreshStore } from "../../publish/publisher.ts";
import { formatServeIndex } from "../../publish/serve-index.ts";
import {
  type EntryRow,
  type IndexEntry,
  type PublishIndexMeta,
  type PublishIndexPort,
  toEntry,
} from "../publish-index.ts";
import type { LeaderFence } from "./leader-fence.ts";
import { createPostgresProfileLoader, createPostgresPublishSource } from "./publish-source.ts";
import { publishOn } from "./published-documents.ts";
import { refreshLockHeldBy, tryRefreshLock } from "./refresh-lock.ts";
import { inTransaction, type Queryable } from "./transaction.ts";

type ServeRow = [abId: string, stamp: string, until: string | null, snapshotExpiresAt: string | null];

/** Rows per INSERT of a commit (a full pass writes every merchant's entry). */
const ENTRIES_PER_STATEMENT = 500;

async function readMeta(db: Queryable): Promise<PublishIndexMeta | null> {
  const rows = await db.query<{ key: string; value: string }>("SELECT key, value FROM publish_index_meta");
  const values = new Map(rows.rows.map((row) => [row.key, row.value]));
  const publishKey = values.get("publishKey");
  if (publishKey === undefined) return null;
  const cursor = values.get("cursor");
  return {
    publishKey,
    codeKey: values.get("codeKey") ?? "",
    generatedAt: values.get("generatedAt") ?? "",
    cursor: cursor === undefined || cursor === "" ? null : Number(cursor),
    files: JSON.parse(values.get("files") ?? "{}") as Record<string, string>,
    retry: JSON.parse(values.get("retry") ?? "[]") as string[],
  };
}

async function serveRowsOf(db: Queryable): Promise<ServeRow[]> {
  const rows = await db.query<{ ab_id: string; stamp: string; until: string | null; snapshot: string | null }>(
    `SELECT ab_id, stamp, until, CASE WHEN has_snapshot THEN snapshot_expires_at END AS snapshot
     FROM publish_index_entries ORDER BY ab_id COLLATE "C"`,
  );
  return rows.rows.map((row) => [row.ab_id, row.stamp, row.until, row.snapshot]);
}

export interface PostgresPublishIndexOptions {
  /**
   * The backend holding the deployment's refresh lock for this run (refresh-lock.ts), or null: a
   * commit first checks, in its transaction, that the lock is still that backend's.
   */
  lockHolder?: () => number | null;
  /**
   * What the commit's transaction goes through: the leader's fence for the scheduled refresh (it
   * commits only while the server that scheduled it leads, leader-fence.ts); plain otherwise.
   */
  fence?: LeaderFence;
}

export function createPostgresPublishIndex(pool: pg.Pool, options: PostgresPublishIndexOptions = {}): PublishIndexPort {
  return {
    publishesDocuments: true,
    meta: () => readMeta(pool),
    async entriesOf(abIds) {
      const found = new Map<string, IndexEntry>();
      if (abIds.length === 0) return found;
      const rows = await pool.query<EntryRow>(
        `SELECT * FROM publish_index_entries WHERE ab_id = ANY($1) ORDER BY ab_id COLLATE "C"`,
        [[...abIds]],
      );
      for (const row of rows.rows) found.set(row.ab_id, toEntry(row));
      return found;
    },
    async due(nowIso, renewBeforeIso, snapshots) {
      const found = new Set(
        (
          await pool.query<{ ab_id: string }>(
            "SELECT ab_id FROM publish_index_entries WHERE until IS NOT NULL AND until <= $1",
            [nowIso],
          )
        ).rows.map((row) => row.ab_id),
      );
      const more = snapshots
        ? await pool.query<{ ab_id: string }>("SELECT ab_id FROM publish_index_entries WHERE snapshot_due <= $1", [
            renewBeforeIso,
          ])
        : await pool.query<{ ab_id: string }>("SELECT ab_id FROM publish_index_entries WHERE has_snapshot");
      for (const row of more.rows) found.add(row.ab_id);
      return [...found];
    },
    async abIds() {
      const rows = await pool.query<{ ab_id: string }>(
        `SELECT ab_id FROM publish_index_entries ORDER BY ab_id COLLATE "C"`,
      );
      return rows.rows.map((row) => row.ab_id);
    },
    async counts() {
      const row = (
        await pool.query<{ merchants: number; files: number }>(
          "SELECT count(*) AS merchants, coalesce(sum(file_count), 0) AS files FROM publish_index_entries",
        )
      ).rows[0];
      return { merchants: Number(row?.merchants ?? 0), files: Number(row?.files ?? 0) };
    },
    commit: (run, publication) =>
      (options.fence?.transaction ?? ((work) => inTransaction(pool, work)))(async (client: pg.PoolClient) => {
        const holder = options.lockHolder?.() ?? null;
        if (holder !== null && !(await refreshLockHeldBy(client, holder))) {
          // Its connection ended mid-run: another run may hold the lock now, and only one publishes.
          throw new Error(
            "refresh: the deployment's refresh lock was lost during the run (its connection to PostgreSQL ended); nothing was committed, run it again",
          );
        }
        const deletes = [...run.deletes];
        if (deletes.length > 0) {
          await client.query("DELETE FROM publish_index_entries WHERE ab_id = ANY($1)", [deletes]);
        }
        const upserts = [...run.upserts];
        for (let start = 0; start < upserts.length; start += ENTRIES_PER_STATEMENT) {
          const values: unknown[] = [];
          const tuples = upserts.slice(start, start + ENTRIES_PER_STATEMENT).map(([abId, entry]) => {
            values.push(
              abId,
              entry.status,
              entry.stamp,
              entry.fingerprint,
              entry.since,
              entry.until,
              JSON.stringify(entry.hashes),
              Object.keys(entry.hashes).length,
              entry.cardHash,
              entry.snapshotExpiresAt,
              Boolean(entry.hashes.snapshot),
              entry.hashes.snapshot && entry.snapshotExpiresAt ? entry.snapshotExpiresAt : "",
            );
            const first = values.length - 11;
            return `(${Array.from({ length: 12 }, (_, i) => `$${first + i}`).join(", ")})`;
          });
          await client.query(
            `INSERT INTO publish_index_entries (ab_id, status, stamp, fingerprint, since, until, hashes, file_count,
               card_hash, snapshot_expires_at, has_snapshot, snapshot_due)
             VALUES ${tuples.join(", ")}
             ON CONFLICT (ab_id) DO UPDATE SET status = excluded.status, stamp = excluded.stamp,
               fingerprint = excluded.fingerprint, since = excluded.since, until = excluded.until,
               hashes = excluded.hashes, file_count = excluded.file_count, card_hash = excluded.card_hash,
               snapshot_expires_at = excluded.snapshot_expires_at, has_snapshot = excluded.has_snapshot,
               snapshot_due = excluded.snapshot_due`,
            values,
          );
        }
        const meta: [string, string][] = [
          ["publishKey", run.meta.publishKey],
          ["codeKey", run.meta.codeKey],
          ["generatedAt", run.meta.generatedAt],
          ["cursor", run.meta.cursor === null ? "" : String(run.meta.cursor)],
          ["files", JSON.stringify(run.meta.files)],
          ["retry", JSON.stringify(run.meta.retry)],
        ];
        await client.query(
          `INSERT INTO publish_index_meta (key, value) SELECT * FROM unnest($1::text[], $2::text[])
           ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
          [meta.map(([key]) => key), meta.map(([, value]) => value)],
        );
        if (publication) {
          // The serve index from the entries as this transaction leaves them, written with the files.
          const serveIndex = formatServeIndex(run.meta.publishKey, await serveRowsOf(client));
          await publishOn(client, {
            ...publication,
            writes: [
              ...publication.writes,
              {
                path: SERVE_INDEX_PATH,
                body: Buffer.from(serveIndex, "utf8"),
                contentType: contentTypeOf(SERVE_INDEX_PATH),
              },
            ],
          });
        }
      }),
    serveRows: () => serveRowsOf(pool),
    async snapshot() {
      const current = await readMeta(pool);
      if (!current) return null;
      const rows = await pool.query<EntryRow>(`SELECT * FROM publish_index_entries ORDER BY ab_id COLLATE "C"`);
      return {
        version: 1,
        publishKey: current.publishKey,
        codeKey: current.codeKey,
        generatedAt: current.generatedAt,
        merchants: Object.fromEntries(rows.rows.map((row) => [row.ab_id, toEntry(row)])),
        files: current.files,
        ...(current.cursor === null ? {} : { cursor: current.cursor }),
        retry: current.retry,
      };
    },
    close: async () => undefined,
  };
}

/**
 * What a refresh reads and where it keeps its index on PostgreSQL, over one pool (a command's, the
 * leader's): the publication's reads, the profiles and the shared index (publisher.ts RefreshStore).
 */
export function postgresRefreshStore(pool: pg.Pool, options: { fence?: LeaderFence } = {}): RefreshStore {
  const profiles = createPostgresProfileLoader(pool);
  let holder: number | null = null;
  return {
    source: createPostgresPublishSource(pool),
    loadProfiles: (abIds) => profiles.load(abIds),
    index: createPostgresPublishIndex(pool, { lockHolder: () => holder, ...options }),
    async lockRun() {
      const attempt = await tryRefreshLock(pool);
      if ("heldBy" in attempt) return attempt;
      holder = attempt.pid;
      return {
        release: async () => {
          holder = null;
          await attempt.release();
        },
      };
    },
  };
}
