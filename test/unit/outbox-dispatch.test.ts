/**
 * The outbox on a real database: exclusive claims, leases, stale workers, the retry schedule,
 * permanent failures, what is stored about an error, the .eml transport and the worker's nudge.
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { createLead } from "../../src/domain/leads/create-lead.ts";
import { setLogLevel } from "../../src/logging.ts";
import { MAX_ATTEMPTS, RETRY_DELAYS_MS, retryDelayMs } from "../../src/mail/backoff.ts";
import { compose, type DispatchDeps, describeFailure, dispatchDueMessages } from "../../src/mail/dispatch-outbox.ts";
import { notifyOutbox } from "../../src/mail/outbox-signal.ts";
import { startOutboxWorker } from "../../src/mail/outbox-worker.ts";
import { createMailTransport, type MailTransport, type OutgoingMail } from "../../src/mail/transport.ts";
import { seedDemoRegistry } from "../../src/seed/seed-demo.ts";
import { openDatabase } from "../../src/store/db.ts";
import { CLAIM_DUE_SQL } from "../../src/store/outbox-repository.ts";
import { leadDeps } from "../../src/wiring.ts";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");

let dataDir: string;
let app: App;
let second: App;
let clock = new Date("2026-11-22T10:00:00.000Z");
let abIds: string[];

beforeAll(async () => {
  setLogLevel("silent");
  dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-outbox-unit-"));
  const db = openDatabase(path.join(dataDir, "abeille.db"));
  await seedDemoRegistry(db, { count: 40, seed: 12, now: new Date("2026-11-01T00:00:00Z"), dataDir });
  db.$client.close();
  abIds = JSON.parse(readFileSync(path.join(dataDir, "demo-roster.json"), "utf8")).cases.active_contactable;
  app = createApp(loadConfig({ DATA_DIR: dataDir }), { now: () => clock });
  second = createApp(loadConfig({ DATA_DIR: dataDir }), { now: () => clock });
}, 60_000);

afterAll(() => {
  app?.close();
  second?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const newLead = (abId = abIds[0] as string) =>
  createLead(
    { ...leadDeps(app), notifyOutbox: () => {} },
    { ab_id: abId, contact_name: "Camille", contact_email: `c.${randomUUID()}@example.fr`, lead_type: "quote" },
    { caller: { agentId: null, clientAddress: "127.0.0.1" }, idempotencyKey: null },
  );

/** Settles everything due now, so each test starts from an empty queue. */
const settleAll = async () => {
  await dispatchDueMessages({ ...deps(recordingTransport()), batchSize: 10_000 });
};

function recordingTransport(fail?: (mail: OutgoingMail) => Error | null): MailTransport & { sent: OutgoingMail[] } {
  const sent: OutgoingMail[] = [];
  return {
    kind: "smtp",
    sent,
    async send(mail) {
      const error = fail?.(mail) ?? null;
      if (error) throw error;
      sent.push(mail);
      return {};
    },
    reset() {},
    close() {},
  };
}

const deps = (transport: MailTransport, on: App = app): DispatchDeps => ({
  outbox: on.outbox,
  leads: on.leads,
  platformContacts: on.platformContacts,
  transport,
  platformTeamEmail: "equipe@abeille.test",
  leadEmailConfirmations: on.leadEmailConfirmations,
  leadEmailTokens: on.leadEmailTokens,
  spaceNotices: on.spaceNotices,
  baseUrl: on.config.baseUrl,
  now: () => clock,
});

const smtpError = (responseCode: number) =>
  Object.assign(new Error(`${responseCode} 4.2.1 <marchand@exemple.fr>: mailbox busy for client@example.fr`), {
    code: "EENVELOPE",
    responseCode,
    command: "RCPT TO",
  });

describe("recording results", () => {
  it("with settleEach, records a sent email while the rest of its batch is still being sent (a machine that dies mid-batch leaves only the sends in flight)", async () => {
    await settleAll();
    const quick = await newLead();
    await newLead(abIds[1]);
    const statusOf = (leadId: string) =>
      app.db.$client
        .prepare("SELECT status FROM outbox WHERE subject_id = ? AND kind = 'lead_notification'")
        .pluck()
        .get(leadId);
    const run = async (settleEach: boolean) => {
      let quickId: string | null = null;
      let seenBySlow: unknown = null;
      const transport: MailTransport = {
        ...recordingTransport(),
        async send(mail) {
          if (quickId === null) {
            quickId = mail.outboxId;
            return {};
          }
          // The other email of the batch is still being sent: what does the outbox say of the first?
          const deadline = Date.now() + 500;
          while (Date.now() < deadline && statusOf(quick.leadId) !== "sent") {
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
          seenBySlow = statusOf(quick.leadId);
          return {};
        },
      };
      await dispatchDueMessages({ ...deps(transport), settleEach });
      return seenBySlow;
    };
    expect(await run(true)).toBe("sent");
  });

  it("without settleEach, records the batch's results together once every send returned", async () => {
    await settleAll();
    const first = await newLead();
    await newLead(abIds[1]);
    let sends = 0;
    let seenBySecond: unknown = null;
    const transport: MailTransport = {
      ...recordingTransport(),
      async send() {
        sends += 1;
        if (sends === 2) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          seenBySecond = app.db.$client
            .prepare("SELECT status FROM outbox WHERE subject_id = ? AND kind = 'lead_notification'")
            .pluck()
            .get(first.leadId);
        }
        return {};
      },
    };
    await dispatchDueMessages(deps(transport));
    expect(seenBySecond).toBe("sending");
  });
});

describe("the retry schedule", () => {
  it("waits 1 min, 5 min, 30 min, 2 h, 12 h and gives up after the sixth attempt", async () => {
    expect(MAX_ATTEMPTS).toBe(6);
    expect([1, 2, 3, 4, 5].map(retryDelayMs)).toEqual([...RETRY_DELAYS_MS]);
    expect(RETRY_DELAYS_MS).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 43_200_000]);
    expect(retryDelayMs(6)).toBeNull();
  });

  it("stores codes and the server's words without any address", async () => {
    const text = describeFailure(smtpError(451));
    expect(text).toMatch(/^EENVELOPE 451 RCPT TO: /);
    expect(text).not.toMatch(/@/);
  });
});

describe("claims", () => {
  it("never hand the same row to two workers, and a lease keeps it until it expires", async () => {
    await settleAll();
    const leads = await Promise.all(Array.from({ length: 12 }, () => newLead()));
    const now = clock.toISOString();
    const leaseUntil = new Date(clock.getTime() + 300_000).toISOString();
    const a = await app.outbox.claimDue({ now, leaseUntil, limit: 5 });
    const b = await second.outbox.claimDue({ now, leaseUntil, limit: 100 });
    const c = await app.outbox.claimDue({ now, leaseUntil, limit: 100 });
    expect(a).toHaveLength(5);
    expect(b).toHaveLength(7);
    expect(c).toHaveLength(0);
    const ids = new Set([...a, ...b].map((row) => row.subjectId));
    expect(ids).toEqual(new Set(leads.map((lead) => lead.leadId)));

    // A worker that died: after the lease the row is claimed again, and the stale result is ignored.
    const stale = a[0];
    if (!stale) throw new Error("no claim");
    clock = new Date(clock.getTime() + 300_001);
    const again = await second.outbox.claimDue({
      now: clock.toISOString(),
      leaseUntil: new Date(clock.getTime() + 300_000).toISOString(),
      limit: 100,
    });
    expect(again.map((row) => row.messageId)).toContain(stale.messageId);
    const retaken = again.find((row) => row.messageId === stale.messageId);
    expect(retaken?.attempts).toBe(2);
    expect(await app.outbox.markSent({ messageId: stale.messageId, attempts: 1, at: clock.toISOString() })).toBe(false);
    expect(await second.outbox.markSent({ messageId: stale.messageId, attempts: 2, at: clock.toISOString() })).toBe(
      true,
    );
    expect((await app.leads.findSummary(stale.subjectId))?.trackingStatus).toBe("delivered");
    clock = new Date(clock.getTime() + 300_001);
    await settleAll();
  });

  it("take the earliest due rows first, pending and expired leases alike", async () => {
    await settleAll();
    const at = (offsetMs: number) => new Date(clock.getTime() + offsetMs).toISOString();
    const [early, leased, late] = await Promise.all(
      (await Promise.all([newLead(), newLead(), newLead()])).map(
        async (lead) => (await app.outbox.findBySubject(lead.leadId))[0]?.messageId as string,
      ),
    );
    const setDue = app.db.$client.prepare("UPDATE outbox SET status = ?, next_attempt_at = ? WHERE message_id = ?");
    setDue.run("pending", at(-3_000), early);
    setDue.run("sending", at(-2_000), leased); // a worker's lease that ran out
    setDue.run("pending", at(-1_000), late);
    const claimed = await app.outbox.claimDue({ now: at(0), leaseUntil: at(300_000), limit: 2 });
    expect(claimed.map((row) => row.messageId)).toEqual([early, leased]);
    clock = new Date(clock.getTime() + 300_001);
    await settleAll();
  });

  it("read the few rows they claim by key, however long the queue (no scan of the due rows)", async () => {
    const claimPlan = (
      app.db.$client.prepare(`EXPLAIN QUERY PLAN ${CLAIM_DUE_SQL}`).all({
        now: "2026-11-22T10:00:00.000Z",
        leaseUntil: "2026-11-22T10:05:00.000Z",
        limit: 25,
        claimer: "host:1",
      }) as {
        detail: string;
      }[]
    ).map((row) => row.detail);
    expect(claimPlan[0]).toMatch(/USING INDEX sqlite_autoindex_outbox_1 \(message_id=\?\)/);
    expect(claimPlan.filter((detail) => detail.includes("outbox_due (status=? AND next_attempt_at<?)"))).toHaveLength(
      2,
    );
  });
});

describe("dispatch", () => {
  it("delivers, marks the lead delivered, and sends the French email to the merchant with Reply-To", async () => {
    await settleAll();
    const lead = await newLead();
    const transport = recordingTransport();
    const report = await dispatchDueMessages(deps(transport));
    expect(report).toEqual({ claimed: 1, sent: 1, retried: 0, failed: 0 });
    const mail = transport.sent[0];
    expect(mail?.subject).toBe("Nouvelle demande de devis via Abeille");
    expect(mail?.replyTo?.name).toBe("Camille");
    expect(mail?.to).toBe((await app.merchants.findProfile(abIds[0] as string))?.merchant.email);
    const summary = await app.leads.findSummary(lead.leadId);
    expect(summary?.trackingStatus).toBe("delivered");
    expect(summary?.deliveredAt).toBe(clock.toISOString());
  });

  it("reads the leads of a batch's notifications in one read, each email as from one read of its own", async () => {
    await settleAll();
    const leads = [await newLead(abIds[0]), await newLead(abIds[1]), await newLead(abIds[2])];
    const reads = { one: 0, many: 0 };
    const counted = {
      ...app.leads,
      findForDelivery: (leadId: string) => {
        reads.one += 1;
        return app.leads.findForDelivery(leadId);
      },
      findManyForDelivery: (leadIds: readonly string[]) => {
        reads.many += 1;
        return app.leads.findManyForDelivery(leadIds);
      },
    };
    const batched = recordingTransport();
    const report = await dispatchDueMessages({ ...deps(batched), leads: counted });
    expect(report).toEqual({ claimed: 3, sent: 3, retried: 0, failed: 0 });
    expect(reads).toEqual({ one: 0, many: 1 });
    const byLead = new Map(batched.sent.map((mail) => [mail.headers?.["X-Abeille-Lead-Id"], mail]));
    for (const lead of leads) {
      const mail = byLead.get(lead.leadId);
      const alone = await compose(deps(recordingTransport()), {
        messageId: mail?.outboxId as string,
        kind: "lead_notification",
        subjectId: lead.leadId,
        status: "sent",
        attempts: 0,
        nextAttemptAt: clock.toISOString(),
        lastError: null,
        createdAt: clock.toISOString(),
        sentAt: null,
      });
      expect([mail?.to, mail?.subject, mail?.text]).toEqual([alone.to, alone.subject, alone.text]);
    }
  });

  it("falls back to one read per email when the batch's read fails", async () => {
    await settleAll();
    await newLead(abIds[0]);
    await newLead(abIds[1]);
    const failing = {
      ...app.leads,
      findManyForDelivery: async () => {
        throw new Error("database gone for a moment");
      },
    };
    const transport = recordingTransport();
    expect(await dispatchDueMessages({ ...deps(transport), leads: failing })).toEqual({
      claimed: 2,
      sent: 2,
      retried: 0,
      failed: 0,
    });
  });

  it("retries with backoff and fails the lead after the last attempt", async () => {
    await settleAll();
    const lead = await newLead();
    const transport = recordingTransport(() => smtpError(451));
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const report = await dispatchDueMessages(deps(transport));
      expect(report.claimed).toBe(1);
      const [row] = await app.outbox.findBySubject(lead.leadId);
      expect(row?.attempts).toBe(attempt);
      if (attempt < MAX_ATTEMPTS) {
        expect(row?.status).toBe("pending");
        expect(Date.parse(row?.nextAttemptAt ?? "") - clock.getTime()).toBe(RETRY_DELAYS_MS[attempt - 1]);
        expect(row?.lastError).toMatch(/451/);
        expect(row?.lastError).not.toMatch(/@/);
        // Not due a moment before.
        clock = new Date(clock.getTime() + (RETRY_DELAYS_MS[attempt - 1] ?? 0) - 1);
        expect((await dispatchDueMessages(deps(transport))).claimed).toBe(0);
        clock = new Date(clock.getTime() + 1);
      } else {
        expect(row?.status).toBe("failed");
      }
    }
    const summary = await app.leads.findSummary(lead.leadId);
    expect(summary?.trackingStatus).toBe("failed");
    expect(summary?.failedAt).toBe(clock.toISOString());
  });

  it("fails at once what no retry can cure (a merchant without an email address)", async () => {
    await settleAll();
    const abId = abIds[1] as string;
    const lead = await newLead(abId);
    const original = app.db.$client.prepare("SELECT email FROM merchants WHERE ab_id = ?").pluck().get(abId);
    app.db.$client.prepare("UPDATE merchants SET email = NULL WHERE ab_id = ?").run(abId);
    try {
      const report = await dispatchDueMessages(deps(recordingTransport()));
      expect(report).toMatchObject({ claimed: 1, failed: 1 });
      expect((await app.outbox.findBySubject(lead.leadId))[0]).toMatchObject({ status: "failed", attempts: 1 });
      expect((await app.leads.findSummary(lead.leadId))?.trackingStatus).toBe("failed");
    } finally {
      app.db.$client.prepare("UPDATE merchants SET email = ? WHERE ab_id = ?").run(original, abId);
    }
  });
});

describe("the .eml transport", () => {
  it("writes one RFC 822 file per message, named by time, kind and outbox id, rewritten on a retry", async () => {
    const outboxDir = path.join(dataDir, "outbox-test");
    const transport = createMailTransport({ smtp: null, from: "Abeille <no-reply@abeille.local>", outboxDir });
    const mail: OutgoingMail = {
      outboxId: "0b8f9c1e-0000-4000-8000-000000000001",
      fileStem: "20261122T100000Z-lead_notification",
      to: "marchand@exemple.fr",
      replyTo: { name: "Camille, Martin", address: "camille@example.fr" },
      subject: "Nouvelle demande de devis via Abeille",
      text: "Bonjour,\nÉté",
      html: "<p>Été</p>",
    };
    const first = await transport.send(mail);
    await transport.send(mail);
    transport.close();
    expect(readdirSync(outboxDir)).toEqual([
      "20261122T100000Z-lead_notification-0b8f9c1e-0000-4000-8000-000000000001.eml",
    ]);
    const raw = readFileSync(first.file ?? "", "utf8");
    expect(raw).toMatch(/^Message-ID: <0b8f9c1e-0000-4000-8000-000000000001@abeille\.local>\r$/m);
    expect(raw).toMatch(/^Reply-To: "Camille, Martin" <camille@example\.fr>\r$/m);
    expect(raw).toMatch(/^To: marchand@exemple\.fr\r$/m);
    expect(raw).toContain("Content-Type: multipart/alternative");
  });
});

describe("the worker", () => {
  it("is woken by the nudge a commit sends and stops cleanly", async () => {
    await settleAll();
    const transport = recordingTransport();
    const worker = startOutboxWorker(app, { transport, pollMs: 3_600_000, now: () => clock });
    try {
      await worker.runNow();
      await newLead();
      notifyOutbox();
      const deadline = Date.now() + 15_000;
      while (transport.sent.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(transport.sent).toHaveLength(1);
    } finally {
      await worker.stop();
    }
  });

  it("gives up a batch that never settles, resets the transport, and keeps delivering", async () => {
    await settleAll();
    const delivered: string[] = [];
    let resets = 0;
    let calls = 0;
    // The first send never settles, whatever happens (a wedge no send timeout caught).
    const transport: MailTransport = {
      kind: "smtp",
      send(mail) {
        calls += 1;
        if (calls === 1) return new Promise(() => undefined);
        delivered.push(mail.headers?.["X-Abeille-Lead-Id"] ?? "");
        return Promise.resolve({});
      },
      reset() {
        resets += 1;
      },
      close() {},
    };
    const worker = startOutboxWorker(app, { transport, pollMs: 3_600_000, now: () => clock, batchTimeoutMs: 200 });
    const settles = async () => {
      let timer: NodeJS.Timeout | undefined;
      const hung = new Promise<"hung">((resolve) => {
        timer = setTimeout(() => resolve("hung"), 3_000);
      });
      const result = await Promise.race([worker.runNow(), hung]);
      clearTimeout(timer);
      return result;
    };
    try {
      const stuck = await newLead();
      expect(await settles()).toEqual({ claimed: 0, sent: 0, retried: 0, failed: 0 });
      expect(resets).toBe(1);
      expect((await app.outbox.findBySubject(stuck.leadId))[0]).toMatchObject({ status: "sending", attempts: 1 });

      const next = await newLead();
      expect(await settles()).toEqual({ claimed: 1, sent: 1, retried: 0, failed: 0 });
      expect(delivered).toEqual([next.leadId]);

      // Once its lease is over, the stuck lead is claimed again and delivered.
      clock = new Date(clock.getTime() + 5 * 60_000 + 1_000);
      expect(await settles()).toEqual({ claimed: 1, sent: 1, retried: 0, failed: 0 });
      expect(delivered).toEqual([next.leadId, stuck.leadId]);
      expect((await app.outbox.findBySubject(stuck.leadId))[0]).toMatchObject({ status: "sent", attempts: 2 });
    } finally {
      await worker.stop({ timeoutMs: 100 });
    }
  });
});

describe("after a crash", () => {
  /** The pid of a process that has run and exited (so no process of this machine has it now). */
  const deadPid = async () => {
    const child = execFile(process.execPath, ["-e", ""]);
    await new Promise((resolve) => child.once("exit", resolve));
    return child.pid as number;
  };
  const claimAs = (leadId: string, claimer: string) =>
    app.db.$client
      .prepare(
        "UPDATE outbox SET status = 'sending', attempts = 1, next_attempt_at = ?, claimed_by = ? WHERE subject_id = ?",
      )
      .run(new Date(clock.getTime() + 300_000).toISOString(), claimer, leadId);
  const statusOf = async (leadId: string) => (await app.outbox.findBySubject(leadId))[0]?.status;

  it("sends at once what a killed process had claimed, and leaves live or remote claims to their owner", async () => {
    await settleAll();
    const orphan = await newLead();
    const live = await newLead();
    const remote = await newLead();
    claimAs(orphan.leadId, `${os.hostname()}:${await deadPid()}`);
    claimAs(live.leadId, `${os.hostname()}:${process.ppid}`);
    claimAs(remote.leadId, "another-machine:4242");
    const transport = recordingTransport();
    const worker = startOutboxWorker(app, { transport, pollMs: 3_600_000, now: () => clock });
    try {
      const deadline = Date.now() + 15_000;
      while (transport.sent.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      await worker.runNow();
      expect(transport.sent.map((mail) => mail.headers?.["X-Abeille-Lead-Id"])).toEqual([orphan.leadId]);
      expect(await Promise.all([statusOf(orphan.leadId), statusOf(live.leadId), statusOf(remote.leadId)])).toEqual([
        "sent",
        "sending",
        "sending",
      ]);
      // The orphan's interrupted attempt counts: this delivery was its second.
      expect((await app.outbox.findBySubject(orphan.leadId))[0]?.attempts).toBe(2);
    } finally {
      await worker.stop();
      // The others' leases run out; later tests start from an empty queue.
      clock = new Date(clock.getTime() + 600_000);
      await settleAll();
    }
  });
});

describe("npm run outbox -- --once", () => {
  it("delivers what is due as .eml files in DATA_DIR/outbox and prints the counts", async () => {
    await settleAll();
    clock = new Date();
    const lead = await newLead();
    // vitest sets BASE_URL="/" (Vite's base) in its environment: not a setting of ours.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== "BASE_URL"));
    const { stdout } = await run(process.execPath, ["jobs/outbox-worker.ts", "--once"], {
      cwd: root,
      env: { ...env, DATA_DIR: dataDir, LOG_LEVEL: "silent", SMTP_URL: "", SMTP_HOST: "" },
    });
    expect(stdout).toMatch(/^outbox: 1 sent, 0 to retry, 0 failed/);
    const files = readdirSync(path.join(dataDir, "outbox")).filter((name) => name.includes("lead_notification"));
    expect(files).toHaveLength(1);
    expect((await app.leads.findSummary(lead.leadId))?.trackingStatus).toBe("delivered");
  });
});

describe("mail settings", () => {
  it("read SMTP_URL, or SMTP_HOST/PORT/USER/PASS/SECURE, else fall back to .eml files", async () => {
    expect(loadConfig({ SMTP_URL: "smtp://u:p@mail.example:2525" }).mail.smtp).toEqual({
      url: "smtp://u:p@mail.example:2525",
    });
    expect(loadConfig({ SMTP_HOST: "mail.example", SMTP_USER: "u", SMTP_PASS: "p" }).mail.smtp).toEqual({
      host: "mail.example",
      port: 587,
      secure: false,
      user: "u",
      pass: "p",
    });
    expect(loadConfig({ SMTP_HOST: "mail.example", SMTP_SECURE: "true" }).mail.smtp).toMatchObject({
      port: 465,
      secure: true,
    });
    const none = loadConfig({ SMTP_URL: "", DATA_DIR: "/tmp/x" });
    expect(none.mail).toEqual({
      smtp: null,
      from: "Abeille <no-reply@abeille.local>",
      platformTeamEmail: "equipe@abeille.local",
      outboxDir: "/tmp/x/outbox",
    });
    expect(none.leadRetentionMonths).toBe(24);
    expect(() => loadConfig({ PLATFORM_TEAM_EMAIL: "not-an-email" })).toThrow(/PLATFORM_TEAM_EMAIL/);
  });
});

describe("the SMTP transport", () => {
  it("turns an unreachable server into a retry, not a crash", async () => {
    await settleAll();
    const lead = await newLead();
    const transport = createMailTransport({
      smtp: { host: "127.0.0.1", port: 9, secure: false, user: null, pass: null },
      from: "Abeille <no-reply@abeille.local>",
      outboxDir: path.join(dataDir, "unused"),
    });
    try {
      const report = await dispatchDueMessages(deps(transport));
      expect(report).toMatchObject({ claimed: 1, retried: 1 });
      const [row] = await app.outbox.findBySubject(lead.leadId);
      expect(row).toMatchObject({ status: "pending", attempts: 1 });
      expect(row?.lastError).toMatch(/ECONNREFUSED|ECONNECTION|ESOCKET/);
    } finally {
      transport.close();
      clock = new Date(clock.getTime() + 3_600_000);
      await settleAll();
    }
  });
});
