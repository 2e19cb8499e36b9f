/**
 * The merchant space's links on both engines: the letter path's sign-in links (found by a live
 * letter claim's email, taken once, never after they expired or once their claim is revoked) and
 * the lead email's confirmations (the newest request withdraws the others, confirmed once), each
 * written with its outbox row.
 */
import { describe, expect, it } from "vitest";
import type {
  ConfirmationDecision,
  ConfirmationInTransaction,
} from "../../src/domain/merchant-space/lead-email-store.ts";
import type { MerchantRegistryView } from "../../src/domain/merchants/merchant-registry.ts";
import { createLeadEmailConfirmationRepository } from "../../src/store/lead-email-confirmation-repository.ts";
import {
  createPostgresLeadEmailConfirmationRepository,
  createPostgresSignInLinkRepository,
} from "../../src/store/postgres/space-link-repositories.ts";
import { createSignInLinkRepository } from "../../src/store/sign-in-link-repository.ts";
import { asynchronous, insertMerchantRow, type OpenedStore, storeEngines } from "../helpers/store-engines.ts";

const AB_ID = "ab_link0001";
const T0 = "2026-11-26T10:00:00.000Z";
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();

function portsOf(store: OpenedStore) {
  if (store.sqlite) {
    return {
      links: asynchronous(createSignInLinkRepository(store.sqlite)),
      confirmations: createLeadEmailConfirmationRepository(store.sqlite),
    };
  }
  if (!store.postgres) throw new Error("no store");
  return {
    links: createPostgresSignInLinkRepository(store.postgres.pool),
    confirmations: createPostgresLeadEmailConfirmationRepository(store.postgres.pool),
  };
}

async function letterClaim(store: OpenedStore, claimId: string, email: string) {
  await store.run(
    `INSERT INTO merchant_claims (claim_id, ab_id, siren, subject, email, via, created_at)
     VALUES ($1, $2, '732829320', $3, $4, 'letter', $5)`,
    [claimId, AB_ID, `letter:${claimId}`, email, T0],
  );
}

for (const engine of storeEngines()) {
  describe(`the space's links on ${engine.name}`, () => {
    it("sign-in links: found by the claim's email, taken once, not after expiry nor once the claim is revoked", async () => {
      const store = await engine.open();
      await insertMerchantRow(store, AB_ID);
      await letterClaim(store, "c-1", "Gerante@Exemple.fr");
      await letterClaim(store, "c-2", "gerante@exemple.fr");
      const { links } = portsOf(store);
      expect(await links.liveLetterClaimsOf("GERANTE@exemple.fr")).toEqual([
        { claimId: "c-1", abId: AB_ID, businessName: "Boulangerie Test" },
        { claimId: "c-2", abId: AB_ID, businessName: "Boulangerie Test" },
      ]);
      const link = (id: string, claimId: string) => ({
        linkId: id,
        claimId,
        email: "gerante@exemple.fr",
        createdAt: T0,
        expiresAt: at(15),
        usedAt: null,
      });
      await links.insertLinks([link("l-1", "c-1"), link("l-2", "c-1"), link("l-3", "c-2")], T0);
      expect(await store.rows("SELECT count(*) AS n FROM outbox WHERE kind = 'space_sign_in_link'")).toEqual([
        { n: 3 },
      ]);
      const taken = await Promise.all([links.takeLink("l-1", at(1)), links.takeLink("l-1", at(1))]);
      expect(taken.filter((one) => one !== null)).toEqual([{ ...link("l-1", "c-1"), usedAt: at(1) }]);
      expect(await links.takeLink("l-2", at(16))).toBeNull();
      await store.run("UPDATE merchant_claims SET revoked_at = $1 WHERE claim_id = 'c-2'", [at(2)]);
      expect(await links.takeLink("l-3", at(3))).toBeNull();
      expect(await links.findLink("l-1")).toEqual({
        ...link("l-1", "c-1"),
        usedAt: at(1),
        businessName: "Boulangerie Test",
      });
      expect(await links.findLink("nothing")).toBeNull();
    });

    it("lead email confirmations: the newest request withdraws the others, confirmed once", async () => {
      const store = await engine.open();
      await insertMerchantRow(store, AB_ID);
      const { confirmations } = portsOf(store);
      const request = (id: string, minutes: number) => ({
        confirmationId: id,
        abId: AB_ID,
        email: `${id}@exemple.fr`,
        tokenHash: `hash-${id}`,
        requestedBy: "merchant:c-1",
        createdAt: at(minutes),
        expiresAt: at(minutes + 48 * 60),
      });
      await confirmations.request(request("r-1", 0), "o-1");
      await confirmations.request(request("r-2", 5), "o-2");
      expect((await confirmations.find("r-1"))?.withdrawnAt).toBe(at(5));
      expect((await confirmations.pendingOf(AB_ID, at(6)))?.confirmationId).toBe("r-2");
      expect((await confirmations.findByTokenHash("hash-r-2"))?.email).toBe("r-2@exemple.fr");
      expect((await confirmations.findForDelivery("r-2"))?.businessName).toBe("Boulangerie Test");
      // Confirming reads the request in its transaction (the decision refuses a used or withdrawn
      // one) and writes the merchant's email through the registry in the same transaction.
      const setEmail =
        (email: string) =>
        (found: ConfirmationInTransaction | null, registry: MerchantRegistryView): ConfirmationDecision<boolean> => {
          if (!found || found.confirmation.confirmedAt || found.confirmation.withdrawnAt) throw new Error("refused");
          const current = registry.find(AB_ID);
          if (!current) throw new Error("no merchant");
          const updated = registry.update({
            abId: AB_ID,
            expectedRevision: current.revision,
            fields: { email },
            products: null,
            territorialProof: undefined,
            event: { at: at(7), actor: "merchant:c-1", action: "updated", changes: {}, reason: null },
            feed: "updated",
          });
          return { result: updated, waitFor: null };
        };
      await expect(confirmations.confirm("r-1", at(7), setEmail("r-1@exemple.fr"))).rejects.toThrow("refused");
      // A decision that throws spends nothing: the link still waits.
      await expect(
        confirmations.confirm("r-2", at(7), () => {
          throw new Error("refused");
        }),
      ).rejects.toThrow("refused");
      expect((await confirmations.pendingOf(AB_ID, at(7)))?.confirmationId).toBe("r-2");
      const twice = await Promise.allSettled([
        confirmations.confirm("r-2", at(7), setEmail("r-2@exemple.fr")),
        confirmations.confirm("r-2", at(7), setEmail("r-2@exemple.fr")),
      ]);
      expect(twice.map((outcome) => outcome.status).sort()).toEqual(["fulfilled", "rejected"]);
      expect(twice.find((outcome) => outcome.status === "fulfilled")).toEqual({ status: "fulfilled", value: true });
      expect(await confirmations.pendingOf(AB_ID, at(8))).toBeNull();
      expect((await confirmations.find("r-2"))?.confirmedAt).toBe(at(7));
      expect(await store.rows("SELECT email, revision FROM merchants")).toEqual([
        { email: "r-2@exemple.fr", revision: 2 },
      ]);
      expect(await store.rows("SELECT actor FROM merchant_events")).toEqual([{ actor: "merchant:c-1" }]);
      expect(
        await store.rows("SELECT message_id FROM outbox WHERE kind = 'lead_email_confirmation' ORDER BY message_id"),
      ).toEqual([{ message_id: "o-1" }, { message_id: "o-2" }]);
    });
  });
}
