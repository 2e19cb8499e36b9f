/**
 * The postal letters' codes on PostgreSQL (the port: src/domain/merchant-space/letter-store.ts; the
 * SQLite store: src/store/letter-repository.ts). What SQLite's single writer made atomic leans on
 * row locks here: a wrong try is one UPDATE (two tries at once queue on the row, both count); a
 * spend is one UPDATE ... WHERE used_at IS NULL (of two spends at once, the second finds the row
 * used once the first commits) and records its claim in the same transaction.
 */
import type pg from "pg";
import type { LetterRow, LetterStore } from "../../domain/merchant-space/letter-store.ts";
import { LISTED_STATUSES } from "../../domain/merchants/lifecycle.ts";
import { type LetterDbRow, letterOf } from "../letter-repository.ts";
import { insertClaimOn } from "./merchant-space-repository.ts";
import { firstRow, inTransaction } from "./transaction.ts";

const LISTED = [...LISTED_STATUSES];

export function createPostgresLetterRepository(pool: pg.Pool): LetterStore {
  return {
    async recipients(filter) {
      const values: unknown[] = [LISTED];
      const conditions = ["m.status = ANY($1)"];
      if (filter.abIds) {
        values.push([...filter.abIds]);
        conditions.push(`m.ab_id = ANY($${values.length})`);
      }
      if (filter.department !== undefined) {
        values.push(filter.department);
        conditions.push(`m.ab_id IN (SELECT ab_id FROM territorial_proofs WHERE department_code = $${values.length})`);
      }
      if (filter.unclaimed) {
        conditions.push(
          "NOT EXISTS (SELECT 1 FROM merchant_claims c WHERE c.ab_id = m.ab_id AND c.revoked_at IS NULL)",
        );
      }
      values.push(filter.limit);
      const rows = await pool.query(
        `SELECT m.ab_id AS "abId", m.siret, m.legal_name AS "legalName", m.business_name AS "businessName",
                m.street, m.postal_code AS "postalCode", m.city
         FROM merchants m WHERE ${conditions.join(" AND ")} ORDER BY m.postal_code, m.ab_id LIMIT $${values.length}`,
        values,
      );
      return rows.rows;
    },
    async unlisted(abIds) {
      const listed = await pool.query<{ ab_id: string }>(
        "SELECT ab_id FROM merchants WHERE ab_id = ANY($1) AND status = ANY($2)",
        [[...abIds], LISTED],
      );
      const known = new Set(listed.rows.map((row) => row.ab_id));
      return abIds.filter((abId) => !known.has(abId));
    },
    recordBatch: (letters, at) =>
      inTransaction(pool, async (client) => {
        for (const letter of letters) {
          await client.query(
            `INSERT INTO letter_codes (letter_id, ab_id, batch_id, locator_hash, secret_hash, created_at, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7)`,
            [
              letter.letterId,
              letter.abId,
              letter.batchId,
              letter.locatorHash,
              letter.secretHash,
              letter.createdAt,
              letter.expiresAt,
            ],
          );
          await client.query(
            `UPDATE letter_codes SET superseded_at = $1
             WHERE ab_id = $2 AND letter_id <> $3 AND used_at IS NULL AND locked_at IS NULL AND superseded_at IS NULL`,
            [at, letter.abId, letter.letterId],
          );
        }
      }),
    async findByLocator(locatorHash) {
      const row = await firstRow<LetterDbRow>(pool, "SELECT * FROM letter_codes WHERE locator_hash = $1", [
        locatorHash,
      ]);
      return row ? letterOf(row) : null;
    },
    countWrongTry: (letterId, at, lockAfter) =>
      inTransaction(pool, async (client): Promise<LetterRow | null> => {
        const row = await firstRow<LetterDbRow>(
          client,
          `UPDATE letter_codes SET failed_attempts = failed_attempts + 1,
             locked_at = CASE WHEN failed_attempts + 1 >= $3 THEN $2 ELSE NULL END
           WHERE letter_id = $1 AND locked_at IS NULL
           RETURNING *`,
          [letterId, at, lockAfter],
        );
        if (!row) return null;
        if (row.locked_at !== null) {
          // The lock goes in the merchant's audit log, at the revision the record is at (as on SQLite).
          await client.query(
            `INSERT INTO merchant_events (ab_id, at, actor, action, changes, reason, revision)
             SELECT ab_id, $1, 'letter:' || $2::text, 'letter_locked', '{}', $3, revision FROM merchants WHERE ab_id = $4`,
            [at, letterId, `${row.failed_attempts} wrong tries; a new letter is needed`, row.ab_id],
          );
        }
        return letterOf(row);
      }),
    spend: (letterId, at, claim, event, notice) =>
      inTransaction(pool, async (client) => {
        const spent = await client.query(
          `UPDATE letter_codes SET used_at = $2
           WHERE letter_id = $1 AND used_at IS NULL AND locked_at IS NULL AND superseded_at IS NULL AND expires_at > $2`,
          [letterId, at],
        );
        if (spent.rowCount === 0) return null;
        return insertClaimOn(client, claim, event, notice);
      }),
  };
}
