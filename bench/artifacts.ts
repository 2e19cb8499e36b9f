/**
 * Published artifacts served per second: our server answering from the publish folder (the fast
 * path in src/publish/fast-path.ts), the same server through the document routes
 * (PUBLISH_FAST_PATH=false: each document rendered on its first request, then kept until the
 * store moves), and bare node:http serving the same file's bytes with as many processes, in the
 * same run, with p50/p99 and the ratios to bare. Writes bench/results/artifacts-latest.{md,json}.
 *
 *   node bench/artifacts.ts [--count 2000] [--store DATA_DIR] [--duration 10] [--connections 10] [--processes N]
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { type PublishedKind, publishedPath } from "../src/publish/documents.ts";
import { openDatabase } from "../src/store/db.ts";
import {
  type LoadFigure,
  load,
  machineLine,
  round,
  spawnNode,
  startBareCluster,
  waitForHealth,
  writeReport,
} from "./lib.ts";

const root = path.resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    count: { type: "string", default: "2000" },
    store: { type: "string" },
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "10" },
    processes: { type: "string", default: String(os.availableParallelism()) },
    port: { type: "string", default: "4398" },
  },
});
const durationSeconds = Number(values.duration);
const connections = Number(values.connections);
const processes = Number(values.processes);
const dataDir = values.store
  ? path.resolve(values.store)
  : mkdtempSync(path.join(os.tmpdir(), "abeille-artifacts-bench-"));
// The job and the server must agree on BASE_URL (links inside the files): files published under
// another base are not served.
const env = {
  BASE_URL: `http://127.0.0.1:${values.port}`,
  DATA_DIR: dataDir,
  LOG_LEVEL: "warn",
  DEMO_SEED_COUNT: "0",
  REFRESH_CRON: "off",
  REFRESH_ON_START: "false",
  // Rendering on demand goes through the route guard, whose anonymous hourly budget would turn the
  // load into 429s; lift it so both columns measure serving.
  RATE_LIMIT_ANON_HOURLY: "1000000000",
};

if (!existsDb()) {
  execFileSync(process.execPath, ["jobs/seed.ts", "--count", values.count], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
}
execFileSync(process.execPath, ["jobs/refresh.ts", "--quiet"], {
  cwd: root,
  env: { ...process.env, ...env },
  stdio: ["ignore", "inherit", "inherit"],
});
if (!readFileSafe(path.join(root, "dist/server/entry.mjs"))) {
  execFileSync("npx", ["astro", "build"], { cwd: root, stdio: "inherit" });
}

function existsDb(): boolean {
  return readFileSafe(path.join(dataDir, "abeille.db")) !== null;
}
function readFileSafe(file: string): Buffer | null {
  try {
    return readFileSync(file);
  } catch {
    return null;
  }
}

const db = openDatabase(path.join(dataDir, "abeille.db"));
const abIds = db.$client
  .prepare("SELECT ab_id FROM merchants WHERE status = 'ACTIVE' ORDER BY ab_id LIMIT 1000")
  .pluck()
  .all() as string[];
db.$client.close();

const kinds: { kind: PublishedKind; url: (abId: string) => string; contentType: string }[] = [
  { kind: "jsonld", url: (id) => `/api/merchants/${id}/jsonld`, contentType: "application/ld+json; charset=utf-8" },
  { kind: "ai-md", url: (id) => `/m/${id}/ai.md`, contentType: "text/markdown; charset=utf-8" },
  { kind: "ai-digest", url: (id) => `/api/merchants/${id}/ai-digest`, contentType: "application/json; charset=utf-8" },
  {
    kind: "decision-card",
    url: (id) => `/api/merchants/${id}/decision-card`,
    contentType: "application/json; charset=utf-8",
  },
];

interface Row {
  kind: string;
  bytes: number;
  published: LoadFigure;
  publishedOneFile: LoadFigure;
  onDemand: LoadFigure;
  bare: LoadFigure;
}

async function withServer<T>(extraEnv: Record<string, string>, work: (url: string) => Promise<T>): Promise<T> {
  const port = values.port;
  const server = spawnNode(["jobs/start.ts"], {
    ...env,
    ...extraEnv,
    PORT: port,
    HOST: "127.0.0.1",
    SERVER_PROCESSES: String(processes),
  });
  server.stdout?.resume();
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(url, server);
    return await work(url);
  } finally {
    server.kill("SIGTERM");
    await new Promise((resolve) => server.once("exit", resolve));
  }
}

const ratio = (figure: LoadFigure, bare: LoadFigure) =>
  round(figure.requestsPerSecond / Math.max(1, bare.requestsPerSecond), 3);
const figures = new Map<string, Partial<Row>>();
await withServer({}, async (url) => {
  for (const { kind, url: pathOf, contentType } of kinds) {
    const paths = abIds.map(pathOf);
    const first = abIds[0] ?? "";
    // The server looks at the serve index at most once a second: give it a moment.
    let probe = await fetch(`${url}${pathOf(first)}`);
    for (let attempt = 0; attempt < 3 && probe.headers.get("x-served-from") !== "publish-folder"; attempt++) {
      await probe.arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, 1200));
      probe = await fetch(`${url}${pathOf(first)}`);
    }
    if (probe.headers.get("x-served-from") !== "publish-folder") {
      throw new Error(`${kind} is not served from the folder: ${probe.status} ${JSON.stringify([...probe.headers])}`);
    }
    await probe.arrayBuffer();
    const body = readFileSync(path.join(dataDir, "publish", publishedPath(kind, first)));
    await load(url, paths, { connections, durationSeconds: 1 });
    const published = await load(url, paths, { connections, durationSeconds });
    const publishedOneFile = await load(url, [pathOf(first)], { connections, durationSeconds });
    const bare = await startBareCluster(body, contentType, processes);
    const bareFigure = await load(bare.url, ["/"], { connections, durationSeconds });
    bare.close();
    figures.set(kind, { kind, bytes: body.length, published, publishedOneFile, bare: bareFigure });
    process.stdout.write(
      `${kind}: folder ${published.requestsPerSecond} req/s (p99 ${published.p99Ms} ms, ratio ${ratio(published, bareFigure)}), one file ${publishedOneFile.requestsPerSecond}, bare ${bareFigure.requestsPerSecond} req/s\n`,
    );
  }
});
await withServer({ PUBLISH_FAST_PATH: "false" }, async (url) => {
  for (const { kind, url: pathOf } of kinds) {
    const paths = abIds.map(pathOf);
    await load(url, paths, { connections, durationSeconds: 1 });
    const onDemand = await load(url, paths, { connections, durationSeconds });
    const row = figures.get(kind) ?? {};
    row.onDemand = onDemand;
    process.stdout.write(`${kind}: through the route ${onDemand.requestsPerSecond} req/s (p99 ${onDemand.p99Ms} ms)\n`);
  }
});

const rows = [...figures.values()] as Row[];
const header =
  "| document | bytes | published files req/s | ratio to bare | p50 ms | p99 ms | one file req/s | through the route req/s | ratio to bare | p99 ms | bare node:http req/s | p50 ms | p99 ms | errors |";
const lines = rows.map((row) =>
  [
    row.kind,
    row.bytes,
    row.published.requestsPerSecond,
    ratio(row.published, row.bare),
    row.published.p50Ms,
    row.published.p99Ms,
    row.publishedOneFile.requestsPerSecond,
    row.onDemand.requestsPerSecond,
    ratio(row.onDemand, row.bare),
    row.onDemand.p99Ms,
    row.bare.requestsPerSecond,
    row.bare.p50Ms,
    row.bare.p99Ms,
    row.published.errors + row.published.non2xx + row.onDemand.errors + row.onDemand.non2xx,
  ].join(" | "),
);
const report = [
  `# Artifacts bench ${new Date().toISOString()}`,
  "",
  `${machineLine()}, server and bare node:http with ${processes} process(es) each, ${connections} connections, ${durationSeconds} s per figure, autocannon over loopback, ${abIds.length} merchants' files in rotation.`,
  "Published files: the server answering from DATA_DIR/publish (src/publish/fast-path.ts: one store-revision read a request). Through the route: the same server with PUBLISH_FAST_PATH=false (the document routes: guard and rate limit, each document rendered on its first request and kept until the store moves). Bare: node:http answering the first merchant's file bytes.",
  "",
  header,
  `|${"---|".repeat(14)}`,
  ...lines.map((line) => `| ${line} |`),
  "",
].join("\n");
writeReport("artifacts", report, rows);
if (!values.store) rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
