import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RefreshSkipped, startScheduler } from "../../jobs/scheduler.ts";
import { loadConfig } from "../../src/config/config.ts";
import { PublishFolder } from "../../src/publish/publish-folder.ts";
import { loadPublishSettings } from "../../src/publish/settings.ts";
import { runJob } from "../helpers/run-job.ts";
import { startTestServer, TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ count: 60 });
});
afterAll(async () => {
  await server?.close();
});

describe("the refresh schedule", () => {
  it("runs the refresh job in a child process on demand, one run at a time, and knows its next run", async () => {
    const scheduler = startScheduler(loadConfig(), {
      env: { ...process.env, REFRESH_CRON: "*/30 * * * *", REFRESH_ON_START: "false" },
    });
    try {
      const next = scheduler.nextRun();
      expect(next).not.toBeNull();
      expect((next?.getTime() ?? 0) - Date.now()).toBeLessThanOrEqual(30 * 60_000);
      const first = scheduler.runNow();
      expect(scheduler.runNow()).toBe(first);
      const summary = await first;
      expect(summary.merchants).toBeGreaterThan(0);
      expect(summary.rendered).toBe(summary.merchants);
      expect(existsSync(path.join(server.dataDir, "publish", ".abeille", "packs.db"))).toBe(true);
      const again = await scheduler.runNow();
      expect(again.rendered).toBe(0);
    } finally {
      await scheduler.stop();
    }
  }, 120_000);

  it("says a refresh is busy in one line (exit status 3) while another holds the folder, and skips a scheduled run", async () => {
    const config = loadConfig();
    // This process holds the folder's lock, as a run under way would.
    const release = new PublishFolder(loadPublishSettings(config).publishDir).lockForRun();
    try {
      const refused = await runJob(["jobs/refresh.ts"], { dataDir: server.dataDir, baseUrl: TEST_BASE_URL });
      expect(refused).toEqual({
        code: 3,
        signal: null,
        stdout: "",
        stderr: `refresh: another refresh (pid ${process.pid}) is running on this publish folder; run it again once it ends\n`,
      });
      const scheduler = startScheduler(config, {
        env: { ...process.env, REFRESH_CRON: "off", REFRESH_ON_START: "false" },
      });
      try {
        await expect(scheduler.runNow()).rejects.toBeInstanceOf(RefreshSkipped);
      } finally {
        await scheduler.stop();
      }
    } finally {
      release();
    }
    expect(
      (await runJob(["jobs/refresh.ts", "--quiet"], { dataDir: server.dataDir, baseUrl: TEST_BASE_URL })).code,
    ).toBe(0);
  }, 120_000);

  it("can be switched off", async () => {
    const scheduler = startScheduler(loadConfig(), {
      env: { ...process.env, REFRESH_CRON: "off", REFRESH_ON_START: "false" },
    });
    expect(scheduler.nextRun()).toBeNull();
    await scheduler.stop();
  });
});
