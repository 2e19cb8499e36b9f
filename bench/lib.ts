import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import type { App } from "../src/app.ts";
import { childPids, freePort } from "../test/helpers/spawn-start.ts";

export interface LoadFigure {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

/** Drives one URL (or a rotating list of paths) with a fixed number of connections for a while. */
export async function load(
  url: string,
  paths: string[],
  options: { connections: number; durationSeconds: number },
): Promise<LoadFigure> {
  let next = 0;
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.durationSeconds,
    requests: [
      {
        setupRequest: (request) => {
          request.path = paths[next++ % paths.length] ?? "/";
          return request;
        },
      },
    ],
  });
  return loadFigureOf(result);
}

/** What a bench reports of an autocannon run: throughput, latency and what failed. */
export function loadFigureOf(result: autocannon.Result): LoadFigure {
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

/** Bare node:http serving fixed bytes: the ceiling this machine allows for the same answer. */
export async function startBareServer(body: Buffer, contentType: string): Promise<{ url: string; close(): void }> {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { "content-type": contentType, "content-length": body.length });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => server.close() };
}

/**
 * The same, with `processes` processes sharing the port (node:cluster), as the server runs: a
 * server with one process per core is compared with a bare server with one process per core.
 */
export async function startBareCluster(
  body: Buffer,
  contentType: string,
  processes: number,
): Promise<{ url: string; close(): void }> {
  if (processes <= 1) return startBareServer(body, contentType);
  const dir = mkdtempSync(path.join(os.tmpdir(), "abeille-bare-"));
  const file = path.join(dir, "body");
  writeFileSync(file, body);
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL("./bare-cluster.ts", import.meta.url)), String(port), String(processes), contentType, file],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("ready")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`bare cluster exited with code ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      child.kill("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The server's memory: each process of it (a cluster primary's workers, or the one process). */
export function serverMemory(pid: number): {
  processes: { pid: number; rss: number; peak: number }[];
  totalRss: number;
} {
  const workers = childPids(pid);
  const pids = workers.length > 0 ? workers : [pid];
  const processes = pids.map((each) => ({ pid: each, ...rssMegabytes(each) }));
  return { processes, totalRss: processes.reduce((sum, each) => sum + each.rss, 0) };
}

export function rssMegabytes(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const read = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  return { rss: Math.round(read("VmRSS")), peak: Math.round(read("VmHWM")) };
}

export async function waitForHealth(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with code ${child.exitCode}`);
    try {
      const response = await fetch(`${url}/api/health`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`server at ${url} did not become healthy`);
}

export function spawnNode(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
}

export function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

/** Times a synchronous or async function in-process: the domain's own cost without HTTP. */
export async function timeInProcess(
  run: (iteration: number) => unknown,
  iterations: number,
): Promise<{ opsPerSecond: number; p50Ms: number; p99Ms: number }> {
  const samples: number[] = [];
  const started = performance.now();
  for (let iteration = 0; iteration < iterations; iteration++) {
    const before = performance.now();
    await run(iteration);
    samples.push(performance.now() - before);
  }
  const elapsed = performance.now() - started;
  samples.sort((a, b) => a - b);
  return {
    opsPerSecond: Math.round((iterations / elapsed) * 1000),
    p50Ms: round(percentile(samples, 0.5)),
    p99Ms: round(percentile(samples, 0.99)),
  };
}

export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

/** The line every report opens with: Node, cores and the machine's load when the figures were taken. */
export function machineLine(): string {
  const load = os
    .loadavg()
    .map((value) => round(value, 1))
    .join(", ");
  return `Node ${process.version}, ${os.availableParallelism()} cores (load average ${load} at the end)`;
}

/** A markdown table: the header's cells, then one row per line. */
export function markdownTable(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string[] {
  return [
    `| ${header.join(" | ")} |`,
    `|${"---|".repeat(header.length)}`,
    ...rows.map((row) => `| ${row.join(" | ")} |`),
  ];
}

/** Writes bench/results/<name>-latest.md and .json and prints the report. */
export function writeReport(name: string, report: string, data: unknown): void {
  const results = fileURLToPath(new URL("./results/", import.meta.url));
  mkdirSync(results, { recursive: true });
  writeFileSync(path.join(results, `${name}-latest.md`), report);
  writeFileSync(path.join(results, `${name}-latest.json`), `${JSON.stringify(data, null, 2)}\n`);
  process.stdout.write(`\n${report}`);
}

/** The options of the benches that load a server: registry sizes, seconds per figure, connections, processes. */
export function serverBenchOptions(extra: Record<string, { type: "string"; default: string }> = {}) {
  const { values } = parseArgs({
    options: {
      sizes: { type: "string", default: "10000,100000" },
      duration: { type: "string", default: "10" },
      connections: { type: "string", default: "10" },
      processes: { type: "string", default: String(os.availableParallelism()) },
      ...extra,
    },
  });
  return {
    values: values as Record<string, string>,
    processes: Number(values.processes),
    sizes: String(values.sizes).split(",").map(Number),
    durationSeconds: Number(values.duration),
    connections: Number(values.connections),
  };
}

/**
 * A demo registry of `size` merchants seeded by `jobs/seed.ts` in a new temporary DATA_DIR, and
 * the environment that serves it for a bench: no scheduled refresh, a quota no load reaches.
 * With BENCH_SEED_CACHE set to a folder, a registry of that size seeded there before is copied
 * instead (seeding 100,000 merchants takes minutes; the seed is deterministic, so the copy is the
 * same registry); the first bench of a size seeds it there.
 */
export function seedBenchRegistry(
  size: number,
  label: string,
): { dataDir: string; env: Record<string, string>; copied: boolean } {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `abeille-${label}-${size}-`));
  const env = {
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    DEMO_SEED_COUNT: "0",
    RATE_LIMIT_ANON_HOURLY: "1000000000",
    REFRESH_ON_START: "false",
    REFRESH_CRON: "off",
  };
  process.stdout.write(`\n== ${size} merchants ==\n`);
  const seed = (into: string) =>
    execFileSync(process.execPath, ["jobs/seed.ts", "--count", String(size)], {
      cwd: root,
      env: { ...process.env, ...env, DATA_DIR: into },
      stdio: ["ignore", "inherit", "inherit"],
    });
  const cache = process.env.BENCH_SEED_CACHE;
  if (!cache) {
    seed(dataDir);
    return { dataDir, env, copied: false };
  }
  const cached = path.join(cache, String(size));
  const copied = existsSync(path.join(cached, "abeille.db"));
  if (!copied) {
    const filling = `${cached}.filling-${process.pid}`;
    rmSync(filling, { recursive: true, force: true });
    mkdirSync(filling, { recursive: true });
    seed(filling);
    renameSync(filling, cached);
  } else process.stdout.write(`copied from the seed cache ${cached}\n`);
  cpSync(cached, dataDir, { recursive: true });
  return { dataDir, env, copied };
}

/**
 * The search result cards a server's owner keeps in the store, built before the servers start
 * (as a server that has run has them): otherwise its first seconds would build them under the load.
 */
export async function keepSearchCards(app: App, size: number): Promise<string> {
  const started = performance.now();
  const kept = await app.cardKeeper.syncOnce();
  if (kept.state !== "ready") throw new Error(`keeping the search cards failed: ${kept.lastError}`);
  const note = `search cards of ${size} merchants kept in ${round((performance.now() - started) / 1000, 1)} s`;
  process.stdout.write(`${note}\n`);
  return note;
}

/** The server under load on these paths, then bare node:http serving its first answer's bytes with as many processes. */
export async function serverBesideBare(
  url: string,
  paths: string[],
  options: { processes: number; connections: number; durationSeconds: number },
): Promise<{ server: LoadFigure; bare: LoadFigure; body: Buffer }> {
  const sample = await fetch(`${url}${paths[0]}`);
  const body = Buffer.from(await sample.arrayBuffer());
  const bare = await startBareCluster(
    body,
    sample.headers.get("content-type") ?? "application/json",
    options.processes,
  );
  await load(url, paths, { connections: options.connections, durationSeconds: 1 }); // warm-up
  const server = await load(url, paths, options);
  const bareFigure = await load(bare.url, ["/"], options);
  bare.close();
  return { server, bare: bareFigure, body };
}
