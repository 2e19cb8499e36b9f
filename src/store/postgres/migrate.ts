/**
 * Applies the embedded PostgreSQL migrations (drizzle-kit's, from the schema derived from
 * src/store/schema.ts, and the hand-written triggers): all pending ones in ONE transaction, under
 * an advisory lock. Two instances starting together: one migrates, the other waits for the lock
 * and finds them applied. A statement that fails rolls the whole transaction back: no migration
 * is half-applied, and none of a batch is recorded without the others.
 */
import type pg from "pg";
import { migrations as embeddedMigrations, type Migration } from "./migrations/index.ts";

/** The advisory lock key the migrators of one database share ("ABEILL" in ASCII, as a number). */
export const MIGRATION_LOCK_KEY = 0x4142_4549_4c4c;

/** Collations under which text compares byte by byte, as SQLite's BINARY does. */
const BYTEWISE_COLLATIONS = new Set(["C", "POSIX", "C.UTF-8", "C.utf8"]);

export class DatabaseSetupError extends Error {
  override name = "DatabaseSetupError";
}

/**
 * The store compares and orders text (ids, ISO timestamps, cursors) as SQLite does, byte by byte;
 * a database whose default collation is a language's would order the same rows differently.
 */
async function checkDatabase(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ encoding: string; collate: string; provider: string }>(
    `SELECT pg_encoding_to_char(encoding) AS encoding, datcollate AS collate, datlocprovider::text AS provider
       FROM pg_database WHERE datname = current_database()`,
  );
  const database = rows[0];
  if (!database) throw new DatabaseSetupError("the current database is not in pg_database");
  const problems: string[] = [];
  if (database.encoding !== "UTF8") problems.push(`its encoding is ${database.encoding}, not UTF8`);
  if (database.provider !== "c" || !BYTEWISE_COLLATIONS.has(database.collate))
    problems.push(
      `its collation is ${database.provider === "i" ? "an ICU one" : database.collate}, which does not order text byte by byte`,
    );
  if (problems.length > 0)
    throw new DatabaseSetupError(
      `DATABASE_URL's database cannot hold the store: ${problems.join("; ")}. Create it with ` +
        `CREATE DATABASE <name> TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C' (docs/deployment.md)`,
    );
}

/** Applies the pending migrations; returns the ids it applied (none when another instance did). */
export async function applyPostgresMigrations(
  pool: pg.Pool,
  migrations: readonly Migration[] = embeddedMigrations,
): Promise<string[]> {
  const client = await pool.connect();
  let broken = false;
  try {
    await checkDatabase(client);
    await client.query("BEGIN");
    try {
      // Held until COMMIT or ROLLBACK: a second migrator waits here, then reads what the first recorded.
      await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_KEY]);
      await client.query(
        `CREATE TABLE IF NOT EXISTS schema_migrations (
           id text PRIMARY KEY,
           applied_at text NOT NULL DEFAULT to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
         )`,
      );
      const { rows } = await client.query<{ id: string }>("SELECT id FROM schema_migrations");
      const applied = new Set(rows.map((row) => row.id));
      const pending = migrations.filter((migration) => !applied.has(migration.id));
      for (const migration of pending) {
        for (const statement of migration.statements) {
          try {
            await client.query(statement);
          } catch (error) {
            const reason = error instanceof Error ? error.message : String(error);
            throw new DatabaseSetupError(`migration ${migration.id} failed, nothing applied: ${reason}`, {
              cause: error,
            });
          }
        }
        await client.query("INSERT INTO schema_migrations (id) VALUES ($1)", [migration.id]);
      }
      await client.query("COMMIT");
      return pending.map((migration) => migration.id);
    } catch (error) {
      // A lost connection cannot roll back (the server already has): the original error is the one to tell.
      await client.query("ROLLBACK").catch(() => {
        broken = true;
      });
      throw error;
    }
  } finally {
    client.release(broken);
  }
}
