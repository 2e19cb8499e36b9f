import path from "node:path";
import { z } from "zod";

const booleanFlag = z
  .enum(["true", "false", "1", "0", "yes", "no", ""])
  .optional()
  .transform((value) => value === "true" || value === "1" || value === "yes");

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** Every setting the service reads from the environment, parsed once. */
export const configSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(4321),
    HOST: z.string().min(1).default("127.0.0.1"),
    BASE_URL: z.url().optional(),
    DATA_DIR: z.string().min(1).default("./data/runtime"),
    DEMO_SEED_COUNT: z.coerce.number().int().min(0).max(1_000_000).default(2000),
    DEMO_SEED: z.coerce.number().int().default(20261122),
    PUBLIC_ORDER_RAIL_ENABLED: booleanFlag,
    AGENT_ACCESS_SUSPENDED: booleanFlag,
    SEARCH_EMBEDDER_URL: z.url().optional(),
    RATE_LIMIT_ANON_HOURLY: positiveInt(600),
    RATE_LIMIT_L1_HOURLY: positiveInt(2000),
    RATE_LIMIT_L2_HOURLY: positiveInt(5000),
    RATE_LIMIT_L3_HOURLY: positiveInt(20000),
    RATE_LIMIT_L4_HOURLY: positiveInt(50000),
    LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  })
  .transform((env) => {
    const dataDir = path.resolve(env.DATA_DIR);
    const baseUrl = (env.BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, "");
    return {
      port: env.PORT,
      host: env.HOST,
      baseUrl,
      dataDir,
      databaseFile: path.join(dataDir, "abeille.db"),
      demoSeedCount: env.DEMO_SEED_COUNT,
      demoSeed: env.DEMO_SEED,
      publicOrderRailEnabled: env.PUBLIC_ORDER_RAIL_ENABLED,
      agentAccessSuspended: env.AGENT_ACCESS_SUSPENDED,
      searchEmbedderUrl: env.SEARCH_EMBEDDER_URL ?? null,
      rateLimitHourly: {
        anonymous: env.RATE_LIMIT_ANON_HOURLY,
        level1: env.RATE_LIMIT_L1_HOURLY,
        level2: env.RATE_LIMIT_L2_HOURLY,
        level3: env.RATE_LIMIT_L3_HOURLY,
        level4: env.RATE_LIMIT_L4_HOURLY,
      },
      logLevel: env.LOG_LEVEL,
    };
  });

export type Config = z.output<typeof configSchema>;

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Parses the environment; a wrong setting stops start-up with a message naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join("; ")}`);
  }
  return parsed.data;
}
