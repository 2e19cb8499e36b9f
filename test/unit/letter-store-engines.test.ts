/**
 * The postal letters' store on both engines (src/store/letter-repository.ts, one repository over
 * each engine's StoreDb): who a batch may go to; a batch
 * superseding the older letters of its establishments; wrong tries counted and the letter locked
 * at the limit (the lock in the audit log); a spend that records its claim in the same
 * transaction, refused for a letter used, locked, superseded or expired; two spends of one code at
 * once through two connections: one wins, one claim.
 */
import { describe, expect, it } from "vitest";
import type { LetterStore, NewLetter } from "../../src/domain/merchant-space/letter-store.ts";
import { claimNotice } from "../../src/domain/merchant-space/space-notices.ts";
import type { ClaimEvent, ClaimRecord } from "../../src/domain/merchant-space/space-store.ts";
import { createLetterRepository } from "../../src/store/letter-repository.ts";
import { insertMerchantRow, type OpenedStore, storeEngines } from "../helpers/store-engines.ts";

const T0 = "2026-11-26T10:00:00.000Z";
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();
const EXPIRES = at(60 * 24 * 90);

function lettersOf(store: OpenedStore): LetterStore {
  return createLetterRepository(store.storeDb);
}

const letter = (letterId: string, abId: string, batchId = "batch-1"): NewLetter => ({
  letterId,
  abId,
  batchId,
  locatorHash: `locator-${letterId}`,
  secretHash: `secret-${letterId}`,
  createdAt: T0,
  expiresAt: EXPIRES,
});

const row = (fresh: NewLetter, changes: Partial<Record<string, unknown>> = {}) => ({
  ...fresh,
  usedAt: null,
  failedAttempts: 0,
  lockedAt: null,
  supersededAt: null,
  ...changes,
});

const claim = (claimId: string, abId: string, subject: string): ClaimRecord => ({
  claimId,
  abId,
  siren: "732829320",
  subject,
  email: "gerante@exemple.fr",
  via: "letter",
  basis: "letter",
  acr: null,
  amr: null,
  idpId: null,
  createdAt: at(5),
  lapsedAt: null,
  revokedAt: null,
  revokedBy: null,
  revokedReason: null,
});
const claimed = (claimId: string): ClaimEvent => ({
  at: at(5),
  actor: `merchant:${claimId}`,
  action: "claimed",
  reason: "via letter",
});

async function merchant(
  store: OpenedStore,
  abId: string,
  fields: { siret: string; status: string; postalCode: string },
): Promise<void> {
  await insertMerchantRow(store, abId);
  // Parameters in the order they appear: the SQLite scene numbers them by position.
  await store.run("UPDATE merchants SET siret = $1, status = $2, postal_code = $3 WHERE ab_id = $4", [
    fields.siret,
    fields.status,
    fields.postalCode,
    abId,
  ]);
}

for (const engine of storeEngines()) {
  describe(`the letters' store on ${engine.name}`, () => {
    it("finds the listed recipients, by establishment, department and claim, and names the unlisted", async () => {
      const store = await engine.open();
      await merchant(store, "ab_letter01", { siret: "73282932000074", status: "ACTIVE", postalCode: "69002" });
      await merchant(store, "ab_letter02", { siret: "73282932000082", status: "PAUSED", postalCode: "13001" });
      await merchant(store, "ab_letter03", { siret: "73282932000090", status: "SUSPENDED", postalCode: "13002" });
      await merchant(store, "ab_letter04", { siret: "73282932000108", status: "PROBATION", postalCode: "13003" });
      await store.run("INSERT INTO territorial_proofs (ab_id, department_code) VALUES ($1, '13'), ($2, '13')", [
        "ab_letter02",
        "ab_letter03",
      ]);
      await store.run(
        `INSERT INTO merchant_claims (claim_id, ab_id, siren, subject, via, created_at)
         VALUES ('c-held', 'ab_letter04', '732829320', 'sub-held', 'proconnect', $1)`,
        [T0],
      );
      const letters = lettersOf(store);
      const recipient = (abId: string, siret: string, postalCode: string) => ({
        abId,
        siret,
        legalName: "Boulangerie Test SARL",
        businessName: "Boulangerie Test",
        street: "1 rue de la Paix",
        postalCode,
        city: "Paris",
      });
      expect(await letters.recipients({ limit: 10 })).toEqual([
        recipient("ab_letter02", "73282932000082", "13001"),
        recipient("ab_letter04", "73282932000108", "13003"),
        recipient("ab_letter01", "73282932000074", "69002"),
      ]);
      expect((await letters.recipients({ limit: 10, unclaimed: true })).map((one) => one.abId)).toEqual([
        "ab_letter02",
        "ab_letter01",
      ]);
      expect((await letters.recipients({ limit: 10, department: "13" })).map((one) => one.abId)).toEqual([
        "ab_letter02",
      ]);
      expect(
        (await letters.recipients({ limit: 10, abIds: ["ab_letter01", "ab_letter03"] })).map((one) => one.abId),
      ).toEqual(["ab_letter01"]);
      expect((await letters.recipients({ limit: 1 })).map((one) => one.abId)).toEqual(["ab_letter02"]);
      expect(await letters.unlisted(["ab_letter01", "ab_letter03", "ab_unknown1", "ab_letter02"])).toEqual([
        "ab_letter03",
        "ab_unknown1",
      ]);
    });

    it("supersedes the older unused letters of an establishment with a new batch, not a locked or used one", async () => {
      const store = await engine.open();
      await insertMerchantRow(store, "ab_letter01");
      const letters = lettersOf(store);
      const first = letter("l-1", "ab_letter01");
      const used = letter("l-2", "ab_letter01");
      await letters.recordBatch([first, used], T0);
      // Within one batch, each letter supersedes those before it: only the last one stays usable.
      expect(await letters.findByLocator(first.locatorHash)).toEqual(row(first, { supersededAt: T0 }));
      expect(
        await letters.spend(
          "l-2",
          at(1),
          claim("c-1", "ab_letter01", "letter:l-2"),
          claimed("c-1"),
          claimNotice(claim("c-1", "ab_letter01", "letter:l-2")),
        ),
      ).toEqual(claim("c-1", "ab_letter01", "letter:l-2"));
      const next = letter("l-3", "ab_letter01", "batch-2");
      await letters.recordBatch([next], at(2));
      expect(await letters.findByLocator(used.locatorHash)).toEqual(row(used, { usedAt: at(1) }));
      expect(await letters.findByLocator(next.locatorHash)).toEqual(row(next));
      expect(await letters.findByLocator("locator-none")).toBeNull();
    });

    it("counts wrong tries, locks the letter at the fifth and logs the lock; a locked letter counts nothing", async () => {
      const store = await engine.open();
      await insertMerchantRow(store, "ab_letter01");
      const letters = lettersOf(store);
      const fresh = letter("l-1", "ab_letter01");
      await letters.recordBatch([fresh], T0);
      for (let tries = 1; tries <= 4; tries++) {
        expect(await letters.countWrongTry("l-1", at(tries), 5)).toEqual(row(fresh, { failedAttempts: tries }));
      }
      // Two tries at once: both count, the letter locks once.
      const [fifth, sixth] = await Promise.all([
        lettersOf(store.another()).countWrongTry("l-1", at(5), 5),
        lettersOf(store.another()).countWrongTry("l-1", at(5), 5),
      ]);
      expect([fifth, sixth].filter((one) => one !== null)).toEqual([
        row(fresh, { failedAttempts: 5, lockedAt: at(5) }),
      ]);
      expect(await letters.countWrongTry("l-1", at(7), 5)).toBeNull();
      expect(
        await letters.spend(
          "l-1",
          at(8),
          claim("c-1", "ab_letter01", "letter:l-1"),
          claimed("c-1"),
          claimNotice(claim("c-1", "ab_letter01", "letter:l-1")),
        ),
      ).toBeNull();
      expect(
        await store.rows("SELECT actor, action, reason FROM merchant_events WHERE ab_id = $1", ["ab_letter01"]),
      ).toEqual([{ actor: "letter:l-1", action: "letter_locked", reason: "5 wrong tries; a new letter is needed" }]);
      expect(await store.rows("SELECT claim_id FROM merchant_claims")).toEqual([]);
    });

    it("spends a letter once, with its claim and audit event; an expired or superseded letter is not spent", async () => {
      const store = await engine.open();
      await insertMerchantRow(store, "ab_letter01");
      await insertMerchantRow(store, "ab_letter02");
      const letters = lettersOf(store);
      const expiring = { ...letter("l-1", "ab_letter01"), expiresAt: at(10) };
      const superseded = letter("l-2", "ab_letter02");
      await letters.recordBatch([expiring, superseded], T0);
      await letters.recordBatch([letter("l-3", "ab_letter02", "batch-2")], at(1));

      expect(
        await letters.spend(
          "l-1",
          at(10),
          claim("c-1", "ab_letter01", "letter:l-1"),
          claimed("c-1"),
          claimNotice(claim("c-1", "ab_letter01", "letter:l-1")),
        ),
      ).toBeNull();
      expect(
        await letters.spend(
          "l-2",
          at(2),
          claim("c-2", "ab_letter02", "letter:l-2"),
          claimed("c-2"),
          claimNotice(claim("c-2", "ab_letter02", "letter:l-2")),
        ),
      ).toBeNull();
      expect(await store.rows("SELECT claim_id FROM merchant_claims")).toEqual([]);

      const spent = await letters.spend(
        "l-3",
        at(2),
        claim("c-3", "ab_letter02", "letter:l-3"),
        claimed("c-3"),
        claimNotice(claim("c-3", "ab_letter02", "letter:l-3")),
      );
      expect(spent).toEqual(claim("c-3", "ab_letter02", "letter:l-3"));
      expect(
        await letters.spend(
          "l-3",
          at(3),
          claim("c-4", "ab_letter02", "letter:l-3"),
          claimed("c-4"),
          claimNotice(claim("c-4", "ab_letter02", "letter:l-3")),
        ),
      ).toBeNull();
      expect(await store.rows("SELECT claim_id, ab_id, subject, via FROM merchant_claims")).toEqual([
        { claim_id: "c-3", ab_id: "ab_letter02", subject: "letter:l-3", via: "letter" },
      ]);
      expect(
        await store.rows("SELECT actor, action, changes, reason FROM merchant_events WHERE ab_id = $1", [
          "ab_letter02",
        ]),
      ).toEqual([
        {
          actor: "merchant:c-3",
          action: "claimed",
          changes: JSON.stringify({ claim: { from: null, to: "c-3" } }),
          reason: "via letter",
        },
      ]);
      expect((await letters.findByLocator("locator-l-3"))?.usedAt).toBe(at(2));
    });

    it("spends one code typed twice at once through two connections: one wins, one claim", async () => {
      const store = await engine.open();
      await insertMerchantRow(store, "ab_letter01");
      await lettersOf(store).recordBatch([letter("l-1", "ab_letter01")], T0);
      const machines = [lettersOf(store.another()), lettersOf(store.another())];
      const spends = await Promise.all(
        ["c-1", "c-2", "c-3", "c-4"].map((claimId, index) =>
          machines[index % 2]?.spend(
            "l-1",
            at(1),
            claim(claimId, "ab_letter01", "letter:l-1"),
            claimed(claimId),
            claimNotice(claim(claimId, "ab_letter01", "letter:l-1")),
          ),
        ),
      );
      const winners = spends.filter((one) => one !== null);
      expect(winners.length).toBe(1);
      const [winner] = winners as [ClaimRecord];
      expect(await store.rows("SELECT claim_id FROM merchant_claims")).toEqual([{ claim_id: winner.claimId }]);
      expect(
        await store
          .rows("SELECT count(*) AS events FROM merchant_events WHERE action = 'claimed'")
          .then((rows) => rows.map((one) => Number((one as { events: number | string }).events))),
      ).toEqual([1]);
    });
  });
}
