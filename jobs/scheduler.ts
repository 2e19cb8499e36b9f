/**
 * The server's schedule for the refresh job: node-cron runs `jobs/refresh.ts` in a child process
 * (REFRESH_CRON, default "17 3 * * *"; "off" disables it), never two at once. The child keeps the
 * server's event loop free while 100,000 merchants render, and its memory goes when it exits.
 * When the publish folder was never filled (a fresh DATA_DIR), a first run starts shortly after
 * start (REFRESH_ON_START, default true).
 *
 *   const scheduler = startScheduler(config);   // in jobs/start.ts, after the server listens
 *   await scheduler.stop();                     // on shutdown
 */
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createTask, type ScheduledTask } from "node-cron";
import type { Config } from "../src/config/config.ts";
import { logger } from "../src/logging.ts";
import { STATE_DIRNAME } from "../src/publish/publish-folder.ts";
import type { RefreshSummary } from "../src/publish/publisher.ts";
import { loadPublishSettings, type PublishSettings } from "../src/publish/settings.ts";
import { PACK_INDEX_DATABASE } from "../src/store/pack-index.ts";
import { INDEX_DATABASE } from "../src/store/publish-index.ts";
import { spawnJob } from "./child-job.ts";
import { EXIT_BUSY } from "./cli.ts";

const refreshScript = fileURLToPath(new URL("./refresh.ts", import.meta.url));
const FIRST_RUN_DELAY_MS = 2000;

export interface Scheduler {
  settings: PublishSettings;
  /** Runs a refresh now (or joins the one running) and answers its summary. */
  runNow(): Promise<RefreshSummary>;
  /** The next scheduled run, or null when the schedule is off. */
  nextRun(): Date | null;
  stop(): Promise<void>;
}

/** The scheduled run found another refresh publishing (`npm run refresh` exit status 3): skipped, not failed. */
export class RefreshSkipped extends Error {
  override name = "RefreshSkipped";
}

export function startScheduler(config: Pick<Config, "dataDir">, options: { env?: NodeJS.ProcessEnv } = {}): Scheduler {
  const env = options.env ?? process.env;
  const settings = loadPublishSettings(config, env);
  let running: Promise<RefreshSummary> | null = null;
  let child: ChildProcess | null = null;
  let stopped = false;

  const runNow = (): Promise<RefreshSummary> => {
    if (running) return running;
    const started = Date.now();
    const job = spawnJob(refreshScript, ["--json"], env);
    child = job.child;
    running = job.exited
      .then(({ code, signal, stdout }) => {
        child = null;
        const line = stdout.trim().split("\n").pop() ?? "";
        if (code === 0 && line.startsWith("{")) return JSON.parse(line) as RefreshSummary;
        if (code === EXIT_BUSY) {
          // Another refresh (a manual one, or another machine's) is publishing: this one is skipped.
          throw new RefreshSkipped("refresh skipped: another refresh is running (its line above says which)");
        }
        throw new Error(`refresh exited with ${signal ?? `code ${code}`} after ${Date.now() - started} ms`);
      })
      .then((summary) => {
        logger.info("scheduled refresh finished", { ...summary });
        return summary;
      })
      .catch((error: unknown) => {
        if (error instanceof RefreshSkipped) logger.warn("scheduled refresh skipped", { error: error.message });
        else
          logger.error("scheduled refresh failed", { error: error instanceof Error ? error.message : String(error) });
        throw error;
      })
      .finally(() => {
        running = null;
      });
    return running;
  };

  const runQuietly = () => {
    if (stopped) return;
    runNow().catch(() => undefined);
  };

  let task: ScheduledTask | null = null;
  if (settings.refreshCron) {
    task = createTask(settings.refreshCron, runQuietly, {
      name: "abeille-refresh",
      noOverlap: true,
      ...(settings.refreshTimezone ? { timezone: settings.refreshTimezone } : {}),
    });
    void task.start();
  }
  let firstRun: NodeJS.Timeout | null = null;
  // Never published here: no job index (always so on PostgreSQL, whose index is shared), or no
  // packs yet (the first start after the upgrade to packs, issue 35).
  const stateDir = path.join(settings.publishDir, STATE_DIRNAME);
  const neverPublished =
    !existsSync(path.join(stateDir, INDEX_DATABASE)) || !existsSync(path.join(stateDir, PACK_INDEX_DATABASE));
  if (settings.refreshOnStart && neverPublished) {
    firstRun = setTimeout(runQuietly, FIRST_RUN_DELAY_MS);
    firstRun.unref();
  }
  logger.info("refresh scheduled", {
    cron: settings.refreshCron ?? "off",
    publish_dir: settings.publishDir,
    first_run: firstRun !== null,
  });

  return {
    settings,
    runNow,
    nextRun: () => (task ? (task.getNextRun() ?? null) : null),
    async stop() {
      stopped = true;
      if (firstRun) clearTimeout(firstRun);
      if (task) await task.destroy();
      const current = child as ChildProcess | null;
      if (current && current.exitCode === null) {
        current.kill("SIGTERM");
        await (running ?? Promise.resolve()).catch(() => undefined);
      }
    },
  };
}
