/**
 * The server's daily imports (issue 34): when SIRENE_API_KEY is set, node-cron runs
 * `npm run import -- sirene-daily` (what INSEE processed since the last run), then
 * `npm run import -- bodacc-daily` (the BODACC announcements since the last day done), each in a
 * child process of its own, on SIRENE_DAILY_CRON (default "40 6 * * *", Europe/Paris: INSEE
 * publishes a day's changes overnight; "off" disables it), never two runs at once. Without the key
 * nothing is scheduled. Run once across the deployment (jobs/background.ts).
 *
 *   const daily = startDailyImports(config);   // in the process that owns the background work
 *   await daily.stop();                        // on shutdown
 */
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createTask, type ScheduledTask } from "node-cron";
import type { Config } from "../src/config/config.ts";
import { INSEE_TIME_ZONE } from "../src/import/sirene/daily.ts";
import { logger } from "../src/logging.ts";
import { spawnJob } from "./child-job.ts";

const importScript = fileURLToPath(new URL("./import.ts", import.meta.url));

/** One import's run: its exit status, and its JSON report when it wrote one. */
export interface DailyImportRun {
  code: number | null;
  report: unknown;
}

export interface DailyImports {
  /** Runs both imports now (or joins the run under way); null when the daily imports are off. */
  runNow: (() => Promise<{ sirene: DailyImportRun; bodacc: DailyImportRun }>) | null;
  /** The next scheduled run, or null when off. */
  nextRun(): Date | null;
  stop(): Promise<void>;
}

export function startDailyImports(
  config: Pick<Config, "sireneApi">,
  options: { env?: NodeJS.ProcessEnv } = {},
): DailyImports {
  const env = options.env ?? process.env;
  const cron = config.sireneApi.dailyCron;
  if (!config.sireneApi.key || !cron) {
    logger.info("daily imports off", { reason: config.sireneApi.key ? "SIRENE_DAILY_CRON=off" : "no SIRENE_API_KEY" });
    return { runNow: null, nextRun: () => null, stop: async () => undefined };
  }
  let running: Promise<{ sirene: DailyImportRun; bodacc: DailyImportRun }> | null = null;
  let child: ChildProcess | null = null;
  let stopped = false;

  const importJob = async (source: string): Promise<DailyImportRun> => {
    const job = spawnJob(importScript, [source, "--json"], env);
    child = job.child;
    const { code, stdout } = await job.exited;
    child = null;
    try {
      return { code, report: JSON.parse(stdout) };
    } catch {
      // A run that stopped said why on stderr (the server's log).
      return { code, report: null };
    }
  };

  const runNow = () => {
    running ??= (async () => {
      // BODACC follows SIRENE whatever became of it: the two sources do not depend on each other.
      const sirene = await importJob("sirene-daily");
      const bodacc = stopped ? { code: null, report: null } : await importJob("bodacc-daily");
      const level = sirene.code === 0 && bodacc.code === 0 ? "info" : "warn";
      logger[level]("daily imports finished", { sirene_daily: sirene.code, bodacc_daily: bodacc.code });
      return { sirene, bodacc };
    })().finally(() => {
      running = null;
    });
    return running;
  };

  const task: ScheduledTask = createTask(
    cron,
    () => {
      if (!stopped) runNow().catch(() => undefined);
    },
    { name: "abeille-daily-imports", noOverlap: true, timezone: INSEE_TIME_ZONE },
  );
  void task.start();
  logger.info("daily imports scheduled", { cron, timezone: INSEE_TIME_ZONE });
  return {
    runNow,
    nextRun: () => task.getNextRun() ?? null,
    async stop() {
      stopped = true;
      await task.destroy();
      const current = child as ChildProcess | null;
      if (current && current.exitCode === null) {
        // The import keeps where it got to after each page: the next run takes up there.
        current.kill("SIGTERM");
        await (running ?? Promise.resolve()).catch(() => undefined);
      }
    },
  };
}
