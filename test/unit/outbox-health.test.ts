/** The outbox figures of the health check: what they say and how often they are read. */
import { describe, expect, it } from "vitest";
import { createOutboxHealth } from "../../src/domain/outbox-health.ts";

describe("the outbox figures of the health check", () => {
  it("give the waiting emails and the whole seconds the oldest has waited, read at most once a second", async () => {
    let now = new Date("2026-11-23T10:00:00.000Z");
    let backlog = { pending: 3, oldestCreatedAt: "2026-11-23T09:58:59.400Z" as string | null };
    let reads = 0;
    const health = createOutboxHealth({
      backlog: async () => {
        reads += 1;
        return backlog;
      },
      now: () => now,
    });

    expect(await health()).toEqual({ pending: 3, oldest_pending_age_seconds: 60 });
    backlog = { pending: 0, oldestCreatedAt: null };
    now = new Date("2026-11-23T10:00:00.999Z");
    expect(await health()).toEqual({ pending: 3, oldest_pending_age_seconds: 60 });
    expect(reads).toBe(1);

    now = new Date("2026-11-23T10:00:01.000Z");
    expect(await health()).toEqual({ pending: 0, oldest_pending_age_seconds: null });
    expect(reads).toBe(2);
  });
});
