/**
 * A process on the embedded SQLite store never loads the PostgreSQL driver (src/store/postgres/
 * driver.ts): the app is created in a child process of its own (a module, once loaded, stays in
 * the test worker) and reports the CommonJS modules it loaded; on DATABASE_URL the same process
 * loads the driver when it opens its pool.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-driver-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const REPORT = `
import { createRequire } from "node:module";
const { createApp } = await import(${JSON.stringify(path.join(root, "src/app.ts"))});
const { loadConfig } = await import(${JSON.stringify(path.join(root, "src/config/config.ts"))});
const app = createApp(loadConfig());
const loaded = Object.keys(createRequire(import.meta.url).cache);
console.log(JSON.stringify({
  engine: app.store.engine,
  pg: loaded.some((file) => file.includes("/node_modules/pg/")),
}));
process.exit(0);
`;

function loadedBy(env: Record<string, string>): { engine: string; pg: boolean } {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", REPORT], {
    cwd: root,
    // vitest sets BASE_URL to "/" (Vite's): the app needs an absolute one.
    env: { ...process.env, DATA_DIR: dataDir, BASE_URL: "http://localhost:4321", LOG_LEVEL: "error", ...env },
    encoding: "utf8",
  });
  return JSON.parse(out.trim().split("\n").at(-1) as string);
}

describe("the PostgreSQL driver", () => {
  it("is not loaded by a process on the embedded store", () => {
    expect(loadedBy({})).toEqual({ engine: "sqlite", pg: false });
  });

  it("is loaded when the store is on PostgreSQL (opening the pool connects lazily)", () => {
    // No server answers on this port: opening the pool does not connect yet.
    expect(loadedBy({ DATABASE_URL: "postgres://abeille@127.0.0.1:1/abeille" })).toEqual({
      engine: "postgres",
      pg: true,
    });
  });
});
