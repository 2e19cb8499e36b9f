import type {
  LetterRecipient,
  LetterRecipientFilter,
  LetterRow,
  LetterStore,
  NewLetter,
} from "../domain/merchant-space/letter-store.ts";
import type { ClaimEvent, ClaimRecord, SpaceNotice } from "../domain/merchant-space/space-store.ts";
import { LISTED_STATUSES } from "../domain/merchants/lifecycle.ts";
import type { StoreConnection } from "./connection.ts";
import { claimWriter } from "./merchant-space-repository.ts";
import { secretFile } from "./secret-files.ts";

export interface LetterDbRow {
  letter_id: string;
  ab_id: string;
  batch_id: string;
  locator_hash: string;
  secret_hash: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  failed_attempts: number;
  locked_at: string | null;
  superseded_at: string | null;
}

const LISTED = [...LISTED_STATUSES].map((status) => `'${status}'`).join(", ");

export function createLetterRepository(db: StoreConnection): LetterStore {
  const sqlite = db.$client;
  const insertLetter = sqlite.prepare(
    `INSERT INTO letter_codes (letter_id, ab_id, batch_id, locator_hash, secret_hash, created_at, expires_at)
     VALUES (@letterId, @abId, @batchId, @locatorHash, @secretHash, @createdAt, @expiresAt)`,
  );
  const supersede = sqlite.prepare(
    `UPDATE letter_codes SET superseded_at = @at
     WHERE ab_id = @abId AND letter_id <> @letterId AND used_at IS NULL AND locked_at IS NULL AND superseded_at IS NULL`,
  );
  const byLocator = sqlite.prepare<[string], LetterDbRow>("SELECT * FROM letter_codes WHERE locator_hash = ?");
  const byId = sqlite.prepare<[string], LetterDbRow>("SELECT * FROM letter_codes WHERE letter_id = ?");
  const countTry = sqlite.prepare(
    `UPDATE letter_codes SET failed_attempts = failed_attempts + 1,
       locked_at = CASE WHEN failed_attempts + 1 >= @lockAfter THEN @at ELSE NULL END
     WHERE letter_id = @letterId AND locked_at IS NULL`,
  );
  const spendLetter = sqlite.prepare(
    `UPDATE letter_codes SET used_at = @at
     WHERE letter_id = @letterId AND used_at IS NULL AND locked_at IS NULL AND superseded_at IS NULL AND expires_at > @at`,
  );
  const writeClaim = claimWriter(sqlite);
  const spendTx = sqlite.transaction(
    (letterId: string, at: string, claim: ClaimRecord, event: ClaimEvent, notice: SpaceNotice) =>
      spendLetter.run({ letterId, at }).changes === 0 ? null : writeClaim(claim, event, notice),
  );
  const recordTx = sqlite.transaction((letters: readonly NewLetter[], at: string) => {
    for (const letter of letters) {
      insertLetter.run(letter);
      supersede.run({ at, abId: letter.abId, letterId: letter.letterId });
    }
  });
  // The lock goes in the merchant's audit log, at the revision the record is at (the record does
  // not change: nothing to publish, no change-feed row). No code, no email: the letter's id only.
  const insertLockEvent = sqlite.prepare(
    `INSERT INTO merchant_events (ab_id, at, actor, action, changes, reason, revision)
     SELECT ab_id, @at, 'letter:' || @letterId, 'letter_locked', '{}', @reason, revision FROM merchants WHERE ab_id = @abId`,
  );
  const countTx = sqlite.transaction((letterId: string, at: string, lockAfter: number) => {
    if (countTry.run({ letterId, at, lockAfter }).changes === 0) return null;
    const row = byId.get(letterId);
    if (!row) return null;
    if (row.locked_at !== null) {
      insertLockEvent.run({
        at,
        letterId,
        abId: row.ab_id,
        reason: `${row.failed_attempts} wrong tries; a new letter is needed`,
      });
    }
    return letterOf(row);
  });
  return {
    async recipients(filter: LetterRecipientFilter): Promise<LetterRecipient[]> {
      const conditions = [`m.status IN (${LISTED})`];
      const parameters: Record<string, string | number> = { limit: filter.limit };
      if (filter.abIds) {
        conditions.push(`m.ab_id IN (SELECT value FROM json_each(@abIds))`);
        parameters.abIds = JSON.stringify(filter.abIds);
      }
      if (filter.department !== undefined) {
        conditions.push("m.ab_id IN (SELECT ab_id FROM territorial_proofs WHERE department_code = @department)");
        parameters.department = filter.department;
      }
      if (filter.unclaimed) {
        conditions.push(
          "NOT EXISTS (SELECT 1 FROM merchant_claims c WHERE c.ab_id = m.ab_id AND c.revoked_at IS NULL)",
        );
      }
      return sqlite
        .prepare<Record<string, string | number>, LetterRecipient>(
          `SELECT m.ab_id AS abId, m.siret, m.legal_name AS legalName, m.business_name AS businessName,
                  m.street, m.postal_code AS postalCode, m.city
           FROM merchants m WHERE ${conditions.join(" AND ")} ORDER BY m.postal_code, m.ab_id LIMIT @limit`,
        )
        .all(parameters);
    },
    async unlisted(abIds) {
      const listed = new Set(
        sqlite
          .prepare<[string], string>(
            `SELECT ab_id FROM merchants WHERE ab_id IN (SELECT value FROM json_each(?)) AND status IN (${LISTED})`,
          )
          .pluck()
          .all(JSON.stringify(abIds)),
      );
      return abIds.filter((abId) => !listed.has(abId));
    },
    recordBatch: async (letters, at) => recordTx.immediate(letters, at),
    async findByLocator(locatorHash) {
      const row = byLocator.get(locatorHash);
      return row ? letterOf(row) : null;
    },
    countWrongTry: async (letterId, at, lockAfter) => countTx.immediate(letterId, at, lockAfter),
    spend: async (letterId, at, claim, event, notice) => spendTx.immediate(letterId, at, claim, event, notice),
  };
}

export function letterOf(row: LetterDbRow): LetterRow {
  return {
    letterId: row.letter_id,
    abId: row.ab_id,
    batchId: row.batch_id,
    locatorHash: row.locator_hash,
    secretHash: row.secret_hash,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    usedAt: row.used_at,
    failedAttempts: row.failed_attempts,
    lockedAt: row.locked_at,
    supersededAt: row.superseded_at,
  };
}

/** The key of the letter codes' hashes (created on first use, like the other secrets). */
export function letterCodeKeyFile(dataDir: string): string {
  return secretFile(dataDir, "letterCode");
}
