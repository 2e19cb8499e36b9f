/**
 * `npm test` on a machine without Debian's chromium and redis-server (which only .ci/run
 * installs): the suites that need them fail, each saying once what to install, and nothing else
 * (no TypeError from a clean-up that found nothing to stop). Runs those suites in a vitest of its
 * own with a PATH that holds neither program.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const exec = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");

describe("npm test without chromium and redis-server", () => {
  it("fails the suites that need them, each saying once which package to install", async () => {
    const suites = ["test/integration/rate-limit-redis.test.ts", "test/e2e/microsite-browser.test.ts"];
    const run = await exec(process.execPath, [path.join(root, "node_modules/vitest/vitest.mjs"), "run", ...suites], {
      cwd: root,
      env: { HOME: process.env.HOME ?? "/tmp", PATH: path.join(root, "no-such-bin"), NO_COLOR: "1", CI: "1" },
      maxBuffer: 16 * 1024 * 1024,
    }).then(
      ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
      (failure: { code: number; stdout: string; stderr: string }) => ({
        code: failure.code,
        output: failure.stdout + failure.stderr,
      }),
    );
    expect(run.code).toBe(1);
    const said = (text: string) => run.output.split(text).length - 1;
    expect(
      said(
        "redis-server is missing: these tests need Debian's redis-server (sudo apt-get install redis-server; .ci/run installs it)",
      ),
    ).toBe(1);
    expect(
      said(
        "chromium is missing: these tests need Debian's chromium (sudo apt-get install chromium; .ci/run installs it)",
      ),
    ).toBe(1);
    expect(run.output).not.toMatch(/TypeError|Cannot read properties/);
    expect(run.output).toMatch(/Test Files {2}2 failed \(2\)/);
  }, 120_000);
});
