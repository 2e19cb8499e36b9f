/**
 * Several machines behind one address (issue 26, docs/deployment.md): two `npm start`s on their own
 * DATA_DIRs and ports, sharing one PostgreSQL and one Redis, answer as one service. The first
 * migrates and seeds; the second, its secrets and keys copied by the "operator", finds the
 * registry and seeds nothing. Leads, dedupe, idempotency keys, quotas, the kill switch, the change
 * feed, kept answers and the outbox hold across them; one instance killed mid-burst loses no
 * acknowledged lead and sends no email twice; a PostgreSQL restart is a 503 in the envelope, then
 * service again without restarting the servers.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";
import { type RunningRedis, startRedis } from "../helpers/redis-server.ts";
import { runJob } from "../helpers/run-job.ts";
import { type StartedProcess, spawnStart } from "../helpers/spawn-start.ts";
import { waitFor } from "../helpers/wait-for.ts";

const scratch = mkdtempSync(path.join(os.tmpdir(), "abeille-machines-"));
const dataDirOf = (name: string) => path.join(scratch, name);
let postgres: TestPostgres;
let redis: RunningRedis;
let databaseUrl: string;
let admin: pg.Client;
const machines: Record<string, StartedProcess> = {};

/** The one address clients know (the load balancer's): every machine publishes and links under it. */
const BASE_URL = "https://registre.example";

const SHARED_ENV = () => ({
  BASE_URL,
  DATABASE_URL: databaseUrl,
  REDIS_URL: redis.url,
  SERVER_PROCESSES: "1",
  DEMO_SEED_COUNT: "40",
  LEADER_RETRY_MS: "200",
  OUTBOX_POLL_MS: "200",
  OUTBOX_LEASE_MS: "3000",
  RATE_LIMIT_ANON_HOURLY: "30",
  REFRESH_CRON: "off",
  REFRESH_ON_START: "true",
});

async function startMachine(name: string): Promise<StartedProcess> {
  const started = await spawnStart({ ...SHARED_ENV(), DATA_DIR: dataDirOf(name) }, 180_000);
  machines[name] = started;
  return started;
}

/** What the operator's secret store does: the same secrets and signing keys on every machine. */
function copySecrets(from: string, to: string): void {
  for (const folder of ["secrets", "keys"]) {
    cpSync(path.join(dataDirOf(from), folder), path.join(dataDirOf(to), folder), { recursive: true });
  }
}

/** The test's own connection, to read what the machines wrote (a restart of PostgreSQL ends it: it reconnects). */
async function connectAdmin(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on("error", () => undefined);
  await client.connect();
  return client;
}

beforeAll(async () => {
  postgres = await startTestPostgres();
  redis = await startRedis();
  databaseUrl = await postgres.createEmptyDatabase("machines");
  admin = await connectAdmin();
  await startMachine("a");
  copySecrets("a", "b");
  await startMachine("b");
}, 400_000);

afterAll(async () => {
  for (const machine of Object.values(machines)) machine.child.kill("SIGKILL");
  await admin?.end().catch(() => undefined);
  await redis?.stop();
  await postgres?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field and asserted exactly
  json: any;
}

/** One request on a connection of its own, from a chosen loopback address (a distinct anonymous client). */
function call(
  machine: string,
  pathname: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string>; from?: string } = {},
): Promise<Answer> {
  const target = machines[machine];
  if (!target) throw new Error(`no machine ${machine}`);
  return new Promise((resolve, reject) => {
    const payload = init.body === undefined ? undefined : JSON.stringify(init.body);
    const request = http.request(
      `${target.baseUrl}${pathname}`,
      {
        agent: false,
        method: init.method ?? (payload ? "POST" : "GET"),
        localAddress: init.from ?? "127.0.0.1",
        headers: { ...(payload ? { "content-type": "application/json" } : {}), ...init.headers },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown = null;
          try {
            json = JSON.parse(text);
          } catch {
            json = null;
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
        });
      },
    );
    request.on("error", reject);
    request.end(payload);
  });
}

const roster = () =>
  JSON.parse(readFileSync(path.join(dataDirOf("a"), "demo-roster.json"), "utf8")) as {
    cases: Record<string, string[]>;
  };
const contactable = (index: number) => {
  const id = roster().cases.active_contactable?.[index];
  if (!id) throw new Error("the demo roster has no contactable merchant");
  return id;
};

let clientNumber = 10;
/** A loopback address no other test used: its own anonymous budget (127.0.x.y, about 64,000 of them). */
const freshClient = () => {
  const number = clientNumber++;
  return `127.0.${Math.floor(number / 250)}.${(number % 250) + 2}`;
};

const lead = (abId: string, email: string) => ({
  ab_id: abId,
  contact_name: "Camille Martin",
  contact_email: email,
  lead_type: "quote",
  message: "Bonjour, je souhaite un devis pour la semaine prochaine.",
});

/** The .eml files both machines' outboxes wrote, by lead id: where each copy is, and its Message-ID. */
function emailsByLead(): Map<string, { file: string; messageId: string }[]> {
  const byLead = new Map<string, { file: string; messageId: string }[]>();
  for (const name of ["a", "b"]) {
    const folder = path.join(dataDirOf(name), "outbox");
    if (!existsSync(folder)) continue;
    for (const file of readdirSync(folder).filter((entry) => entry.endsWith(".eml"))) {
      const text = readFileSync(path.join(folder, file), "utf8");
      const leadId =
        /\/api\/leads\/([0-9a-f-]{36})|([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/.exec(text);
      const id = leadId?.[1] ?? leadId?.[2] ?? "unknown";
      const messageId = /^Message-ID:\s*(.+)$/im.exec(text)?.[1]?.trim() ?? "none";
      byLead.set(id, [...(byLead.get(id) ?? []), { file: `${name}/${file}`, messageId }]);
    }
  }
  return byLead;
}

describe("two machines behind one address", () => {
  it("the first migrated and seeded; the second found the registry and seeded nothing", async () => {
    expect(existsSync(path.join(dataDirOf("a"), "demo-roster.json"))).toBe(true);
    expect(existsSync(path.join(dataDirOf("b"), "demo-roster.json"))).toBe(false);
    expect(machines.b?.output()).not.toContain("seeding demo registry");
    const merchants = await admin.query<{ count: string }>("SELECT count(*) FROM merchants");
    expect(Number(merchants.rows[0]?.count)).toBe(40);
    for (const name of ["a", "b"]) {
      const health = await call(name, "/api/health");
      expect(health.status).toBe(200);
      expect(health.json.data.store).toEqual({ engine: "postgres", revision_notices: "listening" });
      expect(health.json.data.limits).toEqual({ store: "redis", state: "ok" });
    }
  });

  it("answers a search and a resolve identically from either machine", async () => {
    const abId = contactable(0);
    const [onA, onB] = await Promise.all([
      call("a", `/api/registry/resolve/${abId}`, { from: freshClient() }),
      call("b", `/api/registry/resolve/${abId}`, { from: freshClient() }),
    ]);
    // Byte for byte but the envelope's _meta (the request's id and time).
    const withoutMeta = (answer: Answer) => ({ ...answer.json, _meta: null });
    expect(onA.status).toBe(200);
    expect(onA.json.merchant.ab_id).toBe(abId);
    expect(withoutMeta(onB)).toEqual(withoutMeta(onA));
    const search = `/api/registry/search?q=${encodeURIComponent(onA.json.merchant.trade)}&limit=5`;
    const [searchA, searchB] = await waitFor(async () => {
      // Each machine's own index file follows the shared feed: both built, both answer alike.
      const both = await Promise.all([
        call("a", search, { from: freshClient() }),
        call("b", search, { from: freshClient() }),
      ]);
      return both.every((answer) => answer.status === 200 && answer.json.results?.length > 0) ? both : undefined;
    });
    expect(withoutMeta(searchB)).toEqual(withoutMeta(searchA));
  });

  it("a lead accepted by one is seen by the other at once; the 24 h dedupe and an idempotency key hold across them", async () => {
    const abId = contactable(1);
    const body = lead(abId, "camille.across@example.fr");
    // The same caller on both machines (the duplicate rule is per caller: src/domain/leads/duplicate-rule.ts).
    const caller = freshClient();
    const created = await call("a", "/api/contact/brick", { body, from: caller });
    expect(created.status).toBe(201);
    const { lead_id: leadId, tracking_token: token } = created.json;
    const seen = await call("b", `/api/leads/${leadId}`, { headers: { "x-tracking-token": token }, from: caller });
    expect(seen.status).toBe(200);
    expect(seen.json.data?.lead_id ?? seen.json.lead_id).toBe(leadId);

    const again = await call("b", "/api/contact/brick", { body, from: caller });
    expect(again.status).toBe(200);
    expect({ lead_id: again.json.lead_id, deduplicated: again.json.deduplicated }).toEqual({
      lead_id: leadId,
      deduplicated: true,
    });

    const keyed = lead(abId, "dominique.keyed@example.fr");
    const headers = { "idempotency-key": "machines-key-1" };
    const client = freshClient();
    const first = await call("b", "/api/contact/brick", { body: keyed, headers, from: client });
    const replay = await call("a", "/api/contact/brick", { body: keyed, headers, from: client });
    expect(first.status).toBe(201);
    expect(replay.json.lead_id).toBe(first.json.lead_id);
    const stored = await admin.query("SELECT count(*)::int AS n FROM leads WHERE contact_email = $1", [
      "dominique.keyed@example.fr",
    ]);
    expect(stored.rows[0]).toEqual({ n: 1 });
  });

  it("counts one quota for the deployment, whichever machine answers", async () => {
    const client = freshClient();
    const statuses: number[] = [];
    for (let i = 0; i < 32; i++) {
      statuses.push((await call(i % 2 === 0 ? "a" : "b", "/api/registry/search?q=garage", { from: client })).status);
    }
    expect(statuses).toEqual([...Array(30).fill(200), 429, 429]);
  });

  it("the kill switch, set once, holds on every machine within a second", async () => {
    const env = { DATABASE_URL: databaseUrl };
    const on = await runJob(["jobs/kill-switch.ts", "on"], { dataDir: dataDirOf("a"), baseUrl: "http://x", env });
    expect(on.code).toBe(0);
    for (const name of ["a", "b"]) {
      await waitFor(async () => {
        const answer = await call(name, "/api/registry/search?q=fleuriste", { from: freshClient() });
        return answer.status === 503 && answer.json.error.code === "SERVICE_SUSPENDED" ? true : undefined;
      }, 3_000);
    }
    const off = await runJob(["jobs/kill-switch.ts", "off"], { dataDir: dataDirOf("b"), baseUrl: "http://x", env });
    expect(off.code).toBe(0);
    for (const name of ["a", "b"]) {
      await waitFor(async () => {
        const answer = await call(name, "/api/registry/search?q=fleuriste", { from: freshClient() });
        return answer.status === 200 ? true : undefined;
      }, 3_000);
    }
  });

  it("reads one change feed in one order from either machine", async () => {
    const [onA, onB] = await Promise.all([
      call("a", "/api/registry/changes", { from: freshClient() }),
      call("b", "/api/registry/changes", { from: freshClient() }),
    ]);
    expect(onA.status).toBe(200);
    expect(onA.json.changes.length).toBeGreaterThan(0);
    expect(onB.json.changes).toEqual(onA.json.changes);
    expect(onB.json.next_cursor).toBe(onA.json.next_cursor);
    // The feed's one order: the commit order PostgreSQL numbered (seq).
    const feed = onA.json.changes as { ab_id: string; revision: number; change: string }[];
    const stored = await admin.query<{ ab_id: string; revision: string; change: string }>(
      "SELECT ab_id, revision, change FROM merchant_changes ORDER BY seq LIMIT $1",
      [feed.length],
    );
    expect(feed.map(({ ab_id, revision, change }) => ({ ab_id, revision, change }))).toEqual(
      stored.rows.map((row) => ({ ab_id: row.ab_id, revision: Number(row.revision), change: row.change })),
    );
  });

  it("a kept answer follows a write made on the other machine", async () => {
    const abId = contactable(8);
    const before = await call("b", `/api/registry/resolve/${abId}`, { from: freshClient() });
    expect(before.status).toBe(200);
    // An operator's write through the database the machines share (npm run merchants -- status, DATABASE_URL).
    const suspended = await runJob(["jobs/merchants.ts", "status", abId, "SUSPENDED", "--reason", "fraude signalée"], {
      dataDir: dataDirOf("a"),
      baseUrl: "http://x",
      env: { DATABASE_URL: databaseUrl },
    });
    expect(suspended.code).toBe(0);
    // The kept answer on this machine is dropped once the write's notice lands: a suspended merchant is not found.
    await waitFor(async () => {
      const answer = await call("b", `/api/registry/resolve/${abId}`, { from: freshClient() });
      return answer.status === 404 && answer.json.error.code === "MERCHANT_NOT_FOUND" ? true : undefined;
    }, 3_000);
  });

  it("sends each lead's email once, from whichever machine claimed it", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const answer = await call(i % 2 === 0 ? "a" : "b", "/api/contact/brick", {
        body: lead(contactable(3 + (i % 5)), `once.${i}@example.fr`),
        from: freshClient(),
      });
      expect(answer.status).toBe(201);
      ids.push(answer.json.lead_id);
    }
    const emails = await waitFor(() => {
      const found = emailsByLead();
      return ids.every((id) => found.has(id)) ? found : undefined;
    });
    for (const id of ids) expect(emails.get(id)?.length).toBe(1);
  });

  it("serves the published documents from every machine, byte for byte", { timeout: 90_000 }, async () => {
    const abId = contactable(0);
    const documents = await waitFor(async () => {
      const [onA, onB] = await Promise.all([
        call("a", `/api/merchants/${abId}/jsonld`, { from: freshClient() }),
        call("b", `/api/merchants/${abId}/jsonld`, { from: freshClient() }),
      ]);
      // The leader's first refresh published into the database; each machine serves its mirror.
      return onA.headers["x-served-from"] === "publish-folder" && onB.headers["x-served-from"] === "publish-folder"
        ? [onA, onB]
        : undefined;
    }, 60_000);
    expect(documents[1]?.text).toBe(documents[0]?.text);
    expect(documents[1]?.headers.etag).toBe(documents[0]?.headers.etag);
  });

  it("loses no acknowledged lead and sends none twice when a machine is killed mid-burst", async () => {
    const acknowledged: string[] = [];
    const burst = async (name: string, from: number) => {
      for (let i = from; i < from + 40; i++) {
        try {
          const answer = await call(name, "/api/contact/brick", {
            body: lead(contactable(i % 8), `burst.${i}@example.fr`),
            from: freshClient(),
          });
          if (answer.status === 201) acknowledged.push(answer.json.lead_id);
        } catch {
          // The killed machine's connections fail: those leads were not acknowledged.
        }
      }
    };
    const running = [burst("a", 0), burst("b", 100)];
    await waitFor(() => (acknowledged.length >= 20 ? true : undefined));
    machines.a?.child.kill("SIGKILL");
    await Promise.all(running);
    delete machines.a;
    // Every acknowledged lead is stored, and its email sent exactly once (the killed machine's
    // claims are taken over by the other once their lease ends).
    const stored = await admin.query<{ lead_id: string }>("SELECT lead_id FROM leads WHERE lead_id = ANY($1)", [
      acknowledged,
    ]);
    expect(stored.rows.map((row) => row.lead_id).sort()).toEqual([...acknowledged].sort());
    const emails = await waitFor(() => {
      const found = emailsByLead();
      return acknowledged.every((id) => found.has(id)) ? found : undefined;
    }, 30_000);
    // Exactly once per lead, but for the sends the killed machine had in flight at that instant
    // (written, not yet recorded: another machine sends them again, under the same Message-ID, which
    // receiving servers deduplicate): those copies are one in a/ and one in b/.
    const copies = acknowledged.map((id) => emails.get(id) ?? []);
    for (const [index, copiesOfLead] of copies.entries()) {
      expect({
        lead: acknowledged[index],
        messageIds: new Set(copiesOfLead.map((copy) => copy.messageId)).size,
      }).toEqual({
        lead: acknowledged[index],
        messageIds: 1,
      });
      if (copiesOfLead.length > 1) {
        expect(copiesOfLead.map((copy) => copy.file.slice(0, 2)).sort()).toEqual(["a/", "b/"]);
      }
    }
    const resent = copies.filter((copiesOfLead) => copiesOfLead.length > 1).length;
    // At most one batch in flight (25 claims; each recorded as its send returns on PostgreSQL).
    expect(resent).toBeLessThanOrEqual(25);
  }, 90_000);

  it("answers 503 STORE_UNAVAILABLE while PostgreSQL restarts, then serves again without a restart", async () => {
    await postgres.pause();
    try {
      // The health check's probe answer is kept a second (load-balancer traffic): 503 within it.
      const health = await waitFor(async () => {
        const answer = await call("b", "/api/health");
        return answer.status === 503 ? answer : undefined;
      }, 3_000);
      expect(health.status).toBe(503);
      expect(health.json.error.code).toBe("STORE_UNAVAILABLE");
      expect(health.headers["retry-after"]).toBe("2");
      const refused = await call("b", "/api/contact/brick", {
        body: lead(contactable(0), "pendant.panne@example.fr"),
        from: freshClient(),
      });
      expect(refused.status).toBe(503);
      expect(refused.json.error.code).toBe("STORE_UNAVAILABLE");
    } finally {
      await postgres.resume();
      await admin.end().catch(() => undefined);
      admin = await connectAdmin();
    }
    await waitFor(async () => ((await call("b", "/api/health")).status === 200 ? true : undefined), 20_000);
    const accepted = await call("b", "/api/contact/brick", {
      body: lead(contactable(0), "apres.panne@example.fr"),
      from: freshClient(),
    });
    expect(accepted.status).toBe(201);
  }, 60_000);
});
