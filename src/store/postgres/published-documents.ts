/**
 * The published documents on PostgreSQL (the port: src/publish/published-documents.ts; the table:
 * migration 0005). A publication is one transaction: its files upserted (a file whose bytes did not
 * change keeps its row and revision), its removed files turned into tombstones, tombstones older
 * than TOMBSTONE_RETENTION_MS pruned, and the one published_state row moved to the new revision
 * (and the highest revision pruned), whose trigger sends NOTIFY abeille_published when the
 * transaction commits.
 */
import type pg from "pg";
import type {
  Publication,
  PublicationState,
  PublishedChange,
  PublishedDocuments,
} from "../../publish/published-documents.ts";
import { publishedHash } from "../../publish/published-documents.ts";
import { firstRow, inTransaction } from "./transaction.ts";

export const PUBLISHED_CHANNEL = "abeille_published";

/** Rows per INSERT: a full publication of 100,000 merchants is half a million files. */
const ROWS_PER_STATEMENT = 500;

/**
 * How long a removed file's row (a tombstone) stays: long enough for every mirror that is merely
 * restarting, or cut off for a few days, to remove the file by reading what changed. A mirror
 * behind a pruned tombstone catches up in full instead (published-mirror.ts), so this bounds the
 * table's growth, not correctness; a week is not worth a setting.
 */
export const TOMBSTONE_RETENTION_MS = 7 * 24 * 3600 * 1000;

/**
 * Writes a publication on a client inside a transaction (the documents' own publish, and the
 * PostgreSQL refresh index's commit, which writes the run's index beside it); answers its revision.
 */
export async function publishOn(client: pg.PoolClient, publication: Publication): Promise<number> {
  // The state row's lock orders publications: two leaders for a moment would queue here.
  const current = await firstRow<{ revision: number }>(
    client,
    "SELECT revision FROM published_state WHERE id = 1 FOR UPDATE",
    [],
  );
  const revision = Number(current?.revision ?? 0) + 1;
  const paths: string[] = [];
  for (let start = 0; start < publication.writes.length; start += ROWS_PER_STATEMENT) {
    const slice = publication.writes.slice(start, start + ROWS_PER_STATEMENT);
    const values: unknown[] = [revision, publication.at];
    const tuples = slice.map((file) => {
      values.push(file.path, file.body, publishedHash(file.body), file.contentType);
      const n = values.length;
      return `($${n - 3}, $${n - 2}, $${n - 1}, $${n}, $1, $2)`;
    });
    await client.query(
      `INSERT INTO published_documents (path, body, sha256, content_type, revision, published_at)
         VALUES ${tuples.join(", ")}
         ON CONFLICT (path) DO UPDATE SET body = excluded.body, sha256 = excluded.sha256,
           content_type = excluded.content_type, revision = excluded.revision, published_at = excluded.published_at
         WHERE published_documents.sha256 IS DISTINCT FROM excluded.sha256
            OR published_documents.content_type IS DISTINCT FROM excluded.content_type`,
      values,
    );
    for (const file of slice) paths.push(file.path);
  }
  const tombstone = `UPDATE published_documents SET body = NULL, sha256 = NULL, content_type = NULL,
         revision = $1, published_at = $2 WHERE body IS NOT NULL AND`;
  if (publication.replaceAll) {
    await client.query(`${tombstone} NOT (path = ANY($3))`, [revision, publication.at, paths]);
  } else if (publication.removes.length > 0) {
    await client.query(`${tombstone} path = ANY($3)`, [revision, publication.at, publication.removes]);
  }
  // Pruned by the publication (the leader's refresh): it already holds the state row's lock, and the
  // highest revision pruned is recorded in the same transaction as the rows' deletion.
  const cutoff = new Date(Date.parse(publication.at) - TOMBSTONE_RETENTION_MS).toISOString();
  const pruned = await firstRow<{ revision: number | null }>(
    client,
    `WITH pruned AS (DELETE FROM published_documents WHERE body IS NULL AND published_at < $1 RETURNING revision)
     SELECT max(revision) AS revision FROM pruned`,
    [cutoff],
  );
  await client.query(
    `INSERT INTO published_state (id, revision, run_generated_at, publish_key, published_at, pruned_revision)
       VALUES (1, $1, $2, $3, $4, $5)
       ON CONFLICT (id) DO UPDATE SET revision = excluded.revision, run_generated_at = excluded.run_generated_at,
         publish_key = excluded.publish_key, published_at = excluded.published_at,
         pruned_revision = greatest(published_state.pruned_revision, excluded.pruned_revision)`,
    [revision, publication.runGeneratedAt, publication.publishKey, publication.at, Number(pruned?.revision ?? 0)],
  );
  return revision;
}

export function createPostgresPublishedDocuments(pool: pg.Pool): PublishedDocuments {
  return {
    async state() {
      const row = await firstRow<{
        revision: number;
        run_generated_at: string;
        publish_key: string;
        pruned_revision: number;
      }>(pool, "SELECT revision, run_generated_at, publish_key, pruned_revision FROM published_state WHERE id = 1", []);
      return row
        ? ({
            revision: Number(row.revision),
            runGeneratedAt: row.run_generated_at,
            publishKey: row.publish_key,
            prunedRevision: Number(row.pruned_revision),
          } satisfies PublicationState)
        : null;
    },
    publish: (publication) => inTransaction(pool, (client) => publishOn(client, publication)),
    async changesSince(revision, after, limit) {
      const from = after ?? { revision, path: "" };
      const rows = await pool.query<{ path: string; body: Buffer | null; sha256: string | null; revision: number }>(
        `SELECT path, body, sha256, revision FROM published_documents
         WHERE revision > $1 AND (revision, path) > ($2, $3) AND ($1 > 0 OR body IS NOT NULL)
         ORDER BY revision, path LIMIT $4`,
        [revision, from.revision, from.path, limit],
      );
      return rows.rows.map(
        (row): PublishedChange => ({
          path: row.path,
          body: row.body,
          sha256: row.sha256,
          revision: Number(row.revision),
        }),
      );
    },
  };
}
