import path from "node:path";
import { validate } from "node-cron";
import { z } from "zod";

/**
 * Settings of the publication job and the published-file fast path, read from the environment
 * with defaults. (They belong in src/config/config.ts; until they move there, this is their one parser.)
 *
 * - PUBLISH_DIR: the publish folder (default DATA_DIR/publish).
 * - REFRESH_CRON: when the server runs the refresh (node-cron syntax, default "17 3 * * *";
 *   "off" disables the schedule). REFRESH_TIMEZONE: the schedule's time zone (default the server's).
 * - REFRESH_ON_START: run a refresh shortly after start when the folder was never published (default true).
 * - SNAPSHOT_RENEW_MARGIN_SECONDS: a snapshot manifest is re-signed when it would expire before
 *   the next scheduled run plus this margin (default 600).
 * - PUBLISH_FAST_PATH: serve fresh published files before Astro (default true).
 * - REFRESH_WORKERS: worker threads rendering in parallel (default: the number of CPUs, at most 4; 1 = in-process).
 */
export interface PublishSettings {
  publishDir: string;
  refreshCron: string | null;
  refreshTimezone: string | null;
  refreshOnStart: boolean;
  snapshotRenewMarginSeconds: number;
  fastPath: boolean;
  refreshWorkers: number | null;
}

const flag = (fallback: boolean) =>
  z
    .enum(["true", "false", "1", "0", "yes", "no", ""])
    .optional()
    .transform((value) =>
      value === undefined || value === "" ? fallback : value === "true" || value === "1" || value === "yes",
    );

const settingsSchema = z.object({
  PUBLISH_DIR: z.string().min(1).optional(),
  REFRESH_CRON: z
    .string()
    .default("17 3 * * *")
    .refine((value) => value === "off" || validate(value), "must be a cron expression (node-cron syntax) or off"),
  REFRESH_TIMEZONE: z.string().min(1).optional(),
  REFRESH_ON_START: flag(true),
  SNAPSHOT_RENEW_MARGIN_SECONDS: z.coerce.number().int().min(0).max(86_400).default(600),
  PUBLISH_FAST_PATH: flag(true),
  REFRESH_WORKERS: z.coerce.number().int().min(1).max(32).optional(),
});

export function loadPublishSettings(
  config: { dataDir: string },
  env: Record<string, string | undefined> = process.env,
): PublishSettings {
  const parsed = settingsSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`Invalid publication settings: ${problems.join("; ")}`);
  }
  const value = parsed.data;
  return {
    publishDir: path.resolve(value.PUBLISH_DIR ?? path.join(config.dataDir, "publish")),
    refreshCron: value.REFRESH_CRON === "off" ? null : value.REFRESH_CRON,
    refreshTimezone: value.REFRESH_TIMEZONE ?? null,
    refreshOnStart: value.REFRESH_ON_START,
    snapshotRenewMarginSeconds: value.SNAPSHOT_RENEW_MARGIN_SECONDS,
    fastPath: value.PUBLISH_FAST_PATH,
    refreshWorkers: value.REFRESH_WORKERS ?? null,
  };
}
