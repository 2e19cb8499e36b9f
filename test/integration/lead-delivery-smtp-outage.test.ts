/**
 * Lead delivery across SMTP outages, against a real smtp-server started on a port of the test's
 * choosing: first a port that refuses every connection (nothing listens on it), then a server that
 * accepts connections and stalls (it trickles a reply that never ends, which no socket timeout
 * notices). While the server is away deliveries fail and are retried, more of them than the
 * transport's connection pool holds (3); once a working server listens on the same port every lead
 * is delivered exactly once. The health check reports the outbox meanwhile. The worker runs in
 * this process on its own App, with a clock the test moves forward.
 */
import net, { type AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { setLogLevel } from "../../src/logging.ts";
import { RETRY_DELAYS_MS } from "../../src/mail/backoff.ts";
import type { DispatchReport } from "../../src/mail/dispatch-outbox.ts";
import { type OutboxWorker, startOutboxWorker } from "../../src/mail/outbox-worker.ts";
import { createMailTransport } from "../../src/mail/transport.ts";
import { type JsonObject, startTestServer, type TestServer } from "../helpers/test-server.ts";

/** The lead id of every message the working server accepted, in order. */
const received: string[] = [];
let server: TestServer;
let app: App;
let offsetMs = 0;
let worker: OutboxWorker | null = null;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  server = await startTestServer({ count: 60, env: { RATE_LIMIT_ANON_HOURLY: "100000" } });
  setLogLevel("silent");
  app = createApp(loadConfig(), { now: () => new Date(Date.now() + offsetMs) });
});

afterEach(async () => {
  await worker?.stop({ timeoutMs: 1_000 });
  worker = null;
  for (const close of closers.splice(0)) await close();
});

afterAll(async () => {
  app?.close();
  await server?.close();
});

/** A port nothing listens on: connections to it are refused until the test starts a server there. */
async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

async function startWorkingSmtp(port: number): Promise<void> {
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        received.push(/^X-Abeille-Lead-Id: (\S+)/im.exec(raw)?.[1] ?? "a message without a lead id");
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(port, "127.0.0.1", resolve));
  closers.push(() => new Promise<void>((resolve) => smtp.close(() => resolve())));
}

/**
 * An SMTP server that greets, answers EHLO, then answers MAIL FROM with continuation lines
 * ("250-...") every 200 ms and never the last line: the client waits for the end of the reply, and
 * the bytes keep its socket timeout from firing. Returns its closer (which drops every connection).
 */
async function startStallingSmtp(port: number): Promise<() => Promise<void>> {
  const sockets = new Set<net.Socket>();
  const stalling = net.createServer((socket) => {
    sockets.add(socket);
    let trickle: NodeJS.Timeout | undefined;
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearInterval(trickle);
      sockets.delete(socket);
    });
    socket.write("220 stall.test ESMTP\r\n");
    socket.on("data", (chunk: Buffer) => {
      const line = chunk.toString("latin1");
      if (/^(EHLO|HELO) /i.test(line)) socket.write("250 stall.test\r\n");
      else if (/^MAIL FROM:/i.test(line) && !trickle) {
        trickle = setInterval(() => socket.write("250-still thinking\r\n"), 200);
      }
    });
  });
  await new Promise<void>((resolve) => stalling.listen(port, "127.0.0.1", resolve));
  return () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      stalling.close(() => resolve());
    });
}

/** The worker of these tests: SMTP to `port`, sends given up after one second. */
function startWorker(port: number): OutboxWorker {
  const transport = createMailTransport(
    { ...app.config.mail, smtp: { url: `smtp://127.0.0.1:${port}` } },
    { sendTimeoutMs: 1_000 },
  );
  return startOutboxWorker(app, { transport, pollMs: 3_600_000 });
}

/** A drain, or "hung" when it has not settled within 5 seconds (a drain waiting forever). */
async function drain(): Promise<DispatchReport | "hung"> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<"hung">((resolve) => {
    timer = setTimeout(() => resolve("hung"), 5_000);
  });
  try {
    return await Promise.race([(worker as OutboxWorker).runNow(), hung]);
  } finally {
    clearTimeout(timer);
  }
}

async function postLeads(count: number, label: string): Promise<{ leadId: string; token: string }[]> {
  const abId = server.roster.cases.active_contactable?.[0] as string;
  const leads: { leadId: string; token: string }[] = [];
  for (let index = 0; index < count; index++) {
    const response = await server.getJson("/api/contact/brick", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        ab_id: abId,
        contact_name: `Client ${index}`,
        contact_email: `${label}.${index}@example.fr`,
        lead_type: "quote",
      }),
    });
    expect(response.status).toBe(201);
    leads.push({ leadId: response.body.lead_id, token: response.body.tracking_token });
  }
  return leads;
}

/** Each lead's outbox row as "status/attempts", in the order the leads were posted. */
const rows = (leads: readonly { leadId: string }[]) =>
  Promise.all(
    leads.map(async (lead) => {
      const [row] = await app.outbox.findBySubject(lead.leadId);
      return `${row?.status}/${row?.attempts}`;
    }),
  );

/** The health check's outbox figures once they show `pending` (they are read at most once a second). */
async function outboxHealth(pending: number): Promise<JsonObject> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const { status, body } = await server.getJson("/api/health");
    expect(status).toBe(200);
    if (body.data?.outbox?.pending === pending || Date.now() > deadline) return body.data.outbox;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function expectDelivered(leads: readonly { leadId: string; token: string }[]): Promise<void> {
  for (const lead of leads) {
    const status = await server.getJson(`/api/leads/${lead.leadId}`, { headers: { "x-tracking-token": lead.token } });
    expect(status.body.data.tracking_status).toBe("delivered");
  }
}

describe("lead delivery across an SMTP outage", () => {
  it("retries while the port refuses connections and delivers every lead exactly once when a server listens there", async () => {
    const port = await closedPort();
    worker = startWorker(port);
    received.length = 0;
    const leads = await postLeads(5, "refused");

    // The commits' nudges may already have run a drain: whatever it took, each lead is refused once.
    expect(await drain()).not.toBe("hung");
    expect(await rows(leads)).toEqual(Array(5).fill("pending/1"));
    offsetMs += RETRY_DELAYS_MS[0] + 1_000;
    expect(await drain()).toEqual({ claimed: 5, sent: 0, retried: 5, failed: 0 });
    offsetMs += RETRY_DELAYS_MS[1] + 1_000;
    expect(await drain()).toEqual({ claimed: 5, sent: 0, retried: 5, failed: 0 });
    expect(await rows(leads)).toEqual(Array(5).fill("pending/3"));
    expect(received).toEqual([]);
    const waiting = await outboxHealth(5);
    expect(waiting.pending).toBe(5);
    expect(Number.isInteger(waiting.oldest_pending_age_seconds)).toBe(true);
    expect(waiting.oldest_pending_age_seconds).toBeGreaterThanOrEqual(0);
    expect(waiting.oldest_pending_age_seconds).toBeLessThan(60);

    await startWorkingSmtp(port);
    offsetMs += RETRY_DELAYS_MS[2] + 1_000;
    expect(await drain()).toEqual({ claimed: 5, sent: 5, retried: 0, failed: 0 });
    expect(await rows(leads)).toEqual(Array(5).fill("sent/4"));
    expect([...received].sort()).toEqual(leads.map((lead) => lead.leadId).sort());
    await expectDelivered(leads);
    expect(await outboxHealth(0)).toEqual({ pending: 0, oldest_pending_age_seconds: null });

    // Nothing is due any more, however late: each lead was delivered once.
    offsetMs += RETRY_DELAYS_MS[4] + 1_000;
    expect(await drain()).toEqual({ claimed: 0, sent: 0, retried: 0, failed: 0 });
    expect(received).toHaveLength(5);
  });

  it("gives up a send the server stalls, retries it, and delivers every lead exactly once when a working server is back", async () => {
    const port = await closedPort();
    const stopStalling = await startStallingSmtp(port);
    closers.push(stopStalling);
    worker = startWorker(port);
    received.length = 0;
    const leads = await postLeads(4, "stalled");

    // Every send waits on a reply that never ends: the send timeout ends it and the drain settles.
    expect(await drain()).not.toBe("hung");
    expect(await rows(leads)).toEqual(Array(4).fill("pending/1"));
    const stalled = (await app.outbox.findBySubject(leads[0]?.leadId as string))[0];
    expect(stalled?.lastError).toMatch(/timed out after 1000 ms/);
    // Later drains are not blocked behind the stalled connections either.
    offsetMs += RETRY_DELAYS_MS[0] + 1_000;
    expect(await drain()).toEqual({ claimed: 4, sent: 0, retried: 4, failed: 0 });
    expect(await rows(leads)).toEqual(Array(4).fill("pending/2"));

    await stopStalling();
    await startWorkingSmtp(port);
    offsetMs += RETRY_DELAYS_MS[1] + 1_000;
    expect(await drain()).toEqual({ claimed: 4, sent: 4, retried: 0, failed: 0 });
    expect(await rows(leads)).toEqual(Array(4).fill("sent/3"));
    expect([...received].sort()).toEqual(leads.map((lead) => lead.leadId).sort());
    await expectDelivered(leads);
    offsetMs += RETRY_DELAYS_MS[4] + 1_000;
    expect(await drain()).toEqual({ claimed: 0, sent: 0, retried: 0, failed: 0 });
    expect(received).toHaveLength(4);
  });
});
