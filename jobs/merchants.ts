/**
 * Operator command for merchants (docs/merchant-lifecycle.md). Safe to run while the server
 * serves the same DATA_DIR: each change is one transaction, and a merchant changed meanwhile by
 * someone else is refused rather than overwritten.
 *
 *   npm run merchants -- add FILE.json                       a declaration -> a PROBATION merchant
 *   npm run merchants -- update <ab_id> FILE.json            the declared fields that change
 *   npm run merchants -- status <ab_id> <STATUS> [--reason "..."]
 *   npm run merchants -- review <ab_id>                      a person vouches for the description
 *   npm run merchants -- show <ab_id>                        the merchant and its audit log
 *   npm run merchants -- list [--status S] [--sector S] [--department D] [--limit N]
 *   npm run merchants -- import FILE.ndjson                  one declaration a line: adds or updates by SIRET
 *   npm run merchants -- observe FILE.ndjson                 one platform observation a line (listing, website,
 *                                                            photos, payment, evidence signals, Q&A), by SIRET
 *
 * `--json` prints JSON; `--actor NAME` names who acts in the audit log (default: operator:<user>).
 * Exit status: 0 done, 1 refused (the reason on stderr; for import and observe: some lines rejected, the others
 * applied), 2 bad usage. An import killed midway resumes after its last recorded line.
 */
import { createHash } from "node:crypto";
import { createReadStream, readFileSync } from "node:fs";
import os from "node:os";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config/config.ts";
import { addMerchant } from "../src/domain/merchants/add-merchant.ts";
import { changeMerchantStatus } from "../src/domain/merchants/change-merchant-status.ts";
import { importDeclarations } from "../src/domain/merchants/import-declarations.ts";
import { importObservations } from "../src/domain/merchants/import-observations.ts";
import { nextStatuses } from "../src/domain/merchants/lifecycle.ts";
import { loadRegistered } from "../src/domain/merchants/load-registered.ts";
import type { MerchantLifecycleDeps } from "../src/domain/merchants/merchant-registry.ts";
import { reviewMerchantDescription } from "../src/domain/merchants/review-merchant-description.ts";
import { updateMerchant } from "../src/domain/merchants/update-merchant.ts";
import { isServiceError } from "../src/errors/service-error.ts";
import { numberedLines } from "../src/import/numbered-lines.ts";
import { setLogLevel } from "../src/logging.ts";
import { merchantStatusSchema } from "../src/schemas/envelope.ts";
import { createCommuneLookup } from "../src/seed/communes.ts";
import { JOB_BUSY_TIMEOUT_MS } from "../src/store/connection.ts";
import { openDatabase } from "../src/store/db.ts";
import { createMerchantRegistryRepository } from "../src/store/merchant-registry-repository.ts";
import { createSettingsRepository } from "../src/store/settings-repository.ts";
import { isBusy } from "../src/store/write-lock.ts";
import { catchUpSearchIndex, lockHeldTooLong } from "./search-catch-up.ts";
import { printable } from "./terminal.ts";

const USAGE = `usage: npm run merchants -- add FILE.json | update <ab_id> FILE.json | status <ab_id> <STATUS> [--reason "..."]
                             | review <ab_id> | show <ab_id> | list [--status S] [--sector S] [--department D] [--limit N]
                             | import FILE.ndjson | observe FILE.ndjson
options: --json, --actor NAME`;

function usage(message: string): never {
  process.stderr.write(`merchants: ${message}\n${USAGE}\n`);
  process.exit(2);
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    reason: { type: "string" },
    status: { type: "string" },
    sector: { type: "string" },
    department: { type: "string" },
    limit: { type: "string", default: "100" },
    actor: { type: "string" },
    json: { type: "boolean", default: false },
  },
});
const [command, ...args] = positionals;
const arity: Record<string, number> = {
  add: 1,
  update: 2,
  status: 2,
  review: 1,
  show: 1,
  list: 0,
  import: 1,
  observe: 1,
};
if (!command) usage("no command");
if (!(command in arity)) usage(`unknown command ${command}`);
if (args.length !== arity[command]) usage(`${command} takes ${arity[command]} argument(s), got ${args.length}`);

setLogLevel("warn");
const config = loadConfig();
const db = openDatabase(config.databaseFile, { busyTimeoutMs: JOB_BUSY_TIMEOUT_MS });
const deps: MerchantLifecycleDeps = {
  registry: createMerchantRegistryRepository(db),
  communes: createCommuneLookup(),
  now: () => new Date(),
};
const actor = values.actor ?? `operator:${os.userInfo().username}`;

function out(json: unknown, lines: string[]): void {
  process.stdout.write(values.json ? `${JSON.stringify(json, null, 2)}\n` : `${lines.join("\n")}\n`);
}

class InputFileError extends Error {}

function readDeclaration(file: string): unknown {
  let textContent: string;
  try {
    textContent = readFileSync(file, "utf8");
  } catch (error) {
    throw new InputFileError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    return JSON.parse(textContent);
  } catch (error) {
    throw new InputFileError(`${file} is not JSON: ${(error as Error).message}`);
  }
}

/**
 * Whether the command wrote merchants: the search index, which follows the store's change feed,
 * is then caught up before the command ends (jobs/search-catch-up.ts).
 */
let wrote = false;
/** Another process held the write lock past the wait: the catch-up would wait as long again. */
let lockHeldElsewhere = false;

async function contentKey(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** A bulk file: declarations (`import`, adds or updates by SIRET) or platform observations (`observe`). */
async function runImport(file: string, kind: "declarations" | "observations"): Promise<void> {
  let importKey: string;
  try {
    importKey = await contentKey(file);
  } catch (error) {
    throw new InputFileError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const settings = createSettingsRepository(db);
  const checkpointKey = (key: string) => `${kind === "declarations" ? "merchant-import" : "observation-import"}:${key}`;
  const tty = process.stderr.isTTY === true;
  let lastDraw = 0;
  wrote = true;
  const importer = kind === "declarations" ? importDeclarations : importObservations;
  const report = await importer(
    {
      ...deps,
      checkpoints: {
        read: (key) => Number(settings.get(checkpointKey(key)) ?? 0),
        write: (key, line) => settings.set(checkpointKey(key), String(line), new Date()),
      },
    },
    numberedLines(file),
    {
      importKey,
      actor,
      onProgress(progress, line) {
        const now = Date.now();
        if (tty && now - lastDraw > 100) {
          lastDraw = now;
          process.stderr.write(
            `\rline ${line}: ${progress.created} added, ${progress.updated} updated, ${progress.rejected.length} rejected `,
          );
        } else if (!tty && progress.read % 1000 === 0) {
          process.stderr.write(
            `line ${line}: ${progress.created} added, ${progress.updated} updated, ${progress.rejected.length} rejected\n`,
          );
        }
      },
    },
  );
  if (tty) process.stderr.write("\n");
  out(report, [
    `${report.read} read: ${report.created} added, ${report.updated} updated, ${report.unchanged} unchanged, ${report.resumed} done by an earlier run, ${report.rejected.length} rejected`,
    ...report.rejected.flatMap((rejected) =>
      rejected.issues.map((issue) => `line ${rejected.line}: ${issue.path || "(line)"}: ${printable(issue.message)}`),
    ),
  ]);
  if (report.rejected.length > 0) process.exitCode = 1;
}

try {
  if (command === "import" || command === "observe") {
    await runImport(args[0] as string, command === "import" ? "declarations" : "observations");
  } else if (command === "add") {
    const added = addMerchant(deps, readDeclaration(args[0] as string), actor);
    wrote = true;
    out(added, [`${added.abId} added (${added.status}, revision ${added.revision})`]);
  } else if (command === "update") {
    const [abId, file] = args as [string, string];
    const updated = updateMerchant(deps, abId, readDeclaration(file), actor);
    wrote = updated.changed.length > 0;
    out(updated, [
      updated.changed.length === 0
        ? `${abId} unchanged (revision ${updated.revision})`
        : `${abId} updated: ${updated.changed.join(", ")} (revision ${updated.revision})`,
    ]);
  } else if (command === "status") {
    const [abId, status] = args as [string, string];
    const changed = changeMerchantStatus(deps, abId, { status, reason: values.reason ?? null }, actor);
    wrote = true;
    out(changed, [`${abId} ${changed.from} -> ${changed.to} (revision ${changed.revision})`]);
  } else if (command === "review") {
    const [abId] = args as [string];
    const reviewed = reviewMerchantDescription(deps, abId, actor);
    wrote = reviewed.changed;
    out(reviewed, [
      reviewed.changed ? `${abId} description reviewed (revision ${reviewed.revision})` : `${abId} already reviewed`,
    ]);
  } else if (command === "show") {
    const [abId] = args as [string];
    const { merchant, revision } = loadRegistered(deps, abId);
    const events = deps.registry.events(abId);
    out({ merchant, revision, events }, [
      `${merchant.abId}  ${merchant.status}  revision ${revision}  next: ${nextStatuses(merchant.status).join(", ") || "none"}`,
      `${printable(merchant.businessName)} (${printable(merchant.legalName)}), SIRET ${merchant.siret}, NAF ${merchant.nafCode} (${merchant.sector})`,
      `${printable(merchant.street)}, ${merchant.postalCode} ${printable(merchant.city)}`,
      `description: ${merchant.description === null ? "none" : merchant.descriptionLlmUnreviewed ? "to review" : "reviewed"}`,
      "audit log:",
      ...events.map(
        (event) =>
          `  ${event.at}  r${event.revision}  ${printable(event.actor)}  ${event.action}  ${Object.keys(event.changes).join(", ")}${event.reason ? `  reason: ${printable(event.reason)}` : ""}`,
      ),
    ]);
  } else {
    const status = values.status === undefined ? undefined : merchantStatusSchema.safeParse(values.status);
    if (status && !status.success) usage(`--status must be one of ${merchantStatusSchema.options.join(", ")}`);
    const limit = Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
      usage("--limit must be a whole number from 1 to 10000");
    const rows = deps.registry.list({
      ...(status?.data ? { status: status.data } : {}),
      ...(values.sector ? { sector: values.sector } : {}),
      ...(values.department ? { department: values.department } : {}),
      limit,
    });
    out(rows, [
      ...rows.map(
        (row) =>
          `${row.abId}  ${row.status.padEnd(9)}  ${row.sector.padEnd(13)}  ${row.postalCode} ${printable(row.city)}  ${printable(row.businessName)}`,
      ),
      `${rows.length} merchant(s)${rows.length === limit ? ` (first ${limit}; --limit for more)` : ""}`,
    ]);
  }
} catch (error) {
  if (isServiceError(error)) {
    const issues = error.details.issues?.map((issue) => `  ${issue.path || "(declaration)"}: ${issue.message}`) ?? [];
    process.stderr.write(
      `merchants: ${error.code}: ${printable(error.message)}\n${issues.join("\n")}${issues.length ? "\n" : ""}`,
    );
    process.exitCode = 1;
  } else if (error instanceof InputFileError) {
    process.stderr.write(`merchants: ${error.message}\n`);
    process.exitCode = 1;
  } else if (isBusy(error)) {
    lockHeldElsewhere = true;
    process.stderr.write(`${lockHeldTooLong("merchants")}\n`);
    process.exitCode = 1;
  } else {
    throw error;
  }
} finally {
  if (wrote && !lockHeldElsewhere) await catchUpSearchIndex(db, "merchants");
  db.$client.close();
}
