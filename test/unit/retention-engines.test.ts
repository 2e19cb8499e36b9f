/**
 * Retention on both engines (src/store/retention-repository.ts on SQLite,
 * src/store/postgres/retention-repository.ts on PostgreSQL): leads, their messages, contacts and
 * orders past the cutoff anonymised with the same placeholders and the same bytes (intent_data
 * keeps its other keys in order, minified), recent ones untouched; windows over, old lead
 * Idempotency-Keys and space sessions deleted; counted alike, in batches.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { InsertLeadInput } from "../../src/domain/leads/lead-store.ts";
import { createLeadRepository } from "../../src/store/lead-repository.ts";
import { createMerchantSpaceRepository } from "../../src/store/merchant-space-repository.ts";
import { createPlatformContactRepository } from "../../src/store/platform-contact-repository.ts";
import { createPostgresLeadRepository } from "../../src/store/postgres/lead-repository.ts";
import { postgresStore } from "../../src/store/postgres/store.ts";
import { createRetentionRepository } from "../../src/store/retention-repository.ts";
import { asynchronous, insertMerchantRow, type OpenedStore, storeEngines } from "../helpers/store-engines.ts";

const AB_ID = "ab_keep0001";

function portsOf(store: OpenedStore) {
  if (store.sqlite) {
    return {
      leads: asynchronous(createLeadRepository(store.sqlite)),
      contacts: asynchronous(createPlatformContactRepository(store.sqlite)),
      space: asynchronous(createMerchantSpaceRepository(store.sqlite)),
      retention: asynchronous(createRetentionRepository(store.sqlite)),
    };
  }
  if (!store.postgres) throw new Error("no store");
  const { pool } = store.postgres;
  return {
    leads: createPostgresLeadRepository(pool),
    contacts: createPlatformContactRepository(postgresStore(pool).storeDb),
    space: createMerchantSpaceRepository(postgresStore(pool).storeDb),
    retention: createRetentionRepository(postgresStore(pool).storeDb),
  };
}

function lead(createdAt: string, email: string, message: string): InsertLeadInput {
  return {
    lead: {
      leadId: randomUUID(),
      abId: AB_ID,
      brickId: null,
      intent: "quote",
      leadType: "quote_request",
      contactName: "Inès Carpentier",
      contactEmail: email,
      contactPhone: "+33 6 12 34 56 78",
      message,
      aiContext: "contexte",
      intentData: { urgency: "high", budget_range: "100-200", timeline: "une semaine", channel: "email" },
      metadata: { source: "test" },
      agentId: null,
      channel: "api",
      createdAt,
    },
    emailNormalized: email,
    callerScope: "ip:1.2.3.4",
    windowEndsAt: new Date(Date.parse(createdAt) + 86_400_000).toISOString(),
    outboxMessageId: randomUUID(),
    followUp: { messageId: randomUUID(), outboxMessageId: randomUUID(), maxMessages: 5 },
    idempotency: {
      scope: "lead:ip:1.2.3.4",
      key: randomUUID(),
      requestHash: "h",
      forgetBefore: "2000-01-01T00:00:00.000Z",
    },
  };
}

for (const engine of storeEngines()) {
  describe(`retention on ${engine.name}`, () => {
    it("anonymises what is past the cutoff with the same bytes, deletes what is over, counts it all", async () => {
      const store = await engine.open();
      await insertMerchantRow(store, AB_ID);
      const { leads, contacts, space, retention } = portsOf(store);
      const old = lead("2025-01-10T10:00:00.000Z", "ancien@exemple.fr", "Ancienne demande");
      const recent = lead("2026-11-20T10:00:00.000Z", "recent@exemple.fr", "Demande récente");
      await leads.insertLead(old);
      await leads.insertLead(recent);
      await leads.insertFollowUp({
        messageId: "follow-1",
        leadId: old.lead.leadId,
        body: "Une précision",
        createdAt: "2026-11-20T11:00:00.000Z",
        outboxMessageId: randomUUID(),
        maxMessages: 5,
      });
      await contacts.insert(
        {
          contactId: "c-old",
          type: "press",
          name: "Léa",
          email: "lea@exemple.fr",
          phone: "+33 1 00 00 00 00",
          company: "Journal",
          message: "Bonjour",
          createdAt: "2025-01-10T10:00:00.000Z",
        },
        randomUUID(),
      );
      const person = {
        subject: "sub-1",
        email: "gerant@exemple.fr",
        givenName: "Paul",
        usualName: "Gérant",
        siret: null,
        siren: null,
        via: "proconnect" as const,
        acr: "eidas1",
        amr: null,
        idpId: null,
      };
      await space.insertSession(
        {
          sessionId: "s-old",
          tokenHash: "h-old",
          person,
          idToken: null,
          createdAt: "2026-09-01T10:00:00.000Z",
          lastSeenAt: "2026-09-01T10:00:00.000Z",
          idleExpiresAt: "2026-09-01T10:30:00.000Z",
          absoluteExpiresAt: "2026-09-01T22:00:00.000Z",
          endedAt: null,
        },
        null,
      );

      // A notice of a month and a half ago goes; one of last week stays.
      for (const [noticeId, at] of [
        ["n-old", "2026-09-15T10:00:00.000Z"],
        ["n-recent", "2026-11-19T10:00:00.000Z"],
      ]) {
        await store.run(
          `INSERT INTO space_notices (notice_id, ab_id, what, at, recipient, recipient_role)
           VALUES ($1, $2, 'claimed', $3, 'gerant@exemple.fr', 'lead_address')`,
          [noticeId, AB_ID, at],
        );
      }
      const counts = await retention.anonymizeBefore({
        cutoff: "2026-01-01T00:00:00.000Z",
        now: "2026-11-26T10:00:00.000Z",
        idempotencyCutoff: "2026-11-01T00:00:00.000Z",
        sessionCutoff: "2026-10-01T00:00:00.000Z",
        batchSize: 1,
      });
      expect(counts).toEqual({
        leads: 1,
        leadMessages: 1,
        platformContacts: 1,
        orders: 0,
        // Both windows are over at `now`: the recent lead's ended on 2026-11-21.
        dedupWindows: 2,
        idempotencyKeys: 1,
        spaceSessions: 1,
        leadEmailLinks: 0,
        spaceNotices: 1,
      });
      expect(await store.rows("SELECT notice_id FROM space_notices")).toEqual([{ notice_id: "n-recent" }]);
      expect(
        await store.rows(
          "SELECT contact_name, contact_email, contact_phone, message, ai_context, intent, intent_data, metadata, anonymized_at FROM leads WHERE lead_id = $1",
          [old.lead.leadId],
        ),
      ).toEqual([
        {
          contact_name: "Anonymisé",
          contact_email: "anonyme@anonymise.invalid",
          contact_phone: null,
          message: "[anonymisé]",
          ai_context: null,
          intent: null,
          intent_data: '{"urgency":"high","channel":"email"}',
          metadata: null,
          anonymized_at: "2026-11-26T10:00:00.000Z",
        },
      ]);
      expect(
        await store.rows("SELECT contact_name, intent_data FROM leads WHERE lead_id = $1", [recent.lead.leadId]),
      ).toEqual([
        {
          contact_name: "Inès Carpentier",
          intent_data: '{"urgency":"high","budget_range":"100-200","timeline":"une semaine","channel":"email"}',
        },
      ]);
      expect(await store.rows("SELECT body FROM lead_messages WHERE message_id = 'follow-1'")).toEqual([
        { body: "[anonymisé]" },
      ]);
      expect(await store.rows("SELECT name, phone, company FROM platform_contacts")).toEqual([
        { name: "Anonymisé", phone: null, company: null },
      ]);
      expect(await store.rows("SELECT count(*) AS n FROM pro_sessions")).toEqual([{ n: 0 }]);
      const again = await retention.anonymizeBefore({
        cutoff: "2026-01-01T00:00:00.000Z",
        now: "2026-11-26T10:00:00.000Z",
        idempotencyCutoff: "2026-11-01T00:00:00.000Z",
        sessionCutoff: "2026-10-01T00:00:00.000Z",
      });
      expect(Object.values(again).every((count) => count === 0)).toBe(true);
    });
  });
}
