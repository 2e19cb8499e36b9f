/**
 * The postal letters' codes, on both engines (the port: src/domain/merchant-space/letter-store.ts).
 * A wrong try is one UPDATE (two tries at once both count: SQLite's single writer, or PostgreSQL's
 * row lock); a spend is one UPDATE ... WHERE used_at IS NULL (of two spends at once the second
 * finds the letter used) and records its claim in the same transaction (claimWrites, the merchant
 * space's).
 */
import type { LetterStore } from "../domain/merchant-space/letter-store.ts";
import { LISTED_STATUSES } from "../domain/merchants/lifecycle.ts";
import { and, asc, eq, gt, inArray, isNull, ne, notExists, sql } from "./drizzle.ts";
import { auditWrites, claimWrites } from "./merchant-space-repository.ts";
import { letterCodes, merchantClaims, merchants, territorialProofs } from "./schema.ts";
import { secretFile } from "./secret-files.ts";
import { byKey, inTransaction, rows, run, type StoreDb } from "./store-db.ts";

const LISTED = [...LISTED_STATUSES];

export function createLetterRepository(db: StoreDb): LetterStore {
  const byLocator = byKey(db, letterCodes, letterCodes.locatorHash, "locatorHash");
  return {
    async recipients(filter) {
      const conditions = [inArray(merchants.status, LISTED)];
      if (filter.abIds) conditions.push(inArray(merchants.abId, [...filter.abIds]));
      if (filter.department !== undefined) {
        const inDepartment = db
          .select({ abId: territorialProofs.abId })
          .from(territorialProofs)
          .where(eq(territorialProofs.departmentCode, filter.department));
        conditions.push(inArray(merchants.abId, inDepartment));
      }
      if (filter.unclaimed) {
        const liveClaim = db
          .select({ one: sql`1` })
          .from(merchantClaims)
          .where(and(eq(merchantClaims.abId, merchants.abId), isNull(merchantClaims.revokedAt)));
        conditions.push(notExists(liveClaim));
      }
      return db
        .select({
          abId: merchants.abId,
          siret: merchants.siret,
          legalName: merchants.legalName,
          businessName: merchants.businessName,
          street: merchants.street,
          postalCode: merchants.postalCode,
          city: merchants.city,
        })
        .from(merchants)
        .where(and(...conditions))
        .orderBy(asc(merchants.postalCode), asc(merchants.abId))
        .limit(filter.limit);
    },
    async unlisted(abIds) {
      const listed = await db
        .select({ abId: merchants.abId })
        .from(merchants)
        .where(and(inArray(merchants.abId, [...abIds]), inArray(merchants.status, LISTED)));
      const known = new Set(listed.map((row) => row.abId));
      return abIds.filter((abId) => !known.has(abId));
    },
    recordBatch: (letters, at) =>
      inTransaction(db, function* (tx) {
        for (const letter of letters) {
          yield* run(tx.insert(letterCodes).values(letter));
          yield* run(
            tx
              .update(letterCodes)
              .set({ supersededAt: at })
              .where(
                and(
                  eq(letterCodes.abId, letter.abId),
                  ne(letterCodes.letterId, letter.letterId),
                  isNull(letterCodes.usedAt),
                  isNull(letterCodes.lockedAt),
                  isNull(letterCodes.supersededAt),
                ),
              ),
          );
        }
      }),
    async findByLocator(locatorHash) {
      return (await byLocator.get({ locatorHash })) ?? null;
    },
    countWrongTry: (letterId, at, lockAfter) =>
      inTransaction(db, function* (tx) {
        const [letter] = yield* rows(
          tx
            .update(letterCodes)
            .set({
              failedAttempts: sql`${letterCodes.failedAttempts} + 1`,
              lockedAt: sql`CASE WHEN ${letterCodes.failedAttempts} + 1 >= ${lockAfter} THEN ${at} ELSE NULL END`,
            })
            .where(and(eq(letterCodes.letterId, letterId), isNull(letterCodes.lockedAt)))
            .returning(),
        );
        if (!letter) return null;
        if (letter.lockedAt !== null) {
          // The lock goes in the merchant's audit log. No code, no email: the letter's id only.
          yield* auditWrites(tx, letter.abId, {
            at,
            actor: `letter:${letterId}`,
            action: "letter_locked",
            changes: "{}",
            reason: `${letter.failedAttempts} wrong tries; a new letter is needed`,
          });
        }
        return letter;
      }),
    spend: (letterId, at, claim, event, notice) =>
      inTransaction(db, function* (tx) {
        const spent = yield* rows(
          tx
            .update(letterCodes)
            .set({ usedAt: at })
            .where(
              and(
                eq(letterCodes.letterId, letterId),
                isNull(letterCodes.usedAt),
                isNull(letterCodes.lockedAt),
                isNull(letterCodes.supersededAt),
                gt(letterCodes.expiresAt, at),
              ),
            )
            .returning({ letterId: letterCodes.letterId }),
        );
        if (spent.length === 0) return null;
        return yield* claimWrites(tx, claim, event, notice);
      }),
  };
}

/** The key of the letter codes' hashes (created on first use, like the other secrets). */
export function letterCodeKeyFile(dataDir: string): string {
  return secretFile(dataDir, "letterCode");
}
