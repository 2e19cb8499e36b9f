/**
 * The published documents on PostgreSQL (the port: src/publish/published-documents.ts; the table:
 * migration 0005). A publication is one transaction: its files upserted (a file whose bytes did not
 * change keeps its row and revision), its removed files turned into tombstones, and the one
 * published_state row moved to the new revision, whose trigger sends NOTIFY abeille_published when
 * the transaction commits.
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
  await client.query(
    `INSERT INTO published_state (id, revision, run_generated_at, publish_key, published_at)
       VALUES (1, $1, $2, $3, $4)
       ON CONFLICT (id) DO UPDATE SET revision = excluded.revision, run_generated_at = excluded.run_generated_at,
         publish_key = excluded.publish_key, published_at = excluded.published_at`,
    [revision, publication.runGeneratedAt, publication.publishKey, publication.at],
  );
  return revision;
}

export function createPostgresPublishedDocuments(pool: pg.Pool): PublishedDocuments {
  return {
    async state() {
      const row = await firstRow<{ revision: number; run_generated_at: string; publish_key: string }>(
        pool,
        "SELECT revision, run_generated_at, publish_key FROM published_state WHERE id = 1",
        [],
      );
      return row
        ? ({
            revision: Number(row.revision),
            runGeneratedAt: row.run_generated_at,
            publishKey: row.publish_key,
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
