/**
 * The national bench's sequel (issue 35, items 2 to 4): on a registry that
 * `npm run bench:national -- --rows N --keep` imported (the folder it printed; its `data` is the
 * DATA_DIR), each step in a process of its own:
 *
 *   1. the embedded search index's first build (`npm run search -- rebuild` over an index folder
 *      removed first), then the search cards the server would otherwise build at its start
 *      (`npm run search -- cards`): wall and CPU time, peak RSS of the process tree, the longest a
 *      writer beside it waited for the write lock (bench/child-measure.ts); --skip-index keeps
 *      the index and cards a previous run built (to measure the server again after a change);
 *   2. the first publication into an empty publish folder and an unchanged one (`npm run refresh`,
 *      bench/refresh-runs.ts): time, ms a merchant, peak RSS, bytes on disk, files and folders;
 *      --skip-publication leaves the publish folder as it is (at 5 million merchants a first
 *      publication takes hours);
 *   3. the built server on that DATA_DIR (`jobs/start.ts`, SERVER_PROCESSES as `npm start`): how
 *      long after its start health and a SIRET lookup answer, and the SIRETs, SIRENs and ab_ids
 *      found right after; then, under --connections connections, search on thousands of distinct
 *      questions drawn from the registry (bench/question-mix.ts), resolve on thousands of distinct
 *      ab_ids and the JSON-LD document of each, every figure beside bare node:http serving the
 *      same bytes with as many processes in the same run (bench/lib.ts serverBesideBare);
 *   4. the same server on a Meilisearch started empty (the pinned binary, jobs/meilisearch.ts): the
 *      identifiers right after the start, while the server's follower fills it; once it is in step,
 *      the same search mix.
 *
 * Prints and writes bench/results/national-serving-latest.{md,json}, with the machine's load
 * average before and after (the machine is shared: a figure means little without it).
 *
 *   node bench/national-serving.ts --files DIR [--skip-index] [--skip-publication] [--skip-meilisearch]
 *     [--questions 5000] [--duration 10] [--connections 10] [--processes 2] [--port 4399]
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, renameSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { jobArgv } from "../jobs/compile-cache.ts";
import { startLocalMeilisearch } from "../jobs/meilisearch.ts";
import { SEARCH_INDEX_DIR } from "../src/search/embedded/index.ts";
import { openDatabase } from "../src/store/db.ts";
import { freePort } from "../test/helpers/spawn-start.ts";
import { measureChild } from "./child-measure.ts";
import {
  type LoadFigure,
  machineLine,
  markdownTable,
  percentile,
  round,
  rssMegabytes,
  serverBesideBare,
  serverMemory,
  spawnNode,
  writeReport,
} from "./lib.ts";
import { QUESTION_KINDS, type Question, type QuestionKind, questionMix, type RegistryRow } from "./question-mix.ts";
import { type RefreshRun, refreshRun } from "./refresh-runs.ts";

const root = path.resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    files: { type: "string" },
    "skip-index": { type: "boolean", default: false },
    "skip-publication": { type: "boolean", default: false },
    "skip-meilisearch": { type: "boolean", default: false },
    questions: { type: "string", default: "5000" },
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "10" },
    processes: { type: "string", default: String(os.availableParallelism()) },
    port: { type: "string", default: "4399" },
    /** How long the server's follower may take to fill Meilisearch, minutes. */
    "meilisearch-minutes": { type: "string", default: "240" },
  },
});
if (!values.files)
  throw new Error("usage: node bench/national-serving.ts --files DIR (a folder bench/national.ts kept)");
const dataDir = path.join(path.resolve(values.files), "data");
const storeFile = path.join(dataDir, "abeille.db");
if (!existsSync(storeFile))
  throw new Error(`${storeFile} does not exist: give the folder bench/national.ts --keep printed`);
const questionCount = Number(values.questions);
const load = { connections: Number(values.connections), durationSeconds: Number(values.duration) };
const processes = Number(values.processes);
/** Identifiers of each kind looked up right after a start. */
const IDENTIFIERS_AT_START = 100;
/** Questions of each kind whose answers are read (answered, naming the merchant they were drawn from). */
const QUALITY_SAMPLE = 100;

// The server's and the jobs' environment: the refresh publishes under the server's BASE_URL (the
// port is part of it); no scheduled refresh and no seed; a quota no load generator reaches.
const env = {
  ...process.env,
  DATA_DIR: dataDir,
  PORT: values.port,
  LOG_LEVEL: "warn",
  DEMO_SEED_COUNT: "0",
  RATE_LIMIT_ANON_HOURLY: "1000000000",
  REFRESH_ON_START: "false",
  REFRESH_CRON: "off",
};
const loadAverage = () => os.loadavg().map((value) => round(value, 1));

if (!existsSync(path.join(root, "dist/server/entry.mjs"))) {
  execFileSync("npx", ["astro", "build"], { cwd: root, stdio: "inherit" });
}

// The merchants questions are drawn from: the listed ones, spread over the registry (ab_ids are random).
const db = openDatabase(storeFile);
const merchants = db.$client
  .prepare("SELECT count(*) FROM merchants WHERE status IN ('ACTIVE','PROBATION','PAUSED')")
  .pluck()
  .get() as number;
const rows = db.$client
  .prepare(
    `SELECT ab_id AS abId, siret, business_name AS businessName, city, postal_code AS postalCode,
            naf_code AS nafCode, naf_code_2025 AS nafCode2025
       FROM merchants WHERE status IN ('ACTIVE','PROBATION') ORDER BY ab_id LIMIT ?`,
  )
  .all(questionCount * 2) as RegistryRow[];
db.$client.close();
const questions = questionMix(rows, questionCount);
const abIds = rows.slice(0, questionCount).map((row) => row.abId);
const countOf = (kind: QuestionKind) => questions.filter((question) => question.kind === kind).length;
process.stdout.write(
  `${merchants} published merchants; ${questions.length} distinct questions (${QUESTION_KINDS.map((kind) => `${countOf(kind)} ${kind}`).join(", ")}), ${abIds.length} ab_ids\n`,
);
const loadBefore = loadAverage();

interface Step {
  name: string;
  loadBefore: number[];
  wallSeconds: number;
  cpuSeconds: number;
  peakTreeRssMb: number;
  longestLockWaitMs: number | null;
}

/** A job (`npm run search -- ...`) in a process of its own, measured, a writer probing the write lock beside it. */
async function jobStep(name: string, script: string, args: string[]): Promise<Step> {
  process.stdout.write(`${name} ...\n`);
  const before = loadAverage();
  const figures = await measureChild(jobArgv(script, ...args), env, storeFile);
  if (figures.exitCode !== 0)
    throw new Error(`${name}: exited with ${figures.exitCode}\n${figures.stderr.slice(-2000)}`);
  const { wallSeconds, cpuSeconds, peakTreeRssMb, longestLockWaitMs } = figures;
  return { name, loadBefore: before, wallSeconds, cpuSeconds, peakTreeRssMb, longestLockWaitMs };
}

// 1. The index's first build, from no index at all; the search cards in step.
const steps: Step[] = [];
if (!values["skip-index"]) {
  rmSync(path.join(dataDir, SEARCH_INDEX_DIR), { recursive: true, force: true });
  steps.push(await jobStep("search index: first build", "jobs/search.ts", ["rebuild"]));
  steps.push(await jobStep("search cards", "jobs/search.ts", ["cards"]));
}

// 2. The first publication into an empty publish folder, then one with nothing changed. The
// previous folder is moved aside and deleted at the end (bench/refresh.ts says why).
const publication: RefreshRun[] = [];
const publishDir = path.join(dataDir, "publish");
let previousPublish: string | null = null;
if (!values["skip-publication"]) {
  if (existsSync(publishDir)) {
    previousPublish = `${publishDir}.old-${process.pid}`;
    renameSync(publishDir, previousPublish);
  }
  // The signing key the snapshots are signed with (made when missing).
  spawnSync(process.execPath, jobArgv("jobs/keys.ts", "list"), { cwd: root, env, stdio: "ignore" });
  publication.push(refreshRun("first publication", env));
  publication.push(refreshRun("unchanged publication", env));
}

// 3 and 4. The server on each engine.
interface Start {
  engine: string;
  healthMs: number;
  firstIdentifierMs: number;
  /** Identifiers looked up one after the other once health answered: found of asked, and when (ms after the start). */
  identifiers: Record<"siret" | "siren" | "ab_id", { found: number; asked: number }>;
  lookedUpMs: [number, number];
}
interface Scenario {
  engine: string;
  scenario: string;
  distinct: number;
  server: LoadFigure;
  bare: LoadFigure;
  servedFrom: string | null;
}
interface Quality {
  engine: string;
  kind: QuestionKind;
  asked: number;
  answered: number;
  naming: number;
  /** Each answer's time, asked one after the other (no load): what each kind costs. */
  p50Ms: number;
  maxMs: number;
}
const starts: Start[] = [];
const scenarios: Scenario[] = [];
const quality: Quality[] = [];
const notes: string[] = [];

interface SearchAnswer {
  results?: { merchant: { ab_id: string }; matched: string[] }[];
  retrieval_degraded?: string;
}
const searchPath = (q: string) => `/api/registry/search?q=${encodeURIComponent(q)}`;
async function ask(url: string, q: string): Promise<SearchAnswer | null> {
  try {
    const response = await fetch(`${url}${searchPath(q)}`);
    return response.ok ? ((await response.json()) as SearchAnswer) : null;
  } catch {
    return null; // not listening yet
  }
}
/** An identifier is found when the merchant it was drawn from is listed, or (a SIREN of many establishments) the first answer is by identifier. */
const found = (answer: SearchAnswer | null, question: Question) =>
  (answer?.results ?? []).some(
    (result, index) =>
      result.merchant.ab_id === question.abId || (index === 0 && result.matched.includes("identifier")),
  );

/**
 * Starts the server, and reads how long after its start health answered and a SIRET lookup
 * found its merchant; then the identifiers of the mix, one after the other.
 */
async function startServer(engine: string, extraEnv: Record<string, string>) {
  const url = `http://127.0.0.1:${values.port}`;
  const started = performance.now();
  const child = spawnNode(jobArgv("jobs/start.ts"), {
    ...env,
    ...extraEnv,
    HOST: "127.0.0.1",
    SERVER_PROCESSES: String(processes),
  });
  child.stdout?.resume();
  const since = () => Math.round(performance.now() - started);
  const siret = questions.find((question) => question.kind === "siret") as Question;
  let healthMs: number | null = null;
  let firstIdentifierMs: number | null = null;
  while (healthMs === null || firstIdentifierMs === null) {
    if (child.exitCode !== null) throw new Error(`${engine} server exited with code ${child.exitCode}`);
    if (since() > 300_000) throw new Error(`${engine} server: no answer 300 s after its start`);
    if (healthMs === null) {
      const health = await fetch(`${url}/api/health`).catch(() => null);
      if (health?.ok) healthMs = since();
    }
    if (firstIdentifierMs === null && found(await ask(url, siret.q), siret)) firstIdentifierMs = since();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const lookedUpFrom = since();
  const identifiers = { siret: { found: 0, asked: 0 }, siren: { found: 0, asked: 0 }, ab_id: { found: 0, asked: 0 } };
  const byAbId = abIds.map((abId): Question => ({ kind: "siret", q: abId, abId }));
  for (const [kind, asked] of [
    ["siret", questions.filter((question) => question.kind === "siret")],
    ["siren", questions.filter((question) => question.kind === "siren")],
    ["ab_id", byAbId],
  ] as const) {
    for (const question of asked.slice(0, IDENTIFIERS_AT_START)) {
      identifiers[kind].asked += 1;
      if (found(await ask(url, question.q), question)) identifiers[kind].found += 1;
    }
  }
  starts.push({ engine, healthMs, firstIdentifierMs, identifiers, lookedUpMs: [lookedUpFrom, since()] });
  process.stdout.write(`${engine} server: ${JSON.stringify(starts.at(-1))}\n`);
  return { url, child };
}

/** Reads the answers of a sample of each kind: answered (some results), naming the merchant the question was drawn from. */
async function readAnswers(engine: string, url: string): Promise<void> {
  for (const kind of QUESTION_KINDS) {
    const sample = questions.filter((question) => question.kind === kind).slice(0, QUALITY_SAMPLE);
    let [answered, naming] = [0, 0];
    const times: number[] = [];
    for (const question of sample) {
      const started = performance.now();
      const answer = await ask(url, question.q);
      times.push(performance.now() - started);
      if ((answer?.results ?? []).length > 0) answered += 1;
      if (answer?.results?.some((result) => result.merchant.ab_id === question.abId)) naming += 1;
    }
    times.sort((a, b) => a - b);
    const [p50Ms, maxMs] = [round(percentile(times, 0.5), 1), round(times.at(-1) ?? 0, 1)];
    quality.push({ engine, kind, asked: sample.length, answered, naming, p50Ms, maxMs });
  }
}

async function measure(engine: string, url: string, scenario: string, paths: string[]): Promise<void> {
  const first = await fetch(`${url}${paths[0]}`);
  const servedFrom = first.headers.get("x-served-from");
  const answer = (await first.json()) as SearchAnswer;
  if (engine === "meilisearch" && answer.retrieval_degraded) {
    throw new Error(`the Meilisearch server answered from its fallback (${answer.retrieval_degraded})`);
  }
  const figures = await serverBesideBare(url, paths, { processes, ...load });
  scenarios.push({ engine, scenario, distinct: paths.length, server: figures.server, bare: figures.bare, servedFrom });
  process.stdout.write(
    `${engine} ${scenario}: ${figures.server.requestsPerSecond} req/s (p50 ${figures.server.p50Ms} ms, p99 ${figures.server.p99Ms} ms) vs bare ${figures.bare.requestsPerSecond} req/s\n`,
  );
}

async function stop(child: ReturnType<typeof spawnNode>): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

const searchPaths = questions.map((question) => searchPath(question.q));
{
  const { url, child } = await startServer("embedded", {});
  await readAnswers("embedded", url);
  await measure("embedded", url, "search (question mix)", searchPaths);
  await measure(
    "embedded",
    url,
    "resolve",
    abIds.map((abId) => `/api/registry/resolve/${abId}`),
  );
  await measure(
    "embedded",
    url,
    "JSON-LD document",
    abIds.map((abId) => `/api/merchants/${abId}/jsonld`),
  );
  const memory = serverMemory(child.pid ?? 0);
  notes.push(
    `embedded server after the load: RSS per process ${memory.processes.map((one) => `${one.rss} MB (peak ${one.peak} MB)`).join(", ")}`,
  );
  await stop(child);
}

if (!values["skip-meilisearch"]) {
  const meiliDir = path.join(path.resolve(values.files), `meilisearch-${process.pid}`);
  const meili = await startLocalMeilisearch({ port: await freePort(), dataDir: meiliDir });
  try {
    const { url, child } = await startServer("meilisearch", {
      MEILISEARCH_URL: meili.url,
      MEILISEARCH_TIMEOUT_MS: "1000",
    });
    // The server's follower fills the empty Meilisearch: in step when health says ready.
    const started = performance.now();
    const deadline = started + Number(values["meilisearch-minutes"]) * 60_000;
    for (;;) {
      const health = (await (await fetch(`${url}/api/health`)).json()) as { data: { search: { state: string } } };
      if (health.data.search.state === "ready") break;
      if (performance.now() > deadline)
        throw new Error(`Meilisearch not in step after ${values["meilisearch-minutes"]} minutes`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    notes.push(
      `Meilisearch filled by the server's follower in ${round((performance.now() - started) / 1000, 1)} s after the lookups at start (${Math.round(rssMegabytes(meili.pid).rss)} MB of RSS then)`,
    );
    await readAnswers("meilisearch", url);
    await measure("meilisearch", url, "search (question mix)", searchPaths);
    const memory = serverMemory(child.pid ?? 0);
    notes.push(
      `Meilisearch server after the load: RSS per process ${memory.processes.map((one) => `${one.rss} MB (peak ${one.peak} MB)`).join(", ")}; Meilisearch ${rssMegabytes(meili.pid).rss} MB (peak ${rssMegabytes(meili.pid).peak} MB)`,
    );
    await stop(child);
  } finally {
    await meili.stop();
    rmSync(meiliDir, { recursive: true, force: true });
  }
}
if (previousPublish) rmSync(previousPublish, { recursive: true, force: true });
const loadAfter = loadAverage();

const perMerchant = (seconds: number) => round((seconds * 1000) / Math.max(1, merchants), 3);
const report = [
  `# National serving bench ${new Date().toISOString()}`,
  "",
  `${machineLine()}. Load average before ${loadBefore.join(", ")}, after ${loadAfter.join(", ")}.`,
  `${merchants} published merchants in ${dataDir}; ${questions.length} distinct questions drawn from the registry (${QUESTION_KINDS.map((kind) => `${countOf(kind)} ${kind}`).join(", ")}), ${abIds.length} distinct ab_ids.`,
  "Targets (issue 35): the index's first build never holds the write lock over a second, under 500 MB a process; a first publication at 0.6 ms a merchant or less, an unchanged one at 0.05 ms, 5 KB a merchant on disk, a file per ten merchants at most, under 500 MB; at 3 million merchants on 2 cores and 10 connections, search p99 under 10 ms, resolve p99 under 5 ms, a prebuilt document at 0.8 of bare node:http or more; identifiers found on both engines from the first second after start.",
  "",
  "## Steps (each a process of its own)",
  "",
  ...markdownTable(
    ["step", "load before", "wall s", "ms a merchant", "CPU s", "peak tree RSS MB", "longest lock wait ms"],
    steps.map((step) => [
      step.name,
      step.loadBefore.join(", "),
      step.wallSeconds,
      perMerchant(step.wallSeconds),
      step.cpuSeconds,
      step.peakTreeRssMb,
      step.longestLockWaitMs ?? "",
    ]),
  ),
  "",
  "## Publication",
  "",
  ...(publication.length === 0
    ? ["Skipped (--skip-publication): the documents are served from the publish folder as it was."]
    : markdownTable(
        [
          "run",
          "wall s",
          "ms a merchant",
          "peak RSS MB",
          "on disk MB",
          "KB a merchant",
          "files",
          "folders",
          "merchants a file",
        ],
        publication.map((run) => [
          run.name,
          run.wallSeconds,
          perMerchant(run.wallSeconds),
          run.peakRssMb,
          round(run.disk.bytes / 1e6, 1),
          round(run.disk.bytes / 1024 / Math.max(1, merchants), 2),
          run.disk.files,
          run.disk.folders,
          round(merchants / Math.max(1, run.disk.files), 1),
        ]),
      )),
  "",
  `## The server (${processes} processes, ${load.connections} connections, ${load.durationSeconds} s a figure)`,
  "",
  "After its start: ms until health answered and until a SIRET lookup found its merchant; then identifiers looked up one after the other (the Meilisearch one started empty, its follower filling it meanwhile).",
  "",
  ...markdownTable(
    [
      "engine",
      "health after ms",
      "SIRET found after ms",
      "SIRETs found",
      "SIRENs found",
      "ab_ids found",
      "looked up between ms",
    ],
    starts.map((start) => [
      start.engine,
      start.healthMs,
      start.firstIdentifierMs,
      `${start.identifiers.siret.found}/${start.identifiers.siret.asked}`,
      `${start.identifiers.siren.found}/${start.identifiers.siren.asked}`,
      `${start.identifiers.ab_id.found}/${start.identifiers.ab_id.asked}`,
      `${start.lookedUpMs[0]}-${start.lookedUpMs[1]}`,
    ]),
  ),
  "",
  "Under load, each path list in turn (every request a distinct question or merchant until the list comes round), beside bare node:http serving the first answer's bytes with as many processes in the same run:",
  "",
  ...markdownTable(
    [
      "engine",
      "scenario",
      "distinct paths",
      "req/s",
      "p50 ms",
      "p99 ms",
      "bare req/s",
      "bare p99 ms",
      "ratio",
      "errors",
      "served from",
    ],
    scenarios.map((row) => [
      row.engine,
      row.scenario,
      row.distinct,
      row.server.requestsPerSecond,
      row.server.p50Ms,
      row.server.p99Ms,
      row.bare.requestsPerSecond,
      row.bare.p99Ms,
      round(row.server.requestsPerSecond / Math.max(1, row.bare.requestsPerSecond), 3),
      row.server.errors + row.server.non2xx,
      row.servedFrom ?? "",
    ]),
  ),
  "",
  `Answers read before the load (the first ${QUALITY_SAMPLE} questions of each kind, one after the other, each its first asking): answered with results, naming the merchant the question was drawn from in the first page, and the time of each answer over loopback.`,
  "",
  ...markdownTable(
    ["engine", "kind", "asked", "answered", "naming its merchant", "p50 ms", "slowest ms"],
    quality.map((row) => [row.engine, row.kind, row.asked, row.answered, row.naming, row.p50Ms, row.maxMs]),
  ),
  "",
  ...notes.map((note) => `- ${note}`),
  "",
].join("\n");
writeReport("national-serving", report, {
  dataDir,
  merchants,
  questions: questions.length,
  abIds: abIds.length,
  loadBefore,
  loadAfter,
  steps,
  publication,
  starts,
  scenarios,
  quality,
  notes,
});
process.exit(0);
