/**
 * The leader's jobs are fenced (src/store/postgres/leader-fence.ts), on a real PostgreSQL: a
 * leader whose connection the server ended cannot commit the write it had pending, and the next
 * leader starts only once that write ended; after the loss, the retention's batches, the kept
 * cards, Meilisearch's writes, the daily imports' registry batches and the scheduled refresh's
 * commit are refused, nothing written.
 * Under a live leadership they go through; before the fence follows an election (an operator's
 * command), they are plain writes.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addMerchant } from "../../src/domain/merchants/add-merchant.ts";
import { decideInRegistry, type MerchantRegistryStore } from "../../src/domain/merchants/merchant-registry.ts";
import { createMeilisearchSearchIndex } from "../../src/search/meilisearch/index.ts";
import { createCommuneLookup } from "../../src/seed/communes.ts";
import { fenceLockKey, type LeaderElection, startLeaderElection } from "../../src/store/postgres/leader.ts";
import { createLeaderFence, type LeaderFence, LeadershipLost } from "../../src/store/postgres/leader-fence.ts";
import { openPostgresPool } from "../../src/store/postgres/pool.ts";
import { createPostgresPublishIndex } from "../../src/store/postgres/publish-index.ts";
import { createPostgresSearchCardStore } from "../../src/store/postgres/registry-feeds.ts";
import { postgresRegistryPorts } from "../../src/store/postgres/registry-ports.ts";
import { createPostgresSearchSource } from "../../src/store/postgres/search-source.ts";
import { postgresStore } from "../../src/store/postgres/store.ts";
import { fencedStoreDb } from "../../src/store/postgres/store-db.ts";
import { createPostgresTrustSweepStore } from "../../src/store/postgres/trust-sweep-store.ts";
import { createRetentionRepository } from "../../src/store/retention-repository.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";
import { until, waitFor } from "../helpers/wait-for.ts";

const RETRY_MS = 100;
let server: TestPostgres;
let url: string;
let pool: pg.Pool;
const elections: LeaderElection[] = [];

beforeAll(async () => {
  server = await startTestPostgres();
  url = await server.createDatabase();
  pool = openPostgresPool({ url, poolMax: 6, poolTimeoutMs: 10_000 });
}, 60_000);
afterAll(async () => {
  await Promise.all(elections.map((election) => election.stop()));
  await pool?.end();
  await server?.stop();
});

/**
 * An instance's election. `retryMs` long: an instance whose connection the test ends does not come
 * back to take the lock again within the test (as a machine that died), which would race the other.
 */
const elect = (name: string, instance: string, retryMs = RETRY_MS) => {
  const election = startLeaderElection({ url, name, retryMs, applicationName: `fence-test-${instance}` });
  elections.push(election);
  return election;
};

/** Polls an asynchronous condition until it holds. */
const untilTrue = (condition: () => Promise<boolean>) => waitFor(async () => ((await condition()) ? true : undefined));

/** Ends the leader's connection from the server's side (as a restart or a lost network does). */
async function endConnectionOf(election: LeaderElection): Promise<void> {
  const pid = election.term()?.pid;
  if (pid === undefined) throw new Error("not the leader");
  await pool.query("SELECT pg_terminate_backend($1)", [pid]);
  await until(() => !election.isLeader());
}

/** The fence lock of `name` as pg_locks shows it: the modes held and the modes waited for. */
async function fenceLock(name: string): Promise<{ granted: string[]; waiting: string[] }> {
  const { rows } = await pool.query<{ mode: string; granted: boolean }>(
    "SELECT mode, granted FROM pg_locks WHERE locktype = 'advisory' AND objid = $1::oid AND objsubid = 2",
    [String(fenceLockKey(name) >>> 0)],
  );
  return {
    granted: rows.filter((row) => row.granted).map((row) => row.mode),
    waiting: rows.filter((row) => !row.granted).map((row) => row.mode),
  };
}

const settingsRow = async (key: string) =>
  (await pool.query<{ value: string }>("SELECT value FROM settings WHERE key = $1", [key])).rows.map(
    (row) => row.value,
  );

const refused = async (work: Promise<unknown>) => {
  const error = await work.then(
    () => null,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(LeadershipLost);
};

/** A fence following a leader that led, then lost its connection. */
async function deposed(name: string): Promise<LeaderFence> {
  const leader = elect(name, `${name}-deposed`, 120_000);
  await until(() => leader.isLeader());
  const fence = createLeaderFence(pool);
  fence.follow(leader.term);
  await endConnectionOf(leader);
  return fence;
}

describe("the leader's fence", () => {
  it("lets a leader that lost its connection commit none of its pending work; the next leader starts once that work ended", async () => {
    const first = elect("fenced", "first", 120_000);
    await until(() => first.isLeader());
    const second = elect("fenced", "second");
    const fence = createLeaderFence(pool);
    fence.follow(first.term);

    // Under its leadership, a write commits.
    await fence.transaction((client) =>
      client.query("INSERT INTO settings (key, value, updated_at) VALUES ('fenced:live', 'yes', 'now')"),
    );
    expect(await settingsRow("fenced:live")).toEqual(["yes"]);

    // A write under way when the leader's connection ends.
    let resume: () => void = () => undefined;
    const resumed = new Promise<void>((resolve) => {
      resume = resolve;
    });
    const pending = fence.transaction(async (client) => {
      await client.query("INSERT INTO settings (key, value, updated_at) VALUES ('fenced:pending', 'yes', 'now')");
      await resumed;
    });
    await untilTrue(async () => (await fenceLock("fenced")).granted.includes("ShareLock"));
    await endConnectionOf(first);

    // The other instance took the lock, and waits at the fence for the pending write to end.
    await untilTrue(async () => (await fenceLock("fenced")).waiting.includes("ExclusiveLock"));
    expect(second.isLeader()).toBe(false);

    resume();
    await refused(pending);
    expect(await settingsRow("fenced:pending")).toEqual([]);
    await until(() => second.isLeader());

    // The deposed instance writes nothing more; the new leader's own fence does.
    await refused(
      fence.transaction((client) =>
        client.query("INSERT INTO settings (key, value, updated_at) VALUES ('fenced:after', 'yes', 'now')"),
      ),
    );
    expect(await settingsRow("fenced:after")).toEqual([]);
    const next = createLeaderFence(pool);
    next.follow(second.term);
    await next.transaction((client) =>
      client.query("INSERT INTO settings (key, value, updated_at) VALUES ('fenced:next', 'yes', 'now')"),
    );
    expect(await settingsRow("fenced:next")).toEqual(["yes"]);
  });

  it("refuses the retention's batches and the kept cards of a deposed leader; lets an operator's command through", async () => {
    await pool.query(
      `INSERT INTO lead_dedup_windows (ab_id, email_normalized, lead_type, caller_scope, lead_id, window_ends_at)
       VALUES ('ab_fence001', 'x@exemple.fr', 'quote_request', 'anonymous', 'lead-1', '2000-01-01T00:00:00.000Z')`,
    );
    const fence = await deposed("retention");
    const retention = createRetentionRepository(fencedStoreDb(pool, fence));
    const run = () =>
      retention.anonymizeBefore({
        cutoff: "2000-01-01T00:00:00.000Z",
        now: "2026-11-27T00:00:00.000Z",
        idempotencyCutoff: "2000-01-01T00:00:00.000Z",
        sessionCutoff: "2000-01-01T00:00:00.000Z",
      });
    await refused(run());
    const windows = async () => (await pool.query("SELECT count(*)::int AS n FROM lead_dedup_windows")).rows[0]?.n;
    expect(await windows()).toBe(1);

    const cards = createPostgresSearchCardStore(pool, fence);
    await refused(cards.writeCursor("format-a", 7));
    await refused(cards.write(new Map(), "format-a", 7));
    expect((await pool.query("SELECT * FROM kept_card_cursors")).rows).toEqual([]);

    // The same ports on a fence that follows no election: an operator's command, plain writes.
    const command = createLeaderFence(pool);
    expect(
      (
        await createRetentionRepository(fencedStoreDb(pool, command)).anonymizeBefore({
          cutoff: "2000-01-01T00:00:00.000Z",
          now: "2026-11-27T00:00:00.000Z",
          idempotencyCutoff: "2000-01-01T00:00:00.000Z",
          sessionCutoff: "2000-01-01T00:00:00.000Z",
        })
      ).dedupWindows,
    ).toBe(1);
    await createPostgresSearchCardStore(pool, command).writeCursor("format-a", 7);
    expect((await pool.query("SELECT format, revision::int FROM kept_card_cursors")).rows).toEqual([
      { format: "format-a", revision: 7 },
    ]);
  });

  it("refuses the trust sweep's touches of a deposed leader; lets an operator's sweep through", async () => {
    const position = { through: "2026-11-27T00:00:00.000Z", window: null };
    const fence = await deposed("sweep");
    await refused(createPostgresTrustSweepStore(pool, fence).advance(["ab_fence002"], null, position));
    expect((await pool.query("SELECT * FROM trust_sweeps")).rows).toEqual([]);
    expect((await pool.query("SELECT ab_id FROM merchant_touches WHERE ab_id = 'ab_fence002'")).rows).toEqual([]);

    const command = createLeaderFence(pool);
    expect(await createPostgresTrustSweepStore(pool, command).advance([], null, position)).toBe(true);
    expect((await pool.query("SELECT position FROM trust_sweeps")).rows).toEqual([
      { position: JSON.stringify(position) },
    ]);
  });

  it("sends none of a deposed leader's writes to Meilisearch", async () => {
    const requests: string[] = [];
    const meili = http.createServer((request, response) => {
      requests.push(`${request.method} ${request.url}`);
      response.writeHead(202, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          taskUid: 1,
          indexUid: "abeille_merchants_meta",
          status: "enqueued",
          type: "documentAdditionOrUpdate",
          enqueuedAt: new Date().toISOString(),
        }),
      );
    });
    await new Promise<void>((resolve) => meili.listen(0, "127.0.0.1", resolve));
    try {
      const meiliUrl = `http://127.0.0.1:${(meili.address() as AddressInfo).port}`;
      const index = (fence: LeaderFence) =>
        createMeilisearchSearchIndex(createPostgresSearchSource(pool), {
          url: meiliUrl,
          writeTimeoutMs: 1_000,
          writeGate: fence.hold,
        });
      // The client passes the gate's refusal on as the cause of its own error.
      const error = await index(await deposed("meilisearch"))
        .writeCursor(12)
        .then(
          () => null,
          (failure: unknown) => failure,
        );
      expect((error as Error | null)?.cause).toBeInstanceOf(LeadershipLost);
      expect(requests.filter((request) => !request.startsWith("GET "))).toEqual([]);

      const leader = elect("meilisearch-live", "live");
      await until(() => leader.isLeader());
      const live = createLeaderFence(pool);
      live.follow(leader.term);
      // The task is never seen done by this stand-in: only the write request matters here.
      await index(live)
        .writeCursor(12)
        .catch(() => undefined);
      expect(requests.filter((request) => !request.startsWith("GET "))).toEqual([
        "POST /indexes/abeille_merchants_meta/documents?primaryKey=id",
      ]);
    } finally {
      await new Promise((resolve) => meili.close(resolve));
    }
  });

  it("refuses the registry's batches of a deposed leader's daily import; lets an operator's import through", async () => {
    const declaration = {
      siret: "12345678200010",
      legal_name: "SARL Boulangerie Martin",
      business_name: "Boulangerie Martin",
      naf_code: "10.71C",
      address: { street: "12 rue de la République", postal_code: "69002", city: "Lyon" },
      founded_on: "2015-03-02",
    };
    const deps = (registry: MerchantRegistryStore) => ({
      registry,
      communes: createCommuneLookup(),
      now: () => new Date("2026-12-04T06:40:00.000Z"),
      randomId: () => "ab_fence003",
    });
    const add = (registry: MerchantRegistryStore) =>
      decideInRegistry(deps(registry), { sirets: [declaration.siret] }, (decision) =>
        addMerchant(decision, declaration, "import:sirene-daily"),
      );
    // The registry's ports a daily import the leader started writes through (jobs/job-store.ts).
    const fence = await deposed("daily");
    await refused(add(postgresRegistryPorts(postgresStore(pool), fence).registry));
    expect((await pool.query("SELECT ab_id FROM merchants WHERE ab_id = 'ab_fence003'")).rows).toEqual([]);

    // The same import run by hand: its fence follows no election, its batches are plain writes.
    const command = createLeaderFence(pool);
    expect(await add(postgresRegistryPorts(postgresStore(pool), command).registry)).toMatchObject({
      abId: "ab_fence003",
    });
  });

  it("refuses the publication of a refresh whose leader was deposed while it ran", async () => {
    const fence = await deposed("background");
    const index = createPostgresPublishIndex(pool, { fence });
    const meta = {
      publishKey: "key",
      codeKey: "code",
      generatedAt: "2026-11-27T00:00:00.000Z",
      cursor: 3,
      files: {},
      retry: [],
    };
    await refused(index.commit({ meta, upserts: [], deletes: [] }, null));
    expect(await index.meta()).toBeNull();
  });
});
