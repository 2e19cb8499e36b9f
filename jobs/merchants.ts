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
 *   npm run merchants -- letters [--ab-id ID ...] [--department D] [--unclaimed] [--limit N] --out FILE.pdf
 *                                                            a printable batch of postal letters with single-use codes
 *   npm run merchants -- claims <ab_id>                      who claimed the listing in the merchant space (every
 *                                                            claim, live and revoked)
 *   npm run merchants -- revoke-claim <claim_id> --reason "..."   revokes a claim: its person's sessions end at once
 *
 * `--json` prints JSON; `--actor NAME` names who acts in the audit log (default: operator:<user>).
 * A status is written in capitals or not (`active` is ACTIVE). An update file may be the declaration
 * `add` took: its SIRET, which never changes, is checked and left out. An import killed midway
 * resumes after its last recorded line.
 *
 * Exit status:
 *   0  done
 *   1  refused: a file missing or not JSON, a declaration or change refused (the reason on stderr), or for import and observe some lines rejected (the others applied)
 *   2  usage: a wrong option, argument or setting, or this machine lacks the deployment's secret or signing keys or holds others (the file to copy named), said in one line (nothing was done)
 */
import { createHash } from "node:crypto";
import { createReadStream, readFileSync } from "node:fs";
import os from "node:os";
import { type Config, loadConfig } from "../src/config/config.ts";
import { claimsOfListing, revokeClaim } from "../src/domain/merchant-space/claims.ts";
import type { LetterRecipientFilter } from "../src/domain/merchant-space/letter-store.ts";
import { addMerchant } from "../src/domain/merchants/add-merchant.ts";
import { changeMerchantStatus } from "../src/domain/merchants/change-merchant-status.ts";
import { importDeclarations, siretKeysOf } from "../src/domain/merchants/import-declarations.ts";
import { importObservations } from "../src/domain/merchants/import-observations.ts";
import { nextStatuses } from "../src/domain/merchants/lifecycle.ts";
import { readRegistered } from "../src/domain/merchants/load-registered.ts";
import { decideInRegistry, type MerchantLifecycleDeps } from "../src/domain/merchants/merchant-registry.ts";
import { reviewMerchantDescription } from "../src/domain/merchants/review-merchant-description.ts";
import { updateMerchant } from "../src/domain/merchants/update-merchant.ts";
import type { SettingsRepository } from "../src/domain/settings-store.ts";
import { isServiceError, type ServiceError } from "../src/errors/service-error.ts";
import { numberedLines } from "../src/import/numbered-lines.ts";
import { unreadableFile } from "../src/import/open-text.ts";
import { setLogLevel } from "../src/logging.ts";
import { type MerchantStatus, merchantStatusSchema } from "../src/schemas/envelope.ts";
import { createCommuneLookup } from "../src/seed/communes.ts";
import type { OpenedStore } from "../src/store/open-store.ts";
import { isBusy } from "../src/store/write-lock.ts";
import {
  CommandError,
  EXIT_DONE,
  EXIT_FAILED,
  runCommand,
  USAGE_OR_SECRET_STATUS,
  UsageError,
  wholeNumberOption,
} from "./cli.ts";
import { registryPortsOf, withJobStore } from "./job-store.ts";
import { letterFilter, runLetters } from "./merchant-letters.ts";
import { isPostgresRefusal } from "./postgres-refusal.ts";
import { catchUpSearchIndex, lockHeldTooLong } from "./search-catch-up.ts";
import { printable } from "./terminal.ts";

const STATUSES = merchantStatusSchema.options;
/** Each command and the arguments it takes. */
const ARGUMENTS: Record<string, string[]> = {
  add: ["FILE.json"],
  update: ["<ab_id>", "FILE.json"],
  status: ["<ab_id>", "<STATUS>"],
  review: ["<ab_id>"],
  show: ["<ab_id>"],
  list: [],
  import: ["FILE.ndjson"],
  observe: ["FILE.ndjson"],
  letters: [],
  claims: ["<ab_id>"],
  "revoke-claim": ["<claim_id>"],
};

await runCommand(
  {
    name: "merchants",
    usage: [
      "npm run merchants -- add FILE.json",
      "npm run merchants -- update <ab_id> FILE.json",
      `npm run merchants -- status <ab_id> ${STATUSES.join("|")} [--reason "..."]`,
      "npm run merchants -- review <ab_id>",
      "npm run merchants -- show <ab_id>",
      "npm run merchants -- list [--status S] [--sector S] [--department D] [--limit N]",
      "npm run merchants -- import FILE.ndjson",
      "npm run merchants -- observe FILE.ndjson",
      "npm run merchants -- letters [--ab-id ID ...] [--department D] [--unclaimed] [--limit N] --out FILE.pdf",
      "npm run merchants -- claims <ab_id>",
      'npm run merchants -- revoke-claim <claim_id> --reason "..."',
    ],
    notes: [
      "add: a declaration (src/schemas/merchant-declaration.ts) -> a PROBATION merchant; update: the declared",
      "fields that change (the file add took is accepted: its SIRET is checked and left out); import: one",
      "declaration a line, adds or updates by SIRET, resumable; observe: one platform observation a line.",
      "letters: one A4 letter per listed establishment (not SUSPENDED or ARCHIVED) with a single-use code for",
      "{BASE_URL}/pro/code, addressed for a window envelope; --unclaimed skips those someone has claimed; a new",
      "letter supersedes the older ones of its establishment. The codes are in the PDF only.",
      "claims: every claim on a listing in the merchant space, live and revoked; revoke-claim: ends a claim",
      "(a reason is required) and every session of its person at once (docs/merchant-space.md).",
      "Options: --json prints JSON; --actor NAME names who acts in the audit log (default operator:<user>).",
    ],
    options: {
      reason: { type: "string" },
      status: { type: "string" },
      sector: { type: "string" },
      department: { type: "string" },
      limit: { type: "string" },
      actor: { type: "string" },
      json: { type: "boolean", default: false },
      "ab-id": { type: "string", multiple: true },
      unclaimed: { type: "boolean", default: false },
      out: { type: "string" },
    },
    allowPositionals: true,
    exitStatuses: [
      [EXIT_DONE, "done"],
      [
        EXIT_FAILED,
        "refused: a file missing or not JSON, a declaration or change refused (the reason on stderr), or for import and observe some lines rejected (the others applied)",
      ],
      USAGE_OR_SECRET_STATUS,
    ],
  },
  async ({ values, positionals }) => {
    const [command, ...args] = positionals;
    if (!command) throw new UsageError(`no command: ${Object.keys(ARGUMENTS).join(", ")}`);
    const expected = ARGUMENTS[command];
    if (!expected) throw new UsageError(`unknown command ${printable(command)}: ${Object.keys(ARGUMENTS).join(", ")}`);
    if (args.length !== expected.length) {
      throw new UsageError(
        `${command} takes ${expected.length === 0 ? "no argument" : expected.join(" ")}, got ${args.length === 0 ? "none" : printable(args.join(" "))}`,
      );
    }
    // Checked before anything is opened: a usage error does nothing.
    const status = command === "status" ? statusArgument(args[1] as string, "<STATUS>") : undefined;
    if (command === "revoke-claim" && !values.reason?.trim()) {
      throw new UsageError('revoke-claim needs --reason "..." (why the claim is revoked, kept in the audit log)');
    }
    const listStatus = values.status === undefined ? undefined : statusArgument(values.status, "--status");
    const limit = values.limit === undefined ? 100 : wholeNumberOption("limit", values.limit, 1, 10_000);
    if (command !== "letters" && (values.out !== undefined || values["ab-id"] !== undefined || values.unclaimed)) {
      throw new UsageError("--out, --ab-id and --unclaimed go with letters only");
    }
    const letters =
      command === "letters"
        ? letterFilter({
            abIds: values["ab-id"],
            department: values.department,
            unclaimed: values.unclaimed,
            limit,
            out: values.out,
          })
        : undefined;
    await run(command, args, {
      json: values.json,
      actor: values.actor ?? `operator:${os.userInfo().username}`,
      reason: values.reason ?? null,
      status,
      letters,
      list: {
        ...(listStatus ? { status: listStatus } : {}),
        ...(values.sector ? { sector: values.sector } : {}),
        ...(values.department ? { department: values.department } : {}),
        limit,
      },
    });
  },
);

/** A merchant status as typed, in capitals or not; a UsageError naming the statuses otherwise. */
function statusArgument(text: string, what: string): MerchantStatus {
  const status = merchantStatusSchema.safeParse(text.trim().toUpperCase());
  if (!status.success) throw new UsageError(`${what} must be one of ${STATUSES.join(", ")}, not ${printable(text)}`);
  return status.data;
}

interface RunOptions {
  json: boolean;
  actor: string;
  reason: string | null;
  status: MerchantStatus | undefined;
  letters: { filter: LetterRecipientFilter; out: string } | undefined;
  list: { status?: MerchantStatus; sector?: string; department?: string; limit: number };
}

async function run(command: string, args: string[], options: RunOptions): Promise<void> {
  setLogLevel("warn");
  const config = loadConfig();
  await withJobStore(config, "merchants", (store) => runOn(store, config, command, args, options));
}

/** The command over the store it opened (SQLite's file, or PostgreSQL with DATABASE_URL). */
async function runOn(
  store: OpenedStore,
  config: Config,
  command: string,
  args: string[],
  options: RunOptions,
): Promise<void> {
  const deps: MerchantLifecycleDeps = {
    registry: registryPortsOf(store).registry,
    communes: createCommuneLookup(),
    now: () => new Date(),
  };
  const out = (json: unknown, lines: string[]) =>
    process.stdout.write(options.json ? `${JSON.stringify(json, null, 2)}\n` : `${lines.join("\n")}\n`);
  /**
   * Whether the command wrote merchants: the search index, which follows the store's change feed,
   * is then caught up before the command ends (jobs/search-catch-up.ts).
   */
  let wrote = false;
  /** Another process held the write lock past the wait: the catch-up would wait as long again. */
  let lockHeldElsewhere = false;
  const { actor } = options;
  try {
    if (command === "import" || command === "observe") {
      wrote = true;
      const report = await runImport(
        store.settings,
        deps,
        args[0] as string,
        command === "import" ? "declarations" : "observations",
        actor,
      );
      out(report, [
        `${report.read} read: ${report.created} added, ${report.updated} updated, ${report.unchanged} unchanged, ${report.resumed} done by an earlier run, ${report.rejected.length} rejected`,
        ...report.rejected.flatMap((rejected) =>
          rejected.issues.map(
            (issue) => `line ${rejected.line}: ${issue.path || "(line)"}: ${printable(issue.message)}`,
          ),
        ),
      ]);
      if (report.rejected.length > 0) process.exitCode = EXIT_FAILED;
    } else if (command === "letters" && options.letters) {
      const report = await runLetters(store, config, options.letters);
      out(report, [
        report.letters === 0
          ? "0 letters: no listed establishment matches (nothing written)"
          : `${report.letters} letter(s) written to ${printable(report.out)} (batch ${report.batch_id}, codes expire ${report.expires_at})`,
      ]);
    } else if (command === "add") {
      const [file] = args as [string];
      const declaration = readDeclaration(file);
      const added = await decideInRegistry(deps, siretKeysOf(declaration), (decision) =>
        addMerchant(decision, declaration, actor),
      );
      wrote = true;
      out(added, [`${added.abId} added (${added.status}, revision ${added.revision})`]);
    } else if (command === "update") {
      const [abId, file] = args as [string, string];
      const declaration = readDeclaration(file);
      const updated = await decideInRegistry(deps, { abIds: [abId] }, (decision) =>
        updateMerchant(decision, abId, declaration, actor),
      );
      wrote = updated.changed.length > 0;
      out(updated, [
        updated.changed.length === 0
          ? `${abId} unchanged (revision ${updated.revision})`
          : `${abId} updated: ${updated.changed.join(", ")} (revision ${updated.revision})`,
      ]);
    } else if (command === "status") {
      const [abId] = args as [string];
      const changed = await decideInRegistry(deps, { abIds: [abId] }, (decision) =>
        changeMerchantStatus(decision, abId, { status: options.status, reason: options.reason }, actor),
      );
      wrote = true;
      out(changed, [`${abId} ${changed.from} -> ${changed.to} (revision ${changed.revision})`]);
    } else if (command === "review") {
      const [abId] = args as [string];
      const reviewed = await decideInRegistry(deps, { abIds: [abId] }, (decision) =>
        reviewMerchantDescription(decision, abId, actor),
      );
      wrote = reviewed.changed;
      out(reviewed, [
        reviewed.changed ? `${abId} description reviewed (revision ${reviewed.revision})` : `${abId} already reviewed`,
      ]);
    } else if (command === "claims") {
      const [abId] = args as [string];
      const claims = await claimsOfListing({ store: store.space }, abId);
      out(claims, [
        ...claims.map(
          (claim) =>
            `${claim.claimId}  ${claim.revokedAt ? "revoked" : claim.lapsedAt ? "lapsed " : "live   "}  ${claim.via.padEnd(10)}  ${(claim.basis ?? "-").padEnd(6)}  ${claim.createdAt}  ${printable(claim.email ?? "(no email)")}${claim.revokedAt ? `  revoked ${claim.revokedAt} by ${printable(claim.revokedBy ?? "")}: ${printable(claim.revokedReason ?? "")}` : claim.lapsedAt ? `  lapsed ${claim.lapsedAt} (a later sign-in no longer carried its ${claim.basis ?? "basis"})` : ""}`,
        ),
        `${claims.length} claim(s) on ${abId}, ${claims.filter((claim) => !claim.revokedAt && !claim.lapsedAt).length} live${
          claims.some((claim) => !claim.revokedAt && claim.lapsedAt)
            ? `, ${claims.filter((claim) => !claim.revokedAt && claim.lapsedAt).length} lapsed`
            : ""
        }`,
      ]);
    } else if (command === "revoke-claim") {
      const [claimId] = args as [string];
      const revoked = await revokeClaim({ store: store.space, now: deps.now }, claimId, {
        by: actor,
        reason: options.reason ?? "",
      });
      out(revoked, [
        `${claimId} on ${revoked.abId} revoked, with the person's other claims on it; its person's sessions are ended`,
      ]);
    } else if (command === "show") {
      const [abId] = args as [string];
      const { merchant, revision } = await readRegistered(deps, abId);
      const events = await deps.registry.events(abId);
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
      const rows = await deps.registry.list(options.list);
      const { limit } = options.list;
      out(rows, [
        ...rows.map(
          (row) =>
            `${row.abId}  ${row.status.padEnd(9)}  ${row.sector.padEnd(13)}  ${row.postalCode} ${printable(row.city)}  ${printable(row.businessName)}`,
        ),
        `${rows.length} merchant(s)${rows.length === limit ? ` (first ${limit}; --limit for more)` : ""}`,
      ]);
    }
  } catch (error) {
    // PostgreSQL not answering: said in one line by withJobStore.
    if (isPostgresRefusal(error)) throw error;
    if (isServiceError(error)) throw new CommandError(refusal(error));
    if (isBusy(error)) {
      lockHeldElsewhere = true;
      throw new CommandError(lockHeldTooLong());
    }
    throw error;
  } finally {
    if (wrote && !lockHeldElsewhere) await catchUpSearchIndex(store, "merchants");
  }
}

/**
 * A refusal as the operator reads it: the code and the reason once; a declaration's faults one a
 * line under it when there are several (the message alone when it is one).
 */
function refusal(error: ServiceError): string {
  const issues = error.details.issues ?? [];
  if (issues.length === 0) return `${error.code}: ${printable(error.message)}`;
  const said = issues.map((issue) => `${issue.path || "(declaration)"}: ${printable(issue.message)}`);
  if (said.length === 1) return `${error.code}: ${said[0]}`;
  return [`${error.code}: ${said.length} faults`, ...said.map((line) => `  ${line}`)].join("\n");
}

/** A declaration file's JSON; a CommandError saying why it cannot be read. */
function readDeclaration(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const reason = unreadableFile(error);
    if (reason === null) throw error;
    throw new CommandError(`${printable(file)}: ${reason}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CommandError(`${printable(file)} is not JSON: ${(error as Error).message}`);
  }
}

async function contentKey(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** A bulk file: declarations (`import`, adds or updates by SIRET) or platform observations (`observe`). */
async function runImport(
  settings: SettingsRepository,
  deps: MerchantLifecycleDeps,
  file: string,
  kind: "declarations" | "observations",
  actor: string,
) {
  let importKey: string;
  try {
    importKey = await contentKey(file);
  } catch (error) {
    const reason = unreadableFile(error);
    if (reason === null) throw error;
    throw new CommandError(`${printable(file)}: ${reason}`);
  }
  const checkpointKey = (key: string) => `${kind === "declarations" ? "merchant-import" : "observation-import"}:${key}`;
  const tty = process.stderr.isTTY === true;
  let lastDraw = 0;
  const importer = kind === "declarations" ? importDeclarations : importObservations;
  const report = await importer(
    {
      ...deps,
      checkpoints: {
        read: async (key) => Number((await settings.get(checkpointKey(key))) ?? 0),
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
  return report;
}
