/**
 * The small ports' contract on both store engines (docs/several-machines.md): settings, agents,
 * attribution sessions, orders, platform contacts and space notices' delivery reads, one repository each (src/store/*) over either
 * engine's StoreDb (src/store/store-db.ts), answer the same on SQLite and on PostgreSQL: the same values back, the same refusals, and the writes
 * that must be atomic or single (a conversion, an order with its Idempotency-Key, a contact with
 * its outbox row) single on both.
 */
import { describe, expect, it } from "vitest";
import type { NewAgent } from "../../src/domain/agents/agent.ts";
import type { OrderRecord } from "../../src/domain/orders/order-store.ts";
import { createAgentRepository } from "../../src/store/agent-repository.ts";
import { createAttributionRepository } from "../../src/store/attribution-repository.ts";
import { createOrderRepository } from "../../src/store/order-repository.ts";
import { createPlatformContactRepository } from "../../src/store/platform-contact-repository.ts";
import { createSettingsRepository } from "../../src/store/settings-repository.ts";
import { createSpaceNoticeRepository } from "../../src/store/space-notice-repository.ts";
import { insertMerchantRow, type OpenedStore, storeEngines } from "../helpers/store-engines.ts";

const T0 = "2026-11-26T10:00:00.000Z";

/** One repository of each per engine (src/store/*), built over the engine's StoreDb. */
function ports(store: OpenedStore) {
  return {
    settings: createSettingsRepository(store.storeDb),
    agents: createAgentRepository(store.storeDb),
    attribution: createAttributionRepository(store.storeDb),
    orders: createOrderRepository(store.storeDb),
    contacts: createPlatformContactRepository(store.storeDb),
    spaceNotices: createSpaceNoticeRepository(store.storeDb),
  };
}

const agent = (id: string, createdAt: string, status: NewAgent["status"] = "active"): NewAgent => ({
  agentId: id,
  agentName: `Agent ${id}`,
  agentUrl: null,
  contactEmail: `${id}@exemple.fr`,
  requestedLevel: 1,
  certificationLevel: 1,
  status,
  capabilities: ["search", "leads"],
  keyHash: `hash-${id}`,
  keyPrefix: `abk_${id}`,
  registeredFrom: null,
  createdAt,
  updatedAt: createdAt,
});

const order = (id: string, abId: string): OrderRecord => ({
  orderId: id,
  abId,
  items: [{ product_id: "p-1", quantity: 2, unit_cents: 450 }],
  amountCents: 900,
  currency: "EUR",
  fulfillmentType: "pickup",
  deliveryAddress: null,
  userEmail: "client@exemple.fr",
  customerNotes: "Sans sucre",
  agentId: null,
  status: "payment_pending",
  paymentProvider: "stripe",
  paymentIntentId: null,
  checkoutUrl: null,
  createdAt: T0,
});

for (const engine of storeEngines()) {
  describe(`the small ports on ${engine.name}`, () => {
    it("settings: absent, set, read by every process, set again", async () => {
      const store = await engine.open();
      const { settings } = ports(store);
      const elsewhere = ports(store.another()).settings;
      expect(await settings.get("kill_switch")).toBeNull();
      await settings.set("kill_switch", "on", new Date(T0));
      expect(await elsewhere.get("kill_switch")).toBe("on");
      await elsewhere.set("kill_switch", "off", new Date("2026-11-26T11:00:00.000Z"));
      expect(await settings.find("kill_switch")).toEqual({
        key: "kill_switch",
        value: "off",
        updatedAt: "2026-11-26T11:00:00.000Z",
      });
    });

    it("agents: found by key hash and id, listed by status in registration order, updated; a key hash is unique", async () => {
      const store = await engine.open();
      const { agents } = ports(store);
      await agents.insert(agent("a2", "2026-11-26T10:02:00.000Z"));
      await agents.insert(agent("a1", "2026-11-26T10:01:00.000Z"));
      await agents.insert(agent("a3", "2026-11-26T10:03:00.000Z", "suspended"));
      const { keyHash: _hash, ...expected } = agent("a1", "2026-11-26T10:01:00.000Z");
      expect(await agents.findByKeyHash("hash-a1")).toEqual(expected);
      expect(await agents.findById("a1")).toEqual(expected);
      expect(await agents.findById("nobody")).toBeNull();
      expect((await agents.list({ status: "active" })).map((one) => one.agentId)).toEqual(["a1", "a2"]);
      expect((await agents.list()).map((one) => one.agentId)).toEqual(["a1", "a2", "a3"]);
      expect(
        await agents.update("a2", {
          from: "active",
          status: "suspended",
          certificationLevel: 2,
          now: new Date("2026-11-26T12:00:00.000Z"),
        }),
      ).toMatchObject({
        agentId: "a2",
        status: "suspended",
        certificationLevel: 2,
        updatedAt: "2026-11-26T12:00:00.000Z",
      });
      expect(
        await agents.update("nobody", { from: "active", status: "active", certificationLevel: 1, now: new Date(T0) }),
      ).toBeNull();
      // Decided from a status that no longer holds: nothing written.
      expect(
        await agents.update("a2", { from: "active", status: "revoked", certificationLevel: 2, now: new Date(T0) }),
      ).toBeNull();
      expect(await agents.findById("a2")).toMatchObject({ status: "suspended" });
      await expect(agents.insert({ ...agent("a4", T0), keyHash: "hash-a1" })).rejects.toThrow();
    });

    it("attribution: a session converts once, never after it expired; owners of leads and orders", async () => {
      const store = await engine.open();
      const { attribution } = ports(store);
      const session = {
        sessionId: "s-1",
        agentId: "a1",
        abId: "ab_test0001",
        evidenceLevel: "campaign",
        referrer: null,
        campaign: { utm_source: "agent" },
        userAgentFamily: null,
        createdAt: T0,
        expiresAt: "2026-11-27T10:00:00.000Z",
        convertedAt: null,
        leadId: null,
        orderId: null,
      };
      await attribution.insert(session);
      await attribution.insert({ ...session, sessionId: "s-2", expiresAt: "2026-11-26T10:30:00.000Z" });
      expect(await attribution.findById("s-1")).toEqual(session);
      const conversion = { leadId: "l-1", orderId: null, at: "2026-11-26T11:00:00.000Z" };
      const twice = await Promise.all([attribution.convert("s-1", conversion), attribution.convert("s-1", conversion)]);
      expect(twice.sort()).toEqual([false, true]);
      expect(await attribution.convert("s-2", conversion)).toBe(false);
      expect(await attribution.findById("s-1")).toMatchObject({
        convertedAt: "2026-11-26T11:00:00.000Z",
        leadId: "l-1",
      });
      expect(await attribution.leadOwner("l-unknown")).toBeNull();
      expect(await attribution.orderOwner("o-unknown")).toBeNull();
    });

    it("orders: stored with their Idempotency-Key at once; a twin is a duplicate; the payment account", async () => {
      const store = await engine.open();
      await insertMerchantRow(store, "ab_shop0001", { paymentSetup: true, paymentAccountId: "acct_123" });
      await insertMerchantRow(store, "ab_shop0002");
      const { orders, attribution } = ports(store);
      const idempotency = { scope: "agent:a1", key: "k-1", requestHash: "h".repeat(64) };
      expect(await orders.insert(order("o-1", "ab_shop0001"), idempotency)).toBe("inserted");
      expect(await orders.insert(order("o-1", "ab_shop0001"), null)).toBe("duplicate");
      expect(await orders.findIdempotent("agent:a1", "k-1")).toEqual({ requestHash: "h".repeat(64), orderId: "o-1" });
      expect(await orders.findIdempotent("agent:a2", "k-1")).toBeNull();
      expect(await orders.findById("o-1")).toEqual(order("o-1", "ab_shop0001"));
      expect(await orders.paymentAccountFor("ab_shop0001")).toBe("acct_123");
      expect(await orders.paymentAccountFor("ab_shop0002")).toBeNull();
      expect(await attribution.orderOwner("o-1")).toEqual({ abId: "ab_shop0001", agentId: null });
      // The same key again for another order: refused, and the order is not kept either.
      await expect(orders.insert(order("o-2", "ab_shop0001"), idempotency)).rejects.toThrow();
      expect(await orders.findById("o-2")).toBeNull();
    });

    it("platform contacts: the contact and its outbox row written together", async () => {
      const store = await engine.open();
      const { contacts } = ports(store);
      const contact = {
        contactId: "c-1",
        type: "press",
        name: "Léa Martin",
        email: "lea@exemple.fr",
        phone: null,
        company: "Le Journal",
        message: "Bonjour,\nune question.",
        createdAt: T0,
      };
      await contacts.insert(contact, "m-1");
      expect(await contacts.find("c-1")).toEqual({ ...contact, status: "received", anonymizedAt: null });
      expect(await store.rows("SELECT message_id, kind, subject_id, status FROM outbox")).toEqual([
        { message_id: "m-1", kind: "platform_contact", subject_id: "c-1", status: "pending" },
      ]);
      // A second contact whose outbox id is taken: neither is kept.
      await expect(contacts.insert({ ...contact, contactId: "c-2" }, "m-1")).rejects.toThrow();
      expect(await contacts.find("c-2")).toBeNull();
    });

    it("space notices: read for delivery with their listing and the claim that acted, if any", async () => {
      const store = await engine.open();
      await insertMerchantRow(store, "ab_shop0001");
      await store.run(
        `INSERT INTO merchant_claims (claim_id, ab_id, siren, subject, email, via, created_at)
         VALUES ('cl-1', 'ab_shop0001', '732829320', 'sub-1', 'gerant@exemple.fr', 'proconnect', $1)`,
        [T0],
      );
      const notice = `INSERT INTO space_notices
          (notice_id, ab_id, what, at, by_claim_id, from_email, to_email, confirmation_id, recipient, recipient_role)
        VALUES ($1, 'ab_shop0001', $2, $3, $4, $5, $6, NULL, $7, $8)`;
      await store.run(notice, ["n-1", "claimed", T0, "cl-1", null, null, "contact@boulangerie.fr", "lead_address"]);
      await store.run(notice, [
        "n-2",
        "lead_email_changed",
        T0,
        null,
        "contact@boulangerie.fr",
        "nouveau@boulangerie.fr",
        "gerant@exemple.fr",
        "claimant",
      ]);
      const { spaceNotices } = ports(store);
      const listing = {
        businessName: "Boulangerie Test",
        legalName: "Boulangerie Test SARL",
        siret: "73282932000074",
        city: "Paris",
      };
      expect(await spaceNotices.findForDelivery("n-1")).toEqual({
        noticeId: "n-1",
        abId: "ab_shop0001",
        what: "claimed",
        at: T0,
        byClaimId: "cl-1",
        fromEmail: null,
        toEmail: null,
        confirmationId: null,
        recipient: { email: "contact@boulangerie.fr", role: "lead_address" },
        listing,
        by: { via: "proconnect", siren: "732829320" },
      });
      expect(await spaceNotices.findForDelivery("n-2")).toEqual({
        noticeId: "n-2",
        abId: "ab_shop0001",
        what: "lead_email_changed",
        at: T0,
        byClaimId: null,
        fromEmail: "contact@boulangerie.fr",
        toEmail: "nouveau@boulangerie.fr",
        confirmationId: null,
        recipient: { email: "gerant@exemple.fr", role: "claimant" },
        listing,
        by: null,
      });
      expect(await spaceNotices.findForDelivery("n-unknown")).toBeNull();
    });
  });
}
