/**
 * Imports from official French sources (docs/merchant-lifecycle.md). Safe beside a serving
 * server on the same DATA_DIR: rows are written a batch per transaction, each begun IMMEDIATE
 * and waiting for the write lock as long as another process holds it; the search index follows
 * the store's change feed (the server's follower, and this job's catch-up when it ends).
 *
 *   npm run import -- sirene --etablissements StockEtablissement_utf8.zip --unites-legales StockUniteLegale_utf8.zip
 *                            [--geo geo_siret_69.csv.gz] [--departments 69,75] [--file-date 2026-11-01] [--json]
 *
 * SIRENE stock (INSEE, UTF-8 CSV with its header, as published: plain, zipped or gzipped; the
 * layouts since 2019, columns found by name whatever their case and order): active (A) and public
 * (O) establishments of the trades the registry covers become PROBATION merchants with their
 * identity verified; known ones take the file's address and activity; closed ones (F) archive
 * their merchant. The legal units file gives each merchant its company's name, legal form and
 * creation date (and the company's age as an official signal; the file is read for the companies
 * of the kept establishments only): without it, a new establishment has no name the files give
 * and is skipped (name_unknown), known ones still follow their rows. Names are INSEE's own, in its
 * order (sign, usual name, company name); the identity check holds from INSEE's processing of the
 * row, or for a row without one from the file's date when `--file-date` states it (else the row is
 * skipped, undated); a check recorded later (npm run verify) is never replaced by an older row's.
 * Positions come from Etalab's geocoded files (`--geo`, or an establishments file that carries
 * their columns); without one, from the commune's centroid, marked as such. Text is cleaned of
 * control characters; a row with a name, street or town longer than a declaration may have is
 * rejected. Ends with counts; rows it cannot read are counted and the first 100 listed with their
 * file and line. The same file twice changes nothing the second time.
 *
 *   npm run import -- bodacc annonces-commerciales.jsonl [--json]
 *
 * BODACC (DILA's dataset annonces-commerciales, as its Opendatasoft API serves it: a records page
 * of the API v2.1, or of the older v1 and v2.0 (`records[].fields`, `records[].record.fields`),
 * /exports/json or /exports/jsonl; plain, gzipped or zipped): the merchants of each company
 * (SIREN) the file names record bodacc_clean, verified when no insolvency proceeding,
 * deregistration or sale of their business stands against them, failed with the announcement
 * otherwise; a deregistration archives them. Ends with counts: records read; merchants matched,
 * updated, archived, unchanged; records skipped by reason; records rejected, counted and the first
 * 100 listed with their number and line. The same file twice changes nothing the second time.
 *
 * Exit status, for both:
 *   0  done
 *   1  done, but some rows (records) were rejected: they are counted and listed (the others are in)
 *   2  usage: the command line is wrong
 *   3  a file refused or unreadable, one line on stderr naming it (`--unites-legales FILE, line 1:
 *      ...`) and the line at fault: not a layout the import reads (the pre-2019 SIRENE, a legal
 *      units file given as establishments, ...), a header without the columns needed, a file
 *      missing, damaged or cut short. What was read before the fault is applied; the run after
 *      the file is fixed picks up the rest.
 */
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config/config.ts";
import { importBodaccFile } from "../src/import/bodacc/import-bodacc.ts";
import { BodaccFileError } from "../src/import/bodacc/records.ts";
import { fileFault } from "../src/import/open-text.ts";
import { importSireneStock, SireneFileError } from "../src/import/sirene/import-sirene.ts";
import type { SireneFileKind } from "../src/import/sirene/layout.ts";
import { setLogLevel } from "../src/logging.ts";
import { createCommuneLookup } from "../src/seed/communes.ts";
import { JOB_BUSY_TIMEOUT_MS } from "../src/store/connection.ts";
import { openDatabase } from "../src/store/db.ts";
import { createMerchantRegistryRepository } from "../src/store/merchant-registry-repository.ts";
import { isBusy } from "../src/store/write-lock.ts";
import { catchUpSearchIndex, lockHeldTooLong } from "./search-catch-up.ts";
import { printable } from "./terminal.ts";

const USAGE = [
  "usage: npm run import -- sirene --etablissements FILE --unites-legales FILE [--geo FILE] [--departments 69,75] [--file-date YYYY-MM-DD] [--json]",
  "       npm run import -- bodacc FILE [--json]",
].join("\n");
function usage(message: string): never {
  process.stderr.write(`import: ${message}\n${USAGE}\n`);
  process.exit(2);
}
/** A file refused or unreadable (see the header). */
const REFUSED = 3;
/** The option each SIRENE file is given with, as errors and rejections name it. */
const OPTION: Record<SireneFileKind, string> = {
  establishments: "--etablissements",
  legalUnits: "--unites-legales",
  geo: "--geo",
};
/** The last line of a list of rejections cut at the first ones. */
const notListed = (report: { rejected: unknown[]; rejected_count: number }) =>
  report.rejected_count > report.rejected.length
    ? [
        `... and ${report.rejected_count - report.rejected.length} more not listed (the first ${report.rejected.length} are)`,
      ]
    : [];

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    etablissements: { type: "string" },
    "unites-legales": { type: "string" },
    geo: { type: "string" },
    departments: { type: "string" },
    "file-date": { type: "string" },
    json: { type: "boolean", default: false },
  },
});
const source = positionals[0];
if (source === "bodacc") {
  if (positionals.length !== 2) usage("bodacc takes one FILE");
  if (values.etablissements || values["unites-legales"] || values.geo || values.departments || values["file-date"]) {
    usage("bodacc takes no SIRENE option");
  }
} else {
  if (source !== "sirene" || positionals.length !== 1) usage("the source must be sirene or bodacc");
  if (!values.etablissements) usage("--etablissements FILE is required");
}
const departments = values.departments ? values.departments.split(",").map((code) => code.trim().toUpperCase()) : null;
if (departments?.some((code) => !/^(\d{2,3}|2A|2B)$/.test(code))) usage("--departments takes codes like 69,75,2A");
const fileDate = values["file-date"] ?? null;
if (fileDate !== null && (!/^\d{4}-\d{2}-\d{2}$/.test(fileDate) || Number.isNaN(Date.parse(fileDate)))) {
  usage("--file-date takes the file's date as YYYY-MM-DD");
}

setLogLevel("warn");
const config = loadConfig();
const db = openDatabase(config.databaseFile, { busyTimeoutMs: JOB_BUSY_TIMEOUT_MS });
const deps = { registry: createMerchantRegistryRepository(db), communes: createCommuneLookup(), now: () => new Date() };
const tty = process.stderr.isTTY === true;

async function sirene(establishments: string): Promise<void> {
  const report = await importSireneStock(
    deps,
    {
      establishments,
      legalUnits: values["unites-legales"] ?? null,
      geo: values.geo ?? null,
      departments,
      fileDate,
    },
    "import:sirene",
    {
      printable,
      onProgress: (progress) =>
        process.stderr.write(`${tty ? "\r" : ""}${progress.read} rows, ${progress.created} added${tty ? " " : "\n"}`),
    },
  );
  if (tty && report.read >= 10_000) process.stderr.write("\n");
  const { rejected, skipped } = report;
  process.stdout.write(
    values.json
      ? `${JSON.stringify(report, null, 2)}\n`
      : [
          `${report.read} rows: ${report.created} added, ${report.updated} updated, ${report.archived} archived, ${report.unchanged} unchanged, ${report.rejected_count} rejected`,
          `skipped: ${
            Object.entries(skipped)
              .map(([reason, count]) => `${reason} ${count}`)
              .join(", ") || "none"
          }`,
          ...(skipped.name_unknown
            ? [
                values["unites-legales"]
                  ? "name_unknown: their companies are not public or not in the legal units file"
                  : "name_unknown: their companies name them: add --unites-legales StockUniteLegale_utf8.zip",
              ]
            : []),
          ...(skipped.undated
            ? ["undated: rows without INSEE's processing date: state the file's date with --file-date YYYY-MM-DD"]
            : []),
          ...rejected.map((item) => `${OPTION[item.file]}, line ${item.line}: ${printable(item.error)}`),
          ...notListed(report),
          "",
        ].join("\n"),
  );
  if (report.rejected_count > 0) process.exitCode = 1;
}

async function bodacc(file: string): Promise<void> {
  const report = await importBodaccFile(deps, file, "import:bodacc", {
    onProgress: (progress, companies) =>
      process.stderr.write(
        `${tty ? "\r" : ""}${progress.read} records, ${companies} companies known${tty ? " " : "\n"}`,
      ),
  });
  if (tty && report.read >= 10_000) process.stderr.write("\n");
  const { period, rejected, skipped } = report;
  process.stdout.write(
    values.json
      ? `${JSON.stringify(report, null, 2)}\n`
      : [
          `${report.read} records${period ? ` published ${period.from} to ${period.to}` : ""}: ${report.matched} merchants matched, ${report.updated} updated, ${report.archived} archived, ${report.unchanged} unchanged, ${report.rejected_count} rejected`,
          `skipped: ${
            Object.entries(skipped)
              .map(([reason, count]) => `${reason} ${count}`)
              .join(", ") || "none"
          }`,
          ...rejected.map(
            (item) =>
              `record ${item.record}${item.line === null ? "" : ` (line ${item.line})`}: ${printable(item.error)}`,
          ),
          ...notListed(report),
          "",
        ].join("\n"),
  );
  if (report.rejected_count > 0) process.exitCode = 1;
}

/** A file refused or unreadable, as one line naming it and the line at fault; null for anything else. */
function refusal(error: unknown): string | null {
  const at = (file: string, line: number | null) => `${file}${line === null ? "" : `, line ${line}`}`;
  if (error instanceof SireneFileError) {
    return `${at(`${OPTION[error.file]} ${error.path}`, error.line)}: ${printable(error.message)}`;
  }
  const file = positionals[1] as string;
  if (error instanceof BodaccFileError) return `${at(file, error.line)}: ${printable(error.message)}`;
  const fault = fileFault(error);
  return fault === null ? null : `${file}: ${printable(fault)}`;
}

/** Another process held the write lock past the wait: the catch-up would wait as long again. */
let lockHeldElsewhere = false;
try {
  if (source === "bodacc") await bodacc(positionals[1] as string);
  else await sirene(values.etablissements as string);
} catch (error) {
  if (isBusy(error)) {
    lockHeldElsewhere = true;
    process.stderr.write(`${lockHeldTooLong("import")}\n`);
    process.exitCode = 1;
  } else {
    const message = refusal(error);
    if (message === null) throw error;
    process.stderr.write(`import: ${message}\n`);
    process.exitCode = REFUSED;
  }
} finally {
  // The search index follows the store's change feed (src/search/embedded/follow.ts): what this
  // run wrote, and what an earlier run left unapplied, becomes searchable now (a serving server
  // follows the feed meanwhile). A failure here loses nothing: the feed keeps it for the next one.
  if (!lockHeldElsewhere) await catchUpSearchIndex(db, "import");
  db.$client.close();
}
