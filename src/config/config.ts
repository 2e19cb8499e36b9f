import os from "node:os";
import path from "node:path";
import { validate as validateCron } from "node-cron";
import { z } from "zod";
import { DEFAULT_MINIMUM_ACR, MINIMUM_ACR_CHOICES } from "../domain/merchant-space/assurance.ts";
import { type EmbedderSetting, parseEmbedderSetting } from "../search/embedders/setting.ts";

const booleanFlag = z
  .enum(["true", "false", "1", "0", "yes", "no", ""])
  .optional()
  .transform((value) => value === "true" || value === "1" || value === "yes");

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const emptyToUndefined = (value: unknown) => (value === "" ? undefined : value);

const ADDRESS = z.email();

/** An RFC 5322 mailbox as people write one: `address` or `Display Name <address>`, on one line. */
export function isMailbox(value: string): boolean {
  if (/[\r\n]/.test(value)) return false;
  const named = /^\s*(?:"[^"]*"|[^<>"]*)\s*<([^<>\s]+)>\s*$/.exec(value);
  return ADDRESS.safeParse(named ? named[1] : value.trim()).success;
}
const optionalText = z.preprocess(emptyToUndefined, z.string().min(1).optional());
/** The address of an outside API, http or https, with its default. */
const httpUrl = (fallback: string) =>
  z.preprocess(
    emptyToUndefined,
    z
      .url()
      .refine((value) => /^https?:\/\//.test(value), "must start with http:// or https://")
      .default(fallback),
  );
const hostList = z.preprocess(
  (value) =>
    typeof value === "string"
      ? value
          .split(",")
          .map((item) => item.trim().toLowerCase())
          .filter(Boolean)
      : [],
  z.array(z.string().min(1).max(253)).max(100),
);

/** SMTP settings, or null: without them the outbox writes .eml files under DATA_DIR/outbox/. */
export type SmtpSettings =
  | { url: string }
  | { host: string; port: number; secure: boolean; user: string | null; pass: string | null };

function smtpSettings(env: {
  SMTP_URL?: string | undefined;
  SMTP_HOST?: string | undefined;
  SMTP_PORT?: number | undefined;
  SMTP_USER?: string | undefined;
  SMTP_PASS?: string | undefined;
  SMTP_SECURE: boolean;
}): SmtpSettings | null {
  if (env.SMTP_URL) return { url: env.SMTP_URL };
  if (!env.SMTP_HOST) return null;
  const port = env.SMTP_PORT ?? (env.SMTP_SECURE ? 465 : 587);
  return {
    host: env.SMTP_HOST,
    port,
    secure: env.SMTP_SECURE || port === 465,
    user: env.SMTP_USER ?? null,
    pass: env.SMTP_PASS ?? null,
  };
}

/**
 * An OpenID issuer the merchant space may trust: https, or plain http at a loopback address only
 * (a development or test provider on this machine; anywhere else the tokens would cross the
 * network in clear).
 */
export function isAcceptableIssuer(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol === "https:") return true;
  if (url.protocol !== "http:") return false;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

/** The sslmode values node-postgres reads from a connection URL. */
const SSL_MODES = new Set(["disable", "prefer", "require", "verify-ca", "verify-full", "no-verify"]);

/**
 * What is wrong with a DATABASE_URL, or null: a postgres:// or postgresql:// URL naming a host
 * (or a unix socket folder in `?host=`) and one database. The message never repeats the URL: it
 * holds the database password.
 */
export function databaseUrlProblem(value: string): string | null {
  const example = "e.g. postgres://abeille:password@127.0.0.1:5432/abeille";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `is not a URL: write it as ${example} (characters such as @ : / in the password percent-encoded)`;
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:")
    return `must start with postgres:// or postgresql:// (${example}); leave it unset to keep the embedded SQLite store in DATA_DIR`;
  if (!url.hostname && !url.searchParams.get("host"))
    return `names no host: put it after the // (${example}), or a unix socket folder in ?host=/var/run/postgresql`;
  const database = url.pathname.replace(/^\//, "");
  if (!database) return `names no database: add its name after the host and port (${example})`;
  if (database.includes("/")) return `names the database with a path: one name after the host and port (${example})`;
  const sslMode = url.searchParams.get("sslmode");
  if (sslMode !== null && !SSL_MODES.has(sslMode))
    return `has an unknown sslmode: use one of ${[...SSL_MODES].join(", ")}`;
  return null;
}

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
    // Semantic search on Meilisearch (docs/search.md): hashed, hashed:<dimensions> or model:<directory>.
    SEARCH_EMBEDDER: z.preprocess(
      emptyToUndefined,
      z
        .string()
        .transform((value, context): EmbedderSetting => {
          const parsed = parseEmbedderSetting(value);
          if ("error" in parsed) {
            context.addIssue({ code: "custom", message: parsed.error });
            return z.NEVER;
          }
          return parsed;
        })
        .optional(),
    ),
    // A query not embedded within this answers from the text search, flagged embedding_unavailable.
    SEARCH_EMBEDDER_TIMEOUT_MS: z.preprocess(
      emptyToUndefined,
      z.coerce.number().int().min(10).max(60_000).default(500),
    ),
    // The cosine similarity under which a vector neighbour is left out (default: the embedder's own).
    SEARCH_EMBEDDER_MIN_SIMILARITY: z.preprocess(emptyToUndefined, z.coerce.number().min(-1).max(1).optional()),
    // Replaced by SEARCH_EMBEDDER: the vectors are computed in this process, not by a service.
    SEARCH_EMBEDDER_URL: z.preprocess(
      emptyToUndefined,
      z
        .undefined({
          error: "is no longer read: set SEARCH_EMBEDDER (hashed, hashed:<dimensions> or model:<directory>)",
        })
        .optional(),
    ),
    // Search on Meilisearch (an official build in production) instead of the embedded index.
    MEILISEARCH_URL: z.preprocess(
      emptyToUndefined,
      z
        .url()
        .refine((value) => /^https?:\/\//.test(value), "must start with http:// or https://")
        .optional(),
    ),
    MEILISEARCH_API_KEY: optionalText,
    MEILISEARCH_INDEX: z.preprocess(
      emptyToUndefined,
      z
        .string()
        .regex(/^[A-Za-z0-9_-]{1,60}$/, "must be 1-60 letters, digits, - or _")
        .default("abeille_merchants"),
    ),
    // A Meilisearch search slower than this answers from the fallback (or 503).
    MEILISEARCH_TIMEOUT_MS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(10).max(60_000).default(300)),
    // embedded: answer from the embedded index, flagged retrieval_degraded, while Meilisearch is down; none: 503.
    SEARCH_FALLBACK: z.preprocess(emptyToUndefined, z.enum(["embedded", "none"]).default("embedded")),
    RATE_LIMIT_ANON_HOURLY: positiveInt(600),
    RATE_LIMIT_L1_HOURLY: positiveInt(2000),
    RATE_LIMIT_L2_HOURLY: positiveInt(5000),
    RATE_LIMIT_L3_HOURLY: positiveInt(20000),
    RATE_LIMIT_L4_HOURLY: positiveInt(50000),
    // Agents one client address may register per day.
    AGENT_REGISTRATIONS_PER_ADDRESS_DAILY: positiveInt(5),
    // One hourly budget shared by every auto-approved key one address registered (default: one level-2 key's).
    RATE_LIMIT_PER_REGISTRANT_HOURLY: z.coerce.number().int().positive().optional(),
    LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
    // Client addresses: 0 (default) uses the socket peer; N trusts N proxies appending to X-Forwarded-For.
    TRUST_PROXY: z.preprocess(
      (value) => (value === undefined || value === "" || value === "false" ? 0 : value === "true" ? 1 : value),
      z.coerce.number().int().min(0).max(10),
    ),
    // Orders (only used while PUBLIC_ORDER_RAIL_ENABLED=true): Stripe Checkout on the merchant's connected account.
    STRIPE_SECRET_KEY: z.preprocess((value) => (value === "" ? undefined : value), z.string().min(1).optional()),
    STRIPE_API_BASE: z.preprocess((value) => (value === "" ? undefined : value), z.url().optional()),
    // Mail: SMTP_URL (smtp:// or smtps://) or SMTP_HOST/PORT/USER/PASS/SECURE; neither -> .eml files in DATA_DIR/outbox.
    SMTP_URL: optionalText,
    SMTP_HOST: optionalText,
    SMTP_PORT: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(65535).optional()),
    SMTP_USER: optionalText,
    SMTP_PASS: optionalText,
    SMTP_SECURE: booleanFlag,
    // The sender of every email (leads to merchants, copies, platform messages): an address, or
    // "Name <address>"; checked here so a typo stops the start instead of every delivery.
    MAIL_FROM: z.preprocess(
      emptyToUndefined,
      z
        .string()
        .max(320)
        .refine(isMailbox, 'must be an email address or "Name <address>" (e.g. Abeille <no-reply@example.fr>)')
        .default("Abeille <no-reply@abeille.local>"),
    ),
    // The legal notice and the privacy notice (/mentions-legales, /confidentialite) name the operator.
    OPERATOR_NAME: z.preprocess(emptyToUndefined, z.string().max(200).default("L'exploitant de ce service Abeille")),
    OPERATOR_ADDRESS: optionalText,
    OPERATOR_PUBLICATION_DIRECTOR: optionalText,
    OPERATOR_HOST: optionalText,
    PLATFORM_TEAM_EMAIL: z.preprocess(emptyToUndefined, z.email().default("equipe@abeille.local")),
    LEAD_RETENTION_MONTHS: positiveInt(24),
    OUTBOX_POLL_MS: positiveInt(2000),
    OUTBOX_THREAD_IDLE_MS: positiveInt(60_000),
    // How long a claimed email is this worker's: past it, another worker (another machine) may send
    // it. Keep it well above the SMTP send timeout (30 s).
    OUTBOX_LEASE_MS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1_000).max(3_600_000).default(300_000)),
    // inprocess: the server process runs the outbox worker (jobs/start.ts); off: run `npm run outbox` apart.
    OUTBOX_WORKER: z.preprocess(emptyToUndefined, z.enum(["inprocess", "off"]).default("inprocess")),
    // Server processes sharing the port and the database (one per core by default); 1: no cluster.
    SERVER_PROCESSES: z.preprocess(
      emptyToUndefined,
      z.coerce.number().int().min(1).max(64).default(os.availableParallelism()),
    ),
    // Internal, set by `npm start`'s primary for the processes it forks: it checkpoints the WAL
    // itself, so that no server process stops serving while the checkpoint's fsyncs run.
    ABEILLE_WAL_CHECKPOINTS: z.preprocess(emptyToUndefined, z.enum(["automatic", "primary"]).default("automatic")),
    // The API Recherche d'entreprises, for `npm run verify` (the live SIRET check; never during a request).
    RECHERCHE_ENTREPRISES_URL: httpUrl("https://recherche-entreprises.api.gouv.fr"),
    RECHERCHE_ENTREPRISES_TIMEOUT_MS: z.preprocess(
      emptyToUndefined,
      z.coerce.number().int().min(100).max(120_000).default(10_000),
    ),
    // API Sirene 3.11 (INSEE), for `npm run import -- sirene-daily` and the server's daily run of it:
    // its address, and the integration key of portail-api.insee.fr (unset: no daily run).
    SIRENE_API_URL: httpUrl("https://api.insee.fr/api-sirene/3.11"),
    SIRENE_API_KEY: optionalText,
    SIRENE_API_TIMEOUT_MS: z.preprocess(
      emptyToUndefined,
      z.coerce.number().int().min(100).max(600_000).default(60_000),
    ),
    // BODACC's announcements (DILA's Opendatasoft dataset), for `npm run import -- bodacc-daily`.
    BODACC_API_URL: httpUrl(
      "https://bodacc-datadila.opendatasoft.com/api/explore/v2.1/catalog/datasets/annonces-commerciales",
    ),
    BODACC_API_TIMEOUT_MS: z.preprocess(
      emptyToUndefined,
      z.coerce.number().int().min(100).max(600_000).default(120_000),
    ),
    // When the server runs the daily import (SIRENE's changes, then BODACC's announcements) while
    // SIRENE_API_KEY is set: node-cron syntax, in Europe/Paris time (INSEE publishes a day's changes
    // overnight); "off" disables it.
    SIRENE_DAILY_CRON: z.preprocess(
      emptyToUndefined,
      z
        .string()
        .default("40 6 * * *")
        .refine(
          (value) => value === "off" || validateCron(value),
          "must be a cron expression (node-cron syntax) or off",
        ),
    ),
    // DNS-rebinding protection of the agent endpoints (/api/mcp, /api/a2a): Host names and Origins
    // accepted beside BASE_URL's own and the loopback ones, comma-separated ("*" accepts any).
    MCP_ALLOWED_HOSTS: hostList,
    MCP_ALLOWED_ORIGINS: hostList,
    // ProConnect sign-in to the merchant space (docs/merchant-space.md): the issuer (discovery from
    // its /.well-known/openid-configuration; https, or http at a loopback address for development
    // and tests) and the client registered there. All three or none: unset, /pro says so.
    PROCONNECT_ISSUER: z.preprocess(
      emptyToUndefined,
      z
        .url()
        .refine(isAcceptableIssuer, "must be an https URL (http only at a loopback address: localhost, 127.0.0.1, ::1)")
        .optional(),
    ),
    PROCONNECT_CLIENT_ID: optionalText,
    PROCONNECT_CLIENT_SECRET: optionalText,
    // The least assurance (the ID token's acr, data/proconnect-assurance.json) a ProConnect sign-in
    // must carry to open a session: eidas0 ... eidas3.
    PROCONNECT_MIN_ACR: z.preprocess(
      emptyToUndefined,
      z
        .string()
        .refine((value) => MINIMUM_ACR_CHOICES.includes(value), `must be one of ${MINIMUM_ACR_CHOICES.join(", ")}`)
        .default(DEFAULT_MINIMUM_ACR),
    ),
    // Per client address and hour: sign-ins started at ProConnect, and claims posted in the space.
    PRO_SIGN_INS_HOURLY: positiveInt(30),
    PRO_CLAIMS_HOURLY: positiveInt(30),
    // Per claim and hour: edits of a listing posted from the merchant space.
    PRO_EDITS_HOURLY: positiveInt(60),
    // The store on PostgreSQL (15 or later) instead of DATA_DIR/abeille.db (docs/deployment.md).
    DATABASE_URL: z.preprocess(
      emptyToUndefined,
      z
        .string()
        .superRefine((value, context) => {
          const problem = databaseUrlProblem(value);
          if (problem) context.addIssue({ code: "custom", message: problem });
        })
        .optional(),
    ),
    // Connections each process opens at most, and how long a query waits for one before it fails
    // (a saturated pool answers 503 with Retry-After instead of hanging).
    DATABASE_POOL_MAX: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(1_000).default(10)),
    DATABASE_POOL_TIMEOUT_MS: z.preprocess(
      emptyToUndefined,
      z.coerce.number().int().min(10).max(60_000).default(2_000),
    ),
    // On PostgreSQL: how often a machine that does not lead tries to, and how often the leader
    // checks its connection (the scheduled jobs move to another machine within about this delay).
    LEADER_RETRY_MS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(100).max(60_000).default(5_000)),
    // Rate-limit state in Redis (redis:// or rediss://) instead of DATA_DIR/limits.db.
    REDIS_URL: z.preprocess(
      emptyToUndefined,
      z
        .url()
        .refine((value) => /^rediss?:\/\//.test(value), "must start with redis:// or rediss://")
        .optional(),
    ),
  })
  .superRefine((env, context) => {
    const proConnect = [env.PROCONNECT_ISSUER, env.PROCONNECT_CLIENT_ID, env.PROCONNECT_CLIENT_SECRET];
    if (proConnect.some((value) => value !== undefined) && proConnect.some((value) => value === undefined)) {
      context.addIssue({
        code: "custom",
        path: ["PROCONNECT_ISSUER"],
        message:
          "PROCONNECT_ISSUER, PROCONNECT_CLIENT_ID and PROCONNECT_CLIENT_SECRET go together: set all three or none",
      });
    }
    if (env.SEARCH_EMBEDDER && !env.MEILISEARCH_URL) {
      context.addIssue({
        code: "custom",
        path: ["SEARCH_EMBEDDER"],
        message: "needs MEILISEARCH_URL: semantic search runs on Meilisearch (the embedded index has no vectors)",
      });
    }
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
      limitsDatabaseFile: path.join(dataDir, "limits.db"),
      demoSeedCount: env.DEMO_SEED_COUNT,
      demoSeed: env.DEMO_SEED,
      publicOrderRailEnabled: env.PUBLIC_ORDER_RAIL_ENABLED,
      agentAccessSuspended: env.AGENT_ACCESS_SUSPENDED,
      searchEmbedder: env.SEARCH_EMBEDDER
        ? {
            setting: env.SEARCH_EMBEDDER,
            timeoutMs: env.SEARCH_EMBEDDER_TIMEOUT_MS,
            minSimilarity: env.SEARCH_EMBEDDER_MIN_SIMILARITY ?? null,
          }
        : null,
      agentEndpoints: { allowedHosts: env.MCP_ALLOWED_HOSTS, allowedOrigins: env.MCP_ALLOWED_ORIGINS },
      meilisearch: env.MEILISEARCH_URL
        ? {
            url: env.MEILISEARCH_URL.replace(/\/+$/, ""),
            apiKey: env.MEILISEARCH_API_KEY ?? null,
            index: env.MEILISEARCH_INDEX,
            timeoutMs: env.MEILISEARCH_TIMEOUT_MS,
          }
        : null,
      searchFallback: env.SEARCH_FALLBACK,
      rateLimitHourly: {
        anonymous: env.RATE_LIMIT_ANON_HOURLY,
        level1: env.RATE_LIMIT_L1_HOURLY,
        level2: env.RATE_LIMIT_L2_HOURLY,
        level3: env.RATE_LIMIT_L3_HOURLY,
        level4: env.RATE_LIMIT_L4_HOURLY,
      },
      registrationLimits: {
        perAddressDaily: env.AGENT_REGISTRATIONS_PER_ADDRESS_DAILY,
        perRegistrantHourly: env.RATE_LIMIT_PER_REGISTRANT_HOURLY ?? env.RATE_LIMIT_L2_HOURLY,
      },
      logLevel: env.LOG_LEVEL,
      trustProxyHops: env.TRUST_PROXY,
      stripe: { secretKey: env.STRIPE_SECRET_KEY ?? null, apiBase: env.STRIPE_API_BASE ?? null },
      mail: {
        smtp: smtpSettings(env),
        from: env.MAIL_FROM,
        platformTeamEmail: env.PLATFORM_TEAM_EMAIL,
        outboxDir: path.join(dataDir, "outbox"),
      },
      operator: {
        name: env.OPERATOR_NAME,
        address: env.OPERATOR_ADDRESS ?? null,
        publicationDirector: env.OPERATOR_PUBLICATION_DIRECTOR ?? null,
        host: env.OPERATOR_HOST ?? null,
      },
      leadRetentionMonths: env.LEAD_RETENTION_MONTHS,
      outboxPollMs: env.OUTBOX_POLL_MS,
      outboxThreadIdleMs: env.OUTBOX_THREAD_IDLE_MS,
      outboxLeaseMs: env.OUTBOX_LEASE_MS,
      outboxWorker: env.OUTBOX_WORKER,
      serverProcesses: env.SERVER_PROCESSES,
      redisUrl: env.REDIS_URL ?? null,
      postgres: env.DATABASE_URL
        ? {
            url: env.DATABASE_URL,
            poolMax: env.DATABASE_POOL_MAX,
            poolTimeoutMs: env.DATABASE_POOL_TIMEOUT_MS,
            leaderRetryMs: env.LEADER_RETRY_MS,
          }
        : null,
      walCheckpoints: env.ABEILLE_WAL_CHECKPOINTS,
      proConnect:
        env.PROCONNECT_ISSUER && env.PROCONNECT_CLIENT_ID && env.PROCONNECT_CLIENT_SECRET
          ? {
              issuer: env.PROCONNECT_ISSUER,
              clientId: env.PROCONNECT_CLIENT_ID,
              clientSecret: env.PROCONNECT_CLIENT_SECRET,
              minimumAcr: env.PROCONNECT_MIN_ACR,
            }
          : null,
      merchantSpaceLimits: {
        signInsHourly: env.PRO_SIGN_INS_HOURLY,
        claimsHourly: env.PRO_CLAIMS_HOURLY,
        editsHourly: env.PRO_EDITS_HOURLY,
      },
      rechercheEntreprises: {
        url: env.RECHERCHE_ENTREPRISES_URL.replace(/\/+$/, ""),
        timeoutMs: env.RECHERCHE_ENTREPRISES_TIMEOUT_MS,
      },
      sireneApi: {
        url: env.SIRENE_API_URL.replace(/\/+$/, ""),
        key: env.SIRENE_API_KEY ?? null,
        timeoutMs: env.SIRENE_API_TIMEOUT_MS,
        dailyCron: env.SIRENE_DAILY_CRON === "off" ? null : env.SIRENE_DAILY_CRON,
      },
      bodaccApi: { url: env.BODACC_API_URL.replace(/\/+$/, ""), timeoutMs: env.BODACC_API_TIMEOUT_MS },
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
