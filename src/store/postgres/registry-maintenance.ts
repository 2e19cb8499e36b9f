/**
 * Whole-registry maintenance and the identity check's queue on PostgreSQL (the SQLite store:
 * src/store/registry-maintenance.ts, src/store/identity-check-queue.ts): the same statements, the
 * tables depending on merchants found through the catalog's foreign keys.
 */
import type pg from "pg";
import { LISTED_STATUSES } from "../../domain/merchants/lifecycle.ts";
import {
  COUNTED_TABLES,
  dependentsOfMerchants,
  type RegistryCounts,
  type RegistryMaintenance,
} from "../registry-maintenance.ts";
import { inTransaction } from "./transaction.ts";

const LISTED = [...LISTED_STATUSES];

export function createPostgresRegistryMaintenance(pool: pg.Pool): RegistryMaintenance {
  return {
    async isEmpty() {
      return (await pool.query("SELECT 1 FROM merchants LIMIT 1")).rowCount === 0;
    },
    async count() {
      const counted = Object.entries(COUNTED_TABLES);
      const found = await pool.query<Record<string, string>>(
        `SELECT ${counted.map(([name, table]) => `(SELECT count(*) FROM "${table}") AS "${name}"`).join(", ")}`,
      );
      const row = found.rows[0] ?? {};
      return Object.fromEntries(counted.map(([name]) => [name, Number(row[name])])) as unknown as RegistryCounts;
    },
    clear() {
      return inTransaction(pool, async (client) => {
        // The registry's writers queue on this row (merchant-registry-repository.ts): none runs meanwhile.
        await client.query('SELECT 1 FROM "store_revision" WHERE "id" = 1 FOR UPDATE');
        await client.query(
          `INSERT INTO merchant_changes (ab_id, revision, change, changed_at)
           SELECT ab_id, revision + 1, 'withdrawn',
             to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
           FROM merchants WHERE status = ANY($1::text[]) ORDER BY ab_id`,
          [LISTED],
        );
        const deleted: Record<string, number> = {};
        for (const table of await merchantDependents(client)) {
          deleted[table] = (await client.query(`DELETE FROM "${table}"`)).rowCount ?? 0;
        }
        return deleted;
      });
    },
  };
}

/**
 * Tables holding rows that depend on merchants, through the catalog's foreign keys (tables added
 * later are included), children before parents, merchants last: as SQLite's clearRegistry orders them.
 */
async function merchantDependents(client: pg.PoolClient): Promise<string[]> {
  const keys = await client.query<{ child: string; parent: string }>(
    `SELECT DISTINCT c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent
     FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
     WHERE c.contype = 'f' AND n.nspname = current_schema() ORDER BY child`,
  );
  return dependentsOfMerchants(
    keys.rows.map(({ child, parent }) => ({ child: child.replaceAll('"', ""), parent: parent.replaceAll('"', "") })),
  );
}

/**
 * The listed merchants, not closed, whose official identity check is due by `horizon`, as
 * src/store/identity-check-queue.ts orders them: missing checks first (SQLite sorts NULL first
 * ascending, PostgreSQL last unless told), then soonest, then by ab_id.
 */
export async function postgresMerchantsDueForIdentityCheck(
  pool: pg.Pool,
  options: { horizon: string; limit?: number },
): Promise<string[]> {
  const found = await pool.query<{ ab_id: string }>(
    `SELECT m.ab_id FROM merchants m
     LEFT JOIN signals s ON s.ab_id = m.ab_id AND s.key = 'siret_verified'
     WHERE m.status = ANY($1::text[]) AND m.closure IS NULL
       AND (s.key IS NULL OR s.status <> 'verified' OR s.expires_at IS NULL OR s.expires_at <= $2)
     ORDER BY s.expires_at COLLATE "C" ASC NULLS FIRST, m.ab_id COLLATE "C" ASC
     ${options.limit === undefined ? "" : "LIMIT $3"}`,
    options.limit === undefined ? [LISTED, options.horizon] : [LISTED, options.horizon, options.limit],
  );
  return found.rows.map((row) => row.ab_id);
}
