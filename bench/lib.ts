import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import autocannon from "autocannon";

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
