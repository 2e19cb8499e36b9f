/**
 * Lead bench: leads accepted per second through POST /api/contact/brick with the outbox (every
 * accepted lead writes its lead row, duplicate window and outbox row in one transaction), and
 * what duplicate detection costs. The server is the built bundle started like `npm start`.
 *
 *   node bench/leads.ts [--merchants 2000] [--duration 10] [--connections 10]
 *                          [--worker separate|inprocess|none] [--mail eml|smtp]
 *   BENCH_TMPDIR=/dev/shm node bench/leads.ts ...   (DATA_DIR on tmpfs: the disk out of the figure)
 *
 * Scenarios, each against the same server:
 * - distinct: every request a new lead (distinct emails through autocannon's setupRequest);
 * - duplicate: identical submissions (all answered 200 deduplicated after the first);
 * - domain-only: createLead in-process without HTTP, for the share of the framework.
 * With `--worker inprocess` (default, as `npm start` runs) the server's own outbox worker delivers
 * during the load (its mail thread composes and writes the emails); `separate` runs an outbox
 * worker process (`npm run outbox`) beside the server; `none` leaves the rows pending.
 * `--mail eml` (default) delivers as the demo does (.eml files in DATA_DIR/outbox); `--mail smtp`
 * delivers to an SMTP sink (smtp-server) run by the bench, as production would.
 * After the load the bench checks that every 201 has its lead and outbox row, then times the
 * drain of what is left (emails written per second).
 */
import { type ChildProcess, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { SMTPServer } from "smtp-server";
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config/config.ts";
import { createLead } from "../src/domain/leads/create-lead.ts";
import { setLogLevel } from "../src/logging.ts";
import { drainOutbox } from "../src/mail/dispatch-outbox.ts";
import { dispatchDeps } from "../src/mail/outbox-worker.ts";
import { createMailTransport } from "../src/mail/transport.ts";
import { leadDeps } from "../src/wiring.ts";
import { freePort } from "../test/helpers/spawn-start.ts";
import { round, serverMemory, spawnNode, timeInProcess, waitForHealth, writeReport } from "./lib.ts";

const root = path.resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    merchants: { type: "string", default: "2000" },
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "10" },
    port: { type: "string", default: "0" },
    worker: { type: "string", default: "inprocess" },
    mail: { type: "string", default: "eml" },
    processes: { type: "string", default: String(os.availableParallelism()) },
  },
});
const processes = Number(values.processes);
const durationSeconds = Number(values.duration);
const connections = Number(values.connections);

interface Figure {
  scenario: string;
  requestsPerSecond: number;
  acceptedPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  status: Record<string, number>;
  errors: number;
}

if (!existsSync(path.join(root, "dist/server/entry.mjs"))) {
  execFileSync("npx", ["astro", "build"], { cwd: root, stdio: "inherit" });
}

let smtpSink: SMTPServer | null = null;
let smtpUrl = "";
let sunk = 0;
if (values.mail === "smtp") {
  smtpSink = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, _session, callback) {
      stream.on("data", () => {});
      stream.on("end", () => {
        sunk += 1;
        callback();
      });
    },
  });
  const sink = smtpSink;
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
  smtpUrl = `smtp://127.0.0.1:${(sink.server.address() as AddressInfo).port}`;
}

const dataDir = mkdtempSync(path.join(process.env.BENCH_TMPDIR ?? os.tmpdir(), "abeille-bench-leads-"));
const env = {
  DATA_DIR: dataDir,
  LOG_LEVEL: "warn",
  DEMO_SEED_COUNT: "0",
  RATE_LIMIT_ANON_HOURLY: "1000000000",
  SMTP_URL: smtpUrl,
  SMTP_HOST: "",
  OUTBOX_POLL_MS: "500",
  OUTBOX_WORKER: values.worker === "inprocess" ? "inprocess" : "off",
  // No publication run during the measures (it renders every merchant on every core), as in bench/run.ts.
  REFRESH_ON_START: "false",
  REFRESH_CRON: "off",
};
process.stdout.write(`seeding ${values.merchants} merchants...\n`);
execFileSync(process.execPath, ["jobs/seed.ts", "--count", values.merchants], {
  cwd: root,
  env: { ...process.env, ...env },
  stdio: ["ignore", "inherit", "inherit"],
});
const roster = JSON.parse(readFileSync(path.join(dataDir, "demo-roster.json"), "utf8")) as {
  cases: Record<string, string[]>;
};
const contactable = (roster.cases.active_contactable ?? []).slice(0, 200);
if (contactable.length === 0) throw new Error("the demo roster has no contactable merchant");

const port = values.port === "0" ? String(await freePort()) : values.port;
const url = `http://127.0.0.1:${port}`;
const server = spawnNode(["jobs/start.ts"], {
  ...env,
  PORT: port,
  HOST: "127.0.0.1",
  BASE_URL: url,
  SERVER_PROCESSES: String(processes),
});
server.stdout?.resume();
await waitForHealth(url, server);
const worker = values.worker === "separate" ? spawnNode(["jobs/outbox-worker.ts"], { ...env, BASE_URL: url }) : null;
worker?.stdout?.resume();
// Never leave a server or worker behind, whatever happens to this process.
process.on("exit", () => {
  for (const child of [worker, server]) {
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
});

let sequence = 0;
const distinctBody = () =>
  JSON.stringify({
    ab_id: contactable[sequence % contactable.length],
    contact_name: "Camille Martin",
    contact_email: `bench.${process.pid}.${sequence++}@example.fr`,
    contact_phone: "+33 6 12 34 56 78",
    lead_type: "quote",
    message: "Bonjour, je souhaite recevoir un devis pour des travaux de rénovation de ma cuisine.",
    intent_data: { urgency: "within_month", preferred_contact: "email" },
  });
const duplicateBody = JSON.stringify({
  ab_id: contactable[0],
  contact_name: "Camille Martin",
  contact_email: "bench.duplicate@example.fr",
  lead_type: "quote",
  message: "Bonjour, je souhaite recevoir un devis.",
});

async function run(scenario: string, body: () => string, seconds: number): Promise<Figure> {
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    requests: [
      {
        method: "POST",
        path: "/api/contact/brick",
        headers: { "content-type": "application/json" },
        setupRequest: (request) => ({ ...request, body: body() }),
      },
    ],
  });
  const status = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, stat]) => [code, stat.count ?? 0]),
  );
  return {
    scenario,
    requestsPerSecond: Math.round(result.requests.average),
    acceptedPerSecond: Math.round((status["201"] ?? 0) / seconds),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    status,
    errors: result.errors + result.timeouts,
  };
}

await run("warm-up", distinctBody, 1);
const figures: Figure[] = [];
const distinct = await run("distinct leads (201)", distinctBody, durationSeconds);
figures.push(distinct);
// The first identical submission creates the lead; every other one is a duplicate (200).
figures.push(await run("identical submissions (200 deduplicated)", () => duplicateBody, durationSeconds));
const memory = serverMemory(server.pid ?? 0);

/** SIGTERM, then SIGKILL if the process has not exited within 20 s. */
async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  await exited;
  clearTimeout(timer);
}

if (worker) await stopProcess(worker);
await stopProcess(server);

// Every acknowledged lead is stored with its outbox row.
setLogLevel("silent");
const app = createApp(loadConfig({ ...env, BASE_URL: url }));
const sqlite = app.db.$client;
const leadRows = sqlite.prepare("SELECT count(*) FROM leads").pluck().get() as number;
const orphanLeads = sqlite
  .prepare(
    "SELECT count(*) FROM leads l WHERE NOT EXISTS (SELECT 1 FROM outbox o WHERE o.subject_id = l.lead_id AND o.kind = 'lead_notification')",
  )
  .pluck()
  .get() as number;
const created201 = figures.reduce((sum, figure) => sum + (figure.status["201"] ?? 0), 0);
const byStatusDuringLoad = await app.outbox.countByStatus();

// Drain what is left to .eml files, in-process, and time it.
const transport = createMailTransport(app.config.mail);
const drainStarted = performance.now();
const drained = await drainOutbox({ ...dispatchDeps(app, transport), batchSize: 200 });
const drainSeconds = (performance.now() - drainStarted) / 1000;
transport.close();

// Domain only: createLead without HTTP (distinct, then duplicates).
const deps = { ...leadDeps(app), notifyOutbox: () => {} };
const domainDistinct = await timeInProcess(
  (iteration) =>
    createLead(
      deps,
      {
        ab_id: contactable[iteration % contactable.length] as string,
        contact_name: "Camille Martin",
        contact_email: `domain.${iteration}@example.fr`,
        lead_type: "quote",
        message: "Bonjour, je souhaite recevoir un devis.",
      },
      { caller: { agentId: null, clientAddress: "127.0.0.1" }, idempotencyKey: null },
    ),
  5000,
);
const domainDuplicate = await timeInProcess(
  () =>
    createLead(
      deps,
      {
        ab_id: contactable[0] as string,
        contact_name: "Camille Martin",
        contact_email: "domain.duplicate@example.fr",
        lead_type: "quote",
      },
      { caller: { agentId: null, clientAddress: "127.0.0.1" }, idempotencyKey: null },
    ),
  5000,
);
app.close();
smtpSink?.close();
rmSync(dataDir, { recursive: true, force: true });

const lines = [
  `# Lead bench ${new Date().toISOString()}`,
  "",
  `Node ${process.version}, ${os.cpus().length} cores, server with ${processes} process(es), ${values.merchants} merchants, ${connections} connections, ${durationSeconds} s per figure, autocannon over loopback; outbox worker: ${values.worker}; mail: ${values.mail}${smtpSink ? ` (${sunk} emails reached the SMTP sink)` : ""}; DATA_DIR under ${path.dirname(dataDir)}.`,
  "",
  "| scenario | req/s | accepted (201) /s | p50 ms | p99 ms | statuses | errors |",
  "|---|---|---|---|---|---|---|",
  ...figures.map(
    (figure) =>
      `| ${figure.scenario} | ${figure.requestsPerSecond} | ${figure.acceptedPerSecond} | ${figure.p50Ms} | ${figure.p99Ms} | ${JSON.stringify(figure.status)} | ${figure.errors} |`,
  ),
  "",
  `- domain only, createLead in-process: distinct ${domainDistinct.opsPerSecond}/s (p50 ${domainDistinct.p50Ms} ms, p99 ${domainDistinct.p99Ms} ms); duplicate ${domainDuplicate.opsPerSecond}/s (p50 ${domainDuplicate.p50Ms} ms, p99 ${domainDuplicate.p99Ms} ms)`,
  `- stored: ${leadRows} leads for ${created201} answers 201 (warm-up included); leads without an outbox row: ${orphanLeads}`,
  `- outbox after the load: ${JSON.stringify(byStatusDuringLoad)}; drain of the rest (${values.mail}): ${drained.sent} in ${round(drainSeconds, 2)} s (${Math.round(drained.sent / Math.max(drainSeconds, 0.001))} emails/s)`,
  `- server memory after the load: RSS per process ${memory.processes.map((one) => `${one.rss} MB (peak ${one.peak} MB)`).join(", ")}; ${memory.totalRss} MB in all`,
  "",
];
const report = lines.join("\n");
writeReport("leads", report, {
  figures,
  domainDistinct,
  domainDuplicate,
  leadRows,
  created201,
  orphanLeads,
  drained,
  drainSeconds,
});
process.exit(0);
