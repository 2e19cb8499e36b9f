/**
 * The outbox's contract on both store engines (src/store/outbox-repository.ts on SQLite,
 * src/store/postgres/outbox-repository.ts on PostgreSQL): due rows claimed in order as leases,
 * never twice while a lease runs and again once it ended, a result applied only to the attempt
 * it claimed, a delivery moving its subject along, the counts; and, what several machines need,
 * two machines claiming at once never take the same row.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { OutboxRepository } from "../../src/domain/outbox-store.ts";
import { createOutboxRepository, sqliteOutboxClaims } from "../../src/store/outbox-repository.ts";
import { createPostgresOutboxRepository } from "../../src/store/postgres/outbox-repository.ts";
import { type OpenedStore, storeEngines } from "../helpers/store-engines.ts";

/** A machine's outbox on the store (another machine: the store opened again). */
function outboxOf(store: OpenedStore): OutboxRepository {
  if (store.sqlite) return createOutboxRepository(store.sqlite, sqliteOutboxClaims(store.sqlite));
  if (store.postgres) return createPostgresOutboxRepository(store.postgres);
  throw new Error("no store");
}

const T0 = "2026-11-26T10:00:00.000Z";
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();

async function pending(engine: OpenedStore, id: string, dueMinutes: number, kind = "platform_contact", subject = id) {
  await engine.run(
    "INSERT INTO outbox (message_id, kind, subject_id, status, attempts, next_attempt_at, created_at) VALUES ($1, $2, $3, 'pending', 0, $4, $5)",
    [id, kind, subject, at(dueMinutes), at(dueMinutes)],
  );
}

for (const { name, open } of storeEngines()) {
  describe(`the outbox on ${name}`, () => {
    let engine: OpenedStore;
    let outbox: OutboxRepository;
    beforeAll(async () => {
      engine = await open();
      outbox = outboxOf(engine);
    });

    it("claims due rows in order as leases, never twice while the lease runs, again once it ended", async () => {
      await pending(engine, "m-1", 2);
      await pending(engine, "m-2", 1);
      await pending(engine, "m-3", 30);
      const claimed = await outbox.claimDue({ now: at(5), leaseUntil: at(10), limit: 10 });
      expect(claimed.map((row) => [row.messageId, row.status, row.attempts, row.nextAttemptAt]).sort()).toEqual([
        ["m-1", "sending", 1, at(10)],
        ["m-2", "sending", 1, at(10)],
      ]);
      expect(await outbox.claimDue({ now: at(9), leaseUntil: at(14), limit: 10 })).toEqual([]);
      const again = await outbox.claimDue({ now: at(10), leaseUntil: at(15), limit: 1 });
      expect(again.map((row) => row.attempts)).toEqual([2]);
      expect(await outbox.nextDueAt()).toBe(at(10));
      expect(await outbox.countByStatus()).toEqual({ pending: 1, sending: 2 });
      expect(await outbox.backlog()).toEqual({ pending: 3, oldestCreatedAt: at(1) });
    });

    it("applies a result only to the attempt it claimed, and moves the subject along", async () => {
      await engine.run(
        "INSERT INTO platform_contacts (contact_id, type, name, email, message, status, created_at) VALUES ($1, 'press', 'Léa', 'lea@exemple.fr', 'Bonjour', 'received', $2)",
        ["c-1", T0],
      );
      await pending(engine, "m-4", -100, "platform_contact", "c-1");
      const [first] = await outbox.claimDue({ now: at(-50), leaseUntil: at(-49), limit: 1 });
      expect(first?.messageId).toBe("m-4");
      const [second] = await outbox.claimDue({ now: at(-48), leaseUntil: at(-40), limit: 1 });
      expect(second?.attempts).toBe(2);
      // The first worker's result comes late: its lease ended and the row was claimed again.
      expect(await outbox.markSent({ messageId: "m-4", attempts: 1, at: at(-47) })).toBe(false);
      expect(await outbox.settle([{ messageId: "m-4", attempts: 2, outcome: "sent", at: at(-46) }])).toBe(1);
      expect(await outbox.find("m-4")).toMatchObject({ status: "sent", attempts: 2, sentAt: at(-46), lastError: null });
      expect(await engine.rows("SELECT status FROM platform_contacts WHERE contact_id = $1", ["c-1"])).toEqual([
        { status: "forwarded" },
      ]);
      expect((await outbox.findBySubject("c-1")).map((row) => row.messageId)).toEqual(["m-4"]);
    });

    it("retries and fails as told: a retry waits, a failure moves the subject to failed", async () => {
      await engine.run(
        "INSERT INTO platform_contacts (contact_id, type, name, email, message, status, created_at) VALUES ($1, 'press', 'Noé', 'noe@exemple.fr', 'Bonjour', 'received', $2)",
        ["c-2", T0],
      );
      await pending(engine, "m-5", -200, "platform_contact", "c-2");
      const [claimed] = await outbox.claimDue({ now: at(-199), leaseUntil: at(-198), limit: 1 });
      expect(claimed?.messageId).toBe("m-5");
      expect(
        await outbox.markRetry({ messageId: "m-5", attempts: 1, nextAttemptAt: at(-150), error: "421 try later" }),
      ).toBe(true);
      expect(await outbox.find("m-5")).toMatchObject({
        status: "pending",
        nextAttemptAt: at(-150),
        lastError: "421 try later",
      });
      await outbox.claimDue({ now: at(-150), leaseUntil: at(-149), limit: 1 });
      expect(await outbox.markFailed({ messageId: "m-5", attempts: 2, at: at(-149), error: "550 no such user" })).toBe(
        true,
      );
      expect(await engine.rows("SELECT status FROM platform_contacts WHERE contact_id = $1", ["c-2"])).toEqual([
        { status: "failed" },
      ]);
    });

    it("two machines claiming at once never take the same row", async () => {
      const fresh = await open();
      for (let row = 0; row < 200; row++) await pending(fresh, `burst-${String(row).padStart(3, "0")}`, 0);
      const machines = [outboxOf(fresh.another()), outboxOf(fresh.another())];
      const taken: string[] = [];
      await Promise.all(
        machines.map(async (machine) => {
          for (;;) {
            const claimed = await machine.claimDue({ now: at(1), leaseUntil: at(5), limit: 7 });
            if (claimed.length === 0) return;
            taken.push(...claimed.map((row) => row.messageId));
          }
        }),
      );
      expect(taken).toHaveLength(200);
      expect(new Set(taken).size).toBe(200);
    });
  });
}
