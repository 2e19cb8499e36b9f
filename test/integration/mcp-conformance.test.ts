/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, a pinned devDependency:
 * nothing is downloaded at run time) against the built server over HTTP: every server scenario
 * that applies to a stateless, tools-only server, for the 2025 revisions (initialize) and
 * 2026-07-28 (server/discover, per-request _meta and headers). Checks that need the suite's
 * diagnostic tools or prompts/resources are listed, with the reason, in
 * mcp-conformance-baseline.yaml; the suite itself fails on any other failure and on a listed
 * check that starts passing.
 *
 * Not run: the scenarios that call tools only the suite's reference server has (tools-call-*,
 * json-schema-2020-12, elicitation-*, input-required-*, tasks-*), prompts-*, resources-*,
 * completion-*, logging-*, the SSE ones (the endpoint answers JSON), and
 * http-custom-header-server-validation (no tool declares x-mcp-header parameters).
 */
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

const require = createRequire(import.meta.url);
const CLI = path.join(path.dirname(require.resolve("@modelcontextprotocol/conformance/package.json")), "dist/index.js");
const BASELINE = path.join(import.meta.dirname, "mcp-conformance-baseline.yaml");

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ count: 40 });
});
afterAll(async () => {
  await server?.close();
});

interface Run {
  code: number;
  output: string;
  passed: number;
  total: number;
}

function runScenario(scenario: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, "server", "--url", `${server.url}/api/mcp`, "--scenario", scenario, "--expected-failures", BASELINE],
      { timeout: 120_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" } },
      (error, stdout, stderr) => {
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the suite colours its output.
        const output = `${stdout}${stderr}`.replace(/\u001b\[[0-9;]*m/g, "");
        const tally = /Passed: (\d+)\/(\d+)/.exec(output);
        resolve({
          code: error ? (typeof error.code === "number" ? error.code : 1) : 0,
          output,
          passed: Number(tally?.[1] ?? -1),
          total: Number(tally?.[2] ?? -1),
        });
      },
    );
  });
}

function failures(output: string): string[] {
  return output.split("\n").filter((line) => /\bFAILURE\b/.test(line));
}

/** Scenario, then the checks that pass out of those it runs (the pinned suite's own count). */
const SCENARIOS: [string, number, number][] = [
  ["server-initialize", 2, 2],
  ["server-session-lifecycle", 0, 0],
  ["ping", 2, 2],
  ["tools-list", 3, 3],
  ["dns-rebinding-protection", 2, 2],
  ["http-header-validation", 14, 14],
  ["caching", 4, 7],
  ["server-stateless", 24, 28],
];

describe("the MCP conformance suite's server scenarios for a tools-only server", () => {
  it.each(SCENARIOS)("%s passes (baseline failures only)", async (scenario, passed, total) => {
    const run = await runScenario(scenario);
    expect(run.code, `${scenario} failed:\n${failures(run.output).join("\n")}\n${run.output.slice(-3000)}`).toBe(0);
    expect({ passed: run.passed, total: run.total }).toEqual({ passed, total });
  });
});
