/**
 * Live check of merchants' official identity against the API Recherche d'entreprises
 * (docs/merchant-lifecycle.md, "Live check"). Safe beside a serving server on the same DATA_DIR:
 * each answer is written in one transaction, on the merchant's revision of the moment; it never
 * runs inside an HTTP request.
 *
 *   npm run verify -- <ab_id> [--json]
 *   npm run verify -- --due [--within-days 30] [--limit N] [--json]
 *
 * `<ab_id>`: that merchant, now. `--due`: every listed merchant whose siret_verified expires within
 * N days (default 30), or is missing or not verified, soonest first (closed merchants are not due).
 * Found and active: verified for two more years; closed: failed and its closure recorded (still
 * resolvable, never a search hit); not public: archived; not found: failed. At most 7 requests a second (the
 * API's published limit), 429s wait their Retry-After, timeouts and 5xx are retried with backoff.
 * Ends with counts; progress on a terminal only.
 *
 * Exit status:
 *   0  every check made
 *   1  some checks could not be made (the register did not answer, an unknown or archived merchant: listed on stderr)
 *   2  usage: a wrong option, argument or setting, said in one line (nothing was done)
 */
import { type Config, loadConfig } from "../src/config/config.ts";
import { OfficialRegistryError } from "../src/domain/merchants/official-registry-lookup.ts";
import { type IdentityCheckOutcome, verifyOfficialIdentity } from "../src/domain/merchants/verify-official-identity.ts";
import { isServiceError } from "../src/errors/service-error.ts";
import { setLogLevel } from "../src/logging.ts";
import { createRechercheEntreprisesClient } from "../src/official/recherche-entreprises.ts";
import type { OpenedStore } from "../src/store/open-store.ts";
import { EXIT_DONE, EXIT_FAILED, runCommand, USAGE_STATUS, UsageError, wholeNumberOption } from "./cli.ts";
import { registryPortsOf, withJobStore } from "./job-store.ts";
import { isPostgresRefusal } from "./postgres-refusal.ts";
import { catchUpSearchIndex } from "./search-catch-up.ts";
import { printable } from "./terminal.ts";

const ACTOR = "verify:recherche-entreprises";
/** Lookups in flight at once; the client's pacer keeps them to 7 a second. */
const CONCURRENCY = 4;
const DAY_MS = 24 * 3_600_000;

await runCommand(
  {
    name: "verify",
    usage: ["npm run verify -- <ab_id> [--json]", "npm run verify -- --due [--within-days N] [--limit N] [--json]"],
    notes: [
      "<ab_id>: that merchant, now. --due: every listed merchant whose identity check ends within N days",
      "(default 30), or is missing or not verified, soonest first. Asks the API Recherche d'entreprises.",
    ],
    options: {
      due: { type: "boolean", default: false },
      "within-days": { type: "string" },
      limit: { type: "string" },
      json: { type: "boolean", default: false },
    },
    allowPositionals: true,
    exitStatuses: [
      [EXIT_DONE, "every check made"],
      [
        EXIT_FAILED,
        "some checks could not be made (the register did not answer, an unknown or archived merchant: listed on stderr)",
      ],
      USAGE_STATUS,
    ],
  },
  async ({ values, positionals }) => {
    if (values.due === positionals.length > 0) throw new UsageError("give one <ab_id>, or --due");
    if (positionals.length > 1) throw new UsageError(`one <ab_id> at a time, got ${positionals.length}`);
    if (!values.due && (values["within-days"] !== undefined || values.limit !== undefined)) {
      throw new UsageError("--within-days and --limit go with --due");
    }
    const withinDays =
      values["within-days"] === undefined ? 30 : wholeNumberOption("within-days", values["within-days"], 0, 3650);
    const limit = values.limit === undefined ? undefined : wholeNumberOption("limit", values.limit, 0, 1_000_000);
    await verify({ abId: positionals[0], due: values.due, withinDays, limit, json: values.json });
  },
);

interface VerifyOptions {
  abId: string | undefined;
  due: boolean;
  withinDays: number;
  limit: number | undefined;
  json: boolean;
}

async function verify(options: VerifyOptions): Promise<void> {
  setLogLevel("warn");
  const config = loadConfig();
  await withJobStore(config, "verify", (store) => verifyIn(store, config, options));
}

/** The checks over the store it opened (SQLite's file, or PostgreSQL with DATABASE_URL). */
async function verifyIn(store: OpenedStore, config: Config, options: VerifyOptions): Promise<void> {
  const ports = registryPortsOf(store);
  const deps = {
    registry: ports.registry,
    now: () => new Date(),
    lookup: createRechercheEntreprisesClient({
      baseUrl: config.rechercheEntreprises.url,
      timeoutMs: config.rechercheEntreprises.timeoutMs,
      userAgent: `Abeille registry verify job (+${config.baseUrl})`,
    }),
  };

  const counts = { selected: 0, checked: 0, verified: 0, not_found: 0, closed: 0, not_public: 0, archived: 0 };
  const errors: { ab_id: string; error: string }[] = [];
  const results: { ab_id: string; outcome: IdentityCheckOutcome["kind"]; url: string; archived: boolean }[] = [];
  const tty = process.stderr.isTTY === true;

  async function check(abId: string): Promise<void> {
    try {
      const outcome = await verifyOfficialIdentity(deps, abId, ACTOR);
      counts.checked += 1;
      counts[outcome.kind] += 1;
      const archived = "archived" in outcome && outcome.archived;
      if (archived) counts.archived += 1;
      results.push({ ab_id: abId, outcome: outcome.kind, url: outcome.url, archived });
    } catch (error) {
      if (error instanceof OfficialRegistryError)
        errors.push({ ab_id: abId, error: `${error.failure}: ${error.message}` });
      // PostgreSQL not answering: the run stops, said in one line by withJobStore.
      else if (isPostgresRefusal(error)) throw error;
      else if (isServiceError(error)) errors.push({ ab_id: abId, error: `${error.code}: ${error.message}` });
      else throw error;
    }
    if (tty) {
      process.stderr.write(
        `\r${counts.checked + errors.length}/${counts.selected} done: ${counts.verified} verified, ${errors.length} not checked `,
      );
    }
  }

  try {
    const abIds = options.due
      ? await ports.dueForIdentityCheck({
          horizon: new Date(Date.now() + options.withinDays * DAY_MS).toISOString(),
          ...(options.limit === undefined ? {} : { limit: options.limit }),
        })
      : [options.abId as string];
    counts.selected = abIds.length;
    let next = 0;
    const worker = async () => {
      while (next < abIds.length) {
        const abId = abIds[next] as string;
        next += 1;
        await check(abId);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, abIds.length) }, worker));
    if (tty && abIds.length > 0) process.stderr.write("\n");

    const report = { ...counts, errors, ...(options.due ? {} : { results }) };
    const lines = [
      `${counts.checked} of ${counts.selected} checked: ${counts.verified} verified, ${counts.not_found} not found, ${counts.closed} closed, ${counts.not_public} not public; ${counts.archived} archived; ${errors.length} not checked`,
      ...(options.due
        ? []
        : results.map(
            (result) => `${result.ab_id}: ${result.outcome}${result.archived ? " (archived)" : ""}, ${result.url}`,
          )),
      "",
    ];
    process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : lines.join("\n"));
    for (const item of errors) process.stderr.write(`verify: ${item.ab_id}: ${printable(item.error)}\n`);
    if (errors.length > 0) process.exitCode = EXIT_FAILED;
  } finally {
    // The merchants checked (a new date, a failure, an archive) are searched as they are now.
    if (counts.checked > 0) await catchUpSearchIndex(store, "verify");
  }
}
