/**
 * One leader across instances (src/store/postgres/leader.ts), on a real PostgreSQL: of several
 * instances exactly one leads; when it stops, or its connection is ended by the server, another
 * takes over at its next try, and the one that lost it is told; through a restart of PostgreSQL
 * they all lose it and exactly one leads again once the server is back, without a restart.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LeaderElection, leaderLockKey, startLeaderElection } from "../../src/store/postgres/leader.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";

const RETRY_MS = 100;
let server: TestPostgres;
let url: string;
const started: LeaderElection[] = [];

beforeAll(async () => {
  server = await startTestPostgres();
  url = await server.createEmptyDatabase();
}, 60_000);
afterAll(async () => {
  await Promise.all(started.map((election) => election.stop()));
  await server?.stop();
});

interface Instance {
  election: LeaderElection;
  events: string[];
}

function instance(name: string, lock: string): Instance {
  const events: string[] = [];
  const election = startLeaderElection({
    url,
    name: lock,
    retryMs: RETRY_MS,
    applicationName: `leader-test-${name}`,
    onGained: () => events.push("gained"),
    onLost: () => events.push("lost"),
  });
  started.push(election);
  return { election, events };
}

const leaders = (instances: Instance[]) => instances.filter((one) => one.election.isLeader());

/** Waits until `condition` holds, then checks it still holds a few tries later (no flapping). */
async function settles(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error("the condition never held");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await new Promise((resolve) => setTimeout(resolve, RETRY_MS * 4));
  expect(condition()).toBe(true);
}

describe("startLeaderElection", () => {
  it("keys each lock by its name", () => {
    expect(leaderLockKey("scheduler")).toBe(leaderLockKey("scheduler"));
    expect(leaderLockKey("scheduler")).not.toBe(leaderLockKey("outbox"));
  });

  it("lets exactly one of three instances lead; when it stops, another takes over", async () => {
    const instances = ["a", "b", "c"].map((name) => instance(name, "one-of-three"));
    await settles(() => leaders(instances).length === 1);
    const [first] = leaders(instances) as [Instance];
    expect(first.events).toEqual(["gained"]);

    await first.election.stop();
    expect(first.events).toEqual(["gained", "lost"]);
    const others = instances.filter((one) => one !== first);
    await settles(() => leaders(others).length === 1);
    expect(first.election.isLeader()).toBe(false);
  });

  it("tells a leader whose connection the server ended that it lost; then exactly one leads again", async () => {
    const instances = ["d", "e"].map((name) => instance(name, "terminated"));
    await settles(() => leaders(instances).length === 1);
    const [first] = leaders(instances) as [Instance];
    const name = first === instances[0] ? "leader-test-d" : "leader-test-e";

    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const ended = await admin.query<{ ended: boolean }>(
        "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = $1",
        [name],
      );
      expect(ended.rows.map((row) => row.ended)).toEqual([true]);
    } finally {
      await admin.end();
    }
    // Either may take it at its next try, the one that lost it included (a new connection).
    await settles(() => first.events.includes("lost") && leaders(instances).length === 1);
    expect(first.events.slice(0, 2)).toEqual(["gained", "lost"]);
  });

  it("through a restart of PostgreSQL: every leader loses it, and exactly one leads again once it is back", async () => {
    const instances = ["f", "g"].map((name) => instance(name, "restart"));
    await settles(() => leaders(instances).length === 1);
    const [first] = leaders(instances) as [Instance];
    await server.pause();
    await settles(() => leaders(instances).length === 0, 10_000);
    expect(first.events).toEqual(["gained", "lost"]);
    await server.resume();
    await settles(() => leaders(instances).length === 1);
  }, 60_000);
});
