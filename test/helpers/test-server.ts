/**
 * Starts the built server in this test process on a free port, over a fresh DATA_DIR seeded with
 * a small deterministic demo registry. Every integration test talks to it through real HTTP.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startServer } from "../../jobs/serve.ts";
import { setLogLevel } from "../../src/logging.ts";
import { seedDemoRegistry } from "../../src/seed/seed-demo.ts";
import { openDatabase } from "../../src/store/db.ts";

export const TEST_BASE_URL = "http://abeille.test";
export const TEST_NOW = new Date("2026-11-01T10:00:00.000Z");

export interface DemoRoster {
  /** The demo's clock: every import and lifecycle step ran at it. */
  generated_at: string;
  cases: Record<string, string[]>;
  geo_queries: { q: string; lat: number; lng: number; radius: number; tags: string[] }[];
}

export interface TestServer {
  url: string;
  dataDir: string;
  roster: DemoRoster;
  get(pathAndQuery: string, init?: RequestInit): Promise<Response>;
  getJson(pathAndQuery: string, init?: RequestInit): Promise<{ status: number; headers: Headers; body: JsonObject }>;
  close(): Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON.
export type JsonObject = Record<string, any>;

export async function startTestServer(
  options: { count?: number; env?: Record<string, string>; port?: number } = {},
): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-test-"));
  const db = openDatabase(path.join(dataDir, "abeille.db"));
  await seedDemoRegistry(db, { count: options.count ?? 300, seed: 7, now: TEST_NOW, dataDir });
  db.$client.close();
  Object.assign(process.env, {
    DATA_DIR: dataDir,
    BASE_URL: TEST_BASE_URL,
    LOG_LEVEL: "warn",
    // Every test registers its agents from 127.0.0.1: the per-address bounds on registration
    // (test/integration/limits-rate.test.ts checks them) would otherwise tie the files together.
    AGENT_REGISTRATIONS_PER_ADDRESS_DAILY: "1000",
    RATE_LIMIT_PER_REGISTRANT_HOURLY: "100000000",
    ...(options.env ?? {}),
  });
  // The logger read LOG_LEVEL when this file's imports loaded it, before the line above: the
  // server in this process logs its warnings and errors, not a line per request.
  const level = process.env.LOG_LEVEL;
  setLogLevel(level === "debug" || level === "info" || level === "error" || level === "silent" ? level : "warn");
  // A port chosen ahead lets BASE_URL be the server's own address (a real browser follows it).
  const running = await startServer({ port: options.port ?? 0, host: "127.0.0.1" });
  const roster = JSON.parse(readFileSync(path.join(dataDir, "demo-roster.json"), "utf8")) as DemoRoster;
  const get = (pathAndQuery: string, init?: RequestInit) => fetch(`${running.url}${pathAndQuery}`, init);
  return {
    url: running.url,
    dataDir,
    roster,
    get,
    async getJson(pathAndQuery, init) {
      const response = await get(pathAndQuery, init);
      const text = await response.text();
      let body: JsonObject;
      try {
        body = JSON.parse(text) as JsonObject;
      } catch {
        throw new Error(`${pathAndQuery} answered ${response.status} with non-JSON: ${text.slice(0, 200)}`);
      }
      return { status: response.status, headers: response.headers, body };
    },
    async close() {
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
