/**
 * The lead store's contract on both engines (src/store/lead-repository.ts on SQLite,
 * src/store/postgres/lead-repository.ts on PostgreSQL): a lead with its outbox row, the 24-hour
 * window (a duplicate answered with the first lead, its new message a follow-up, the follow-up
 * limit), Idempotency-Keys (replay, conflict), the merchant's answers and their limit; and what
 * several machines need: identical submissions and one Idempotency-Key sent at once through two
 * connections give one lead.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import type { InsertLeadInput, LeadRepository } from "../../src/domain/leads/lead-store.ts";
import { createLeadRepository } from "../../src/store/lead-repository.ts";
import { createPostgresLeadRepository } from "../../src/store/postgres/lead-repository.ts";
import { asynchronous, insertMerchantRow, type OpenedStore, storeEngines } from "../helpers/store-engines.ts";

const AB_ID = "ab_lead0001";
const T0 = "2026-11-26T10:00:00.000Z";
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();

function leadsOf(store: OpenedStore): LeadRepository {
  if (store.sqlite) return asynchronous(createLeadRepository(store.sqlite));
  if (store.postgres) return createPostgresLeadRepository(store.postgres.pool);
  throw new Error("no store");
}

function submission(
  options: { minutes?: number; email?: string; message?: string | null; key?: string; hash?: string } = {},
): InsertLeadInput {
  const createdAt = at(options.minutes ?? 0);
  const email = options.email ?? "ines@exemple.fr";
  return {
    lead: {
      leadId: randomUUID(),
      abId: AB_ID,
      brickId: null,
      intent: "quote",
      leadType: "quote_request",
      contactName: "Inès Carpentier",
      contactEmail: email,
      contactPhone: null,
      message: options.message === undefined ? "Fuite sous l'évier." : options.message,
      aiContext: null,
      intentData: { budget: "100" },
      metadata: null,
      agentId: "a1",
      channel: "api",
      createdAt,
    },
    emailNormalized: email.toLowerCase(),
    callerScope: "agent:a1",
    windowEndsAt: new Date(Date.parse(createdAt) + 24 * 3_600_000).toISOString(),
    outboxMessageId: randomUUID(),
    followUp: { messageId: randomUUID(), outboxMessageId: randomUUID(), maxMessages: 2 },
    idempotency: options.key
      ? { scope: "agent:a1", key: options.key, requestHash: options.hash ?? "h1", forgetBefore: at(-24 * 60) }
      : null,
  };
}

for (const engine of storeEngines()) {
  describe(`the lead store on ${engine.name}`, () => {
    it("records a lead with its outbox row; a duplicate within 24 h answers the first, its new message a follow-up, within the limit", async () => {
      const store = await engine.open();
      await insertMerchantRow(store, AB_ID);
      const leads = leadsOf(store);
      const first = submission();
      expect(await leads.insertLead(first)).toEqual({ kind: "created", leadId: first.lead.leadId });
      expect(await leads.insertLead(submission({ minutes: 1 }))).toEqual({
        kind: "duplicate",
        leadId: first.lead.leadId,
        followUpId: null,
      });
      const withNews = submission({ minutes: 2, message: "Et le robinet fuit aussi." });
      expect(await leads.insertLead(withNews)).toEqual({
        kind: "duplicate",
        leadId: first.lead.leadId,
        followUpId: withNews.followUp.messageId,
      });
      await leads.insertLead(submission({ minutes: 3, message: "Troisième message." }));
      expect(await leads.insertLead(submission({ minutes: 4, message: "Un de trop." }))).toEqual({
        kind: "follow_up_limit",
        leadId: first.lead.leadId,
      });
      const later = submission({ minutes: 24 * 60 + 1 });
      expect(await leads.insertLead(later)).toEqual({ kind: "created", leadId: later.lead.leadId });

      expect(await leads.findSummary(first.lead.leadId)).toMatchObject({
        abId: AB_ID,
        merchantName: "Boulangerie Test",
        trackingStatus: "received",
        messagesCount: 2,
        merchantStatus: null,
      });
      expect(await leads.findForDelivery(first.lead.leadId)).toMatchObject({
        contactName: "Inès Carpentier",
        intentData: { budget: "100" },
        channel: "api",
        merchantSector: "bakery",
      });
      // A batch's leads in one read: the same leads as one read each, an absent id left out.
      const many = await leads.findManyForDelivery([first.lead.leadId, "absent", later.lead.leadId, first.lead.leadId]);
      expect([...many.keys()].sort()).toEqual([first.lead.leadId, later.lead.leadId].sort());
      expect(many.get(first.lead.leadId)).toEqual(await leads.findForDelivery(first.lead.leadId));
      expect(many.get(later.lead.leadId)).toEqual(await leads.findForDelivery(later.lead.leadId));
      expect((await leads.findManyForDelivery([])).size).toBe(0);
      const followUp = await leads.findFollowUpForDelivery(withNews.followUp.messageId);
      expect([followUp?.body, followUp?.position]).toEqual(["Et le robinet fuit aussi.", 1]);
      expect(
        (await store.rows<{ kind: string }>("SELECT kind FROM outbox ORDER BY created_at")).map((row) => row.kind),
      ).toEqual(["lead_notification", "lead_follow_up", "lead_follow_up", "lead_notification"]);
      const listed = await leads.listForMerchant(AB_ID, { limit: 10, offset: 0 });
      expect([listed.total, listed.leads.map((lead) => lead.leadId)]).toEqual([
        2,
        [later.lead.leadId, first.lead.leadId],
      ]);
    });

    it("replays an Idempotency-Key, refuses it for another request, forgets it after its time", async () => {
      const store = await engine.open();
      await insertMerchantRow(store, AB_ID);
      const leads = leadsOf(store);
      const first = submission({ key: "k-1" });
      await leads.insertLead(first);
      expect(await leads.insertLead(submission({ key: "k-1", email: "autre@exemple.fr" }))).toEqual({
        kind: "replayed",
        leadId: first.lead.leadId,
        originalKind: "created",
      });
      expect(await leads.insertLead(submission({ key: "k-1", hash: "h2" }))).toEqual({ kind: "idempotency_conflict" });
    });

    it("records the merchant's answers and status, within its limit; nothing for another merchant's lead", async () => {
      const store = await engine.open();
      await insertMerchantRow(store, AB_ID);
      const leads = leadsOf(store);
      const first = submission();
      await leads.insertLead(first);
      const answer = (n: number) => ({
        leadId: first.lead.leadId,
        abId: AB_ID,
        at: at(10 + n),
        actor: "merchant:c-1",
        nextStatus: () => "answered" as const,
        answer: { messageId: `ans-${n}`, body: `Réponse ${n}`, outboxMessageId: randomUUID(), maxAnswers: 2 },
      });
      expect(await leads.recordResponse(answer(1))).toEqual({ kind: "recorded", status: "answered", answersCount: 1 });
      expect(await leads.recordResponse(answer(2))).toEqual({ kind: "recorded", status: "answered", answersCount: 2 });
      expect(await leads.recordResponse(answer(3))).toEqual({ kind: "answer_limit" });
      expect(await leads.recordResponse({ ...answer(4), abId: "ab_other001" })).toEqual({ kind: "not_found" });
      expect((await leads.listAnswers(first.lead.leadId)).map((one) => one.body)).toEqual(["Réponse 1", "Réponse 2"]);
      expect((await leads.findAnswerForDelivery("ans-2"))?.lead.leadId).toBe(first.lead.leadId);
      expect((await leads.findForMerchant(AB_ID, first.lead.leadId))?.lead.answersCount).toBe(2);
      expect(await leads.findForMerchant("ab_other001", first.lead.leadId)).toBeNull();
    });

    it("writes nothing for a lead whose merchant is not in the registry", async () => {
      const store = await engine.open();
      const leads = leadsOf(store);
      await expect(
        leads.insertLead({ ...submission(), lead: { ...submission().lead, abId: "ab_absent01" } }),
      ).rejects.toThrow();
      for (const table of ["leads", "lead_dedup_windows", "outbox"]) {
        expect(await store.rows(`SELECT count(*) AS n FROM ${table}`)).toEqual([{ n: 0 }]);
      }
    });

    if (engine.name === "PostgreSQL") {
      it("records a new lead without an Idempotency-Key in one statement, outside a transaction", async () => {
        const store = await engine.open();
        await insertMerchantRow(store, AB_ID);
        const pool = store.postgres?.pool as pg.Pool;
        const statements: string[] = [];
        let connections = 0;
        const counted = new Proxy(pool, {
          get(target, property, receiver) {
            if (property === "query")
              return (text: string, values: unknown[]) => {
                statements.push(text);
                return target.query(text, values);
              };
            if (property === "connect")
              return () => {
                connections += 1;
                return target.connect();
              };
            return Reflect.get(target, property, receiver);
          },
        });
        const leads = createPostgresLeadRepository(counted);
        const first = submission();
        expect(await leads.insertLead(first)).toEqual({ kind: "created", leadId: first.lead.leadId });
        expect([statements.length, connections]).toEqual([1, 0]);
        expect(
          await store.rows("SELECT kind, subject_id, status, attempts, next_attempt_at, created_at FROM outbox"),
        ).toEqual([
          {
            kind: "lead_notification",
            subject_id: first.lead.leadId,
            status: "pending",
            attempts: 0,
            next_attempt_at: T0,
            created_at: T0,
          },
        ]);
        expect(await store.rows("SELECT lead_id, window_ends_at FROM lead_dedup_windows")).toEqual([
          { lead_id: first.lead.leadId, window_ends_at: first.windowEndsAt },
        ]);
        // A duplicate: the one statement writes nothing, then the rule runs in a transaction.
        expect(await leads.insertLead(submission({ minutes: 1 }))).toMatchObject({ kind: "duplicate" });
        expect(connections).toBe(1);
        expect(await store.rows("SELECT count(*) AS n FROM leads")).toEqual([{ n: 1 }]);
      });
    }

    it("gives one lead for identical submissions sent at once through two connections", async () => {
      const store = await engine.open();
      await insertMerchantRow(store, AB_ID);
      const machines = [leadsOf(store.another()), leadsOf(store.another())];
      const outcomes = await Promise.all(
        Array.from({ length: 12 }, (_unused, index) => machines[index % 2]?.insertLead(submission())),
      );
      const created = outcomes.filter((outcome) => outcome?.kind === "created");
      expect(created).toHaveLength(1);
      const leadIds = new Set(outcomes.map((outcome) => (outcome && "leadId" in outcome ? outcome.leadId : null)));
      expect(leadIds.size).toBe(1);
      expect(await store.rows("SELECT count(*) AS n FROM leads")).toEqual([{ n: 1 }]);
    });

    it("answers one Idempotency-Key sent at once through two connections with one lead", async () => {
      const store = await engine.open();
      await insertMerchantRow(store, AB_ID);
      const machines = [leadsOf(store.another()), leadsOf(store.another())];
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_unused, index) =>
          machines[index % 2]?.insertLead(submission({ key: "k-race", email: `p${index}@exemple.fr` })),
        ),
      );
      expect(outcomes.filter((outcome) => outcome?.kind === "created")).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome?.kind === "replayed")).toHaveLength(7);
      expect(await store.rows("SELECT count(*) AS n FROM leads")).toEqual([{ n: 1 }]);
    });
  });
}
