/**
 * The server's outbox worker thread (src/mail/outbox-thread.ts): woken by a lead committed on
 * the server's thread, it writes the email with its own connection, and stops when asked.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { createLead } from "../../src/domain/leads/create-lead.ts";
import { setLogLevel } from "../../src/logging.ts";
import { startOutboxThread } from "../../src/mail/outbox-thread.ts";
import { seedDemoRegistry } from "../../src/seed/seed-demo.ts";
import { openDatabase } from "../../src/store/db.ts";
import { leadDeps } from "../../src/wiring.ts";

let dataDir: string;
let app: App;
let abId: string;

beforeAll(async () => {
  setLogLevel("silent");
  dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-outbox-thread-"));
  const db = openDatabase(path.join(dataDir, "abeille.db"));
  await seedDemoRegistry(db, { count: 40, seed: 5, now: new Date("2026-11-01T00:00:00Z"), dataDir });
  db.$client.close();
  app = createApp(loadConfig({ DATA_DIR: dataDir, SMTP_URL: "", SMTP_HOST: "" }));
  const candidates = app.db.$client
    .prepare("SELECT ab_id FROM merchants WHERE status = 'ACTIVE' AND email IS NOT NULL")
    .pluck()
    .all() as string[];
  for (const id of candidates) {
    if ((await app.merchants.findLeadTarget(id, { withProducts: false })) !== null) {
      abId = id;
      break;
    }
  }
}, 60_000);

afterAll(() => {
  app?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const emails = () => {
  const outbox = path.join(dataDir, "outbox");
  return existsSync(outbox) ? readdirSync(outbox).filter((name) => name.endsWith(".eml")) : [];
};

describe("the outbox thread", () => {
  it("delivers a lead committed on this thread, woken by the commit, then stops on request", async () => {
    // A poll interval of an hour: only the commit's nudge can bring the email out in time.
    const thread = startOutboxThread({ ...app.config, outboxPollMs: 3_600_000 }, { nextDueAt: app.outbox.nextDueAt });
    try {
      // Let the thread load and run its first drain on an empty outbox.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const receipt = await createLead(
        leadDeps(app),
        {
          ab_id: abId,
          contact_name: "Camille Martin",
          contact_email: "camille.thread@example.fr",
          lead_type: "contact",
        },
        { caller: { agentId: null, clientAddress: "127.0.0.1" }, idempotencyKey: null },
      );
      // The email file is written before the delivery is recorded: wait for both.
      const delivered = async () =>
        emails().length > 0 && (await app.leads.findSummary(receipt.leadId))?.trackingStatus === "delivered";
      const deadline = Date.now() + 10_000;
      while (!(await delivered()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(emails()).toHaveLength(1);
      expect(emails()[0]).toContain((await app.outbox.findBySubject(receipt.leadId))[0]?.messageId ?? "missing");
      expect((await app.leads.findSummary(receipt.leadId))?.trackingStatus).toBe("delivered");
      // Requests first: the delivery thread runs 10 nice levels below this process's threads (19,
      // the lowest priority, at most: a suite started under `nice` keeps this true).
      const deliveryNice = Math.min(os.constants.priority.PRIORITY_LOW, ownNice() + 10);
      expect(niceLevels().filter((nice) => nice === deliveryNice)).toHaveLength(1);
    } finally {
      await thread.stop({ timeoutMs: 5_000 });
    }
  });
});

describe("the outbox thread runs while there is mail", () => {
  const until = async (condition: () => boolean | Promise<boolean>, what: string) => {
    const deadline = Date.now() + 15_000;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const lead = (email: string) =>
    createLead(
      leadDeps(app),
      { ab_id: abId, contact_name: "Camille Martin", contact_email: email, lead_type: "contact" },
      { caller: { agentId: null, clientAddress: "127.0.0.1" }, idempotencyKey: null },
    );

  it("ends once nothing waits, and the next lead's commit starts a thread that delivers it", async () => {
    // The server's own poll is an hour away: only the commit can bring the thread back.
    const thread = startOutboxThread(
      { ...app.config, outboxPollMs: 3_600_000, outboxThreadIdleMs: 300 },
      { nextDueAt: app.outbox.nextDueAt },
    );
    try {
      expect(thread.running()).toBe(true);
      await until(() => !thread.running(), "the idle thread ended");
      const before = emails().length;
      const receipt = await lead("camille.idle@example.fr");
      await until(
        async () => (await app.leads.findSummary(receipt.leadId))?.trackingStatus === "delivered",
        "the lead is delivered",
      );
      expect(emails()).toHaveLength(before + 1);
      await until(() => !thread.running(), "the thread ended again");
    } finally {
      await thread.stop({ timeoutMs: 5_000 });
    }
  });

  it("starts a thread for a row that falls due while none runs (a retry, another process's row)", async () => {
    const thread = startOutboxThread(
      { ...app.config, outboxPollMs: 100, outboxThreadIdleMs: 300 },
      { nextDueAt: app.outbox.nextDueAt },
    );
    try {
      const receipt = await lead("camille.retry@example.fr");
      await until(
        async () => (await app.leads.findSummary(receipt.leadId))?.trackingStatus === "delivered",
        "the lead is delivered",
      );
      await until(() => !thread.running(), "the idle thread ended");
      const [message] = await app.outbox.findBySubject(receipt.leadId);
      if (!message) throw new Error("the lead has no outbox row");
      // Written behind the server's back (no commit signal): only the poll can see it.
      app.db.$client
        .prepare("UPDATE outbox SET status = 'pending', next_attempt_at = ? WHERE message_id = ?")
        .run(new Date().toISOString(), message.messageId);
      await until(async () => (await app.outbox.find(message.messageId))?.status === "sent", "the row is sent again");
      expect((await app.outbox.find(message.messageId))?.attempts).toBe(message.attempts + 1);
    } finally {
      await thread.stop({ timeoutMs: 5_000 });
    }
  });
});

/** The nice level of each thread of this process (Linux: /proc/self/task/<tid>/stat, field 19). */
function niceLevels(): number[] {
  return readdirSync("/proc/self/task").map((tid) => niceOf(`/proc/self/task/${tid}/stat`));
}

function ownNice(): number {
  return niceOf("/proc/thread-self/stat");
}

function niceOf(statFile: string): number {
  // The command name (field 2) is in parentheses and may hold spaces: count from after it.
  const stat = readFileSync(statFile, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
}
