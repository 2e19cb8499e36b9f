/**
 * Imports from official French sources (docs/merchant-lifecycle.md). Safe beside a serving
 * server on the same DATA_DIR: rows are written a batch per transaction, each begun IMMEDIATE
 * and waiting for the write lock as long as another process holds it; the search index follows
 * the store's change feed (the server's follower, and this job's catch-up when it ends).
 *
 *   npm run import -- sirene --etablissements StockEtablissement_utf8.zip --unites-legales StockUniteLegale_utf8.zip
 *                            [--geo geo_siret_69.csv.gz] [--departments 69,75] [--file-date 2026-11-01] [--json]
 *
 * SIRENE stock (INSEE, format 3.11, UTF-8 CSV with its header, as published: plain, zipped or
 * gzipped): active (A) and public (O) establishments of the trades the registry covers become
 * PROBATION merchants with their identity verified; known ones take the file's address and
 * activity; closed ones (F) archive their merchant. The legal units file gives each merchant its
 * company's name, legal form and creation date (and the company's age as an official signal; the
 * file is read for the companies of the kept establishments only): without it, a new establishment
 * has no name the files give and is skipped (name_unknown), known ones still follow their rows.
 * Names are INSEE's own, in its order (sign, usual name, company name); the identity check holds
 * from INSEE's processing of the row, or for a row without one from the file's date when
 * `--file-date` states it (else the row is skipped, undated); a check recorded later (npm run
 * verify) is never replaced by an older row's. Positions come from
 * Etalab's geocoded files (`--geo`, or an establishments file that carries their columns); without
 * one, from the commune's centroid, marked as such. Ends with counts; rows it cannot read are
 * listed with their line numbers. The same file twice changes nothing the second time.
 * Exit status: 0 done, 1 some rows rejected, 2 usage.
 *
 *   npm run import -- bodacc annonces-commerciales.jsonl [--json]
 *
 * BODACC (DILA's dataset annonces-commerciales, as its Opendatasoft API serves it: a records page,
 * /exports/json or /exports/jsonl; plain, gzipped or zipped): the merchants of each company
 * (SIREN) the file names record bodacc_clean, verified when no insolvency proceeding,
 * deregistration or sale of their business stands against them, failed with the announcement
 * otherwise; a deregistration archives them. Ends with counts: records read; merchants matched,
 * updated, archived, unchanged; records skipped by reason; records rejected with their number and
 * line. The same file twice changes nothing the second time. Exit status: 0 done, 1 some records
 * rejected (or the file unreadable), 2 usage.
 */
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config/config.ts";
import { importBodaccFile } from "../src/import/bodacc/import-bodacc.ts";
import { BodaccFileError } from "../src/import/bodacc/records.ts";
import { CsvFormatError } from "../src/import/csv.ts";
import { OfficialFileError } from "../src/import/open-text.ts";
import { importSireneStock } from "../src/import/sirene/import-sirene.ts";
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
          `${report.read} rows: ${report.created} added, ${report.updated} updated, ${report.archived} archived, ${report.unchanged} unchanged, ${rejected.length} rejected`,
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
          ...rejected.map((item) => `line ${item.line}: ${item.error}`),
          "",
        ].join("\n"),
  );
  if (rejected.length > 0) process.exitCode = 1;
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
          `${report.read} records${period ? ` published ${period.from} to ${period.to}` : ""}: ${report.matched} merchants matched, ${report.updated} updated, ${report.archived} archived, ${report.unchanged} unchanged, ${rejected.length} rejected`,
          `skipped: ${
            Object.entries(skipped)
              .map(([reason, count]) => `${reason} ${count}`)
              .join(", ") || "none"
          }`,
          ...rejected.map(
            (item) =>
              `record ${item.record}${item.line === null ? "" : ` (line ${item.line})`}: ${printable(item.error)}`,
          ),
          "",
        ].join("\n"),
  );
  if (rejected.length > 0) process.exitCode = 1;
}

/** Another process held the write lock past the wait: the catch-up would wait as long again. */
let lockHeldElsewhere = false;
try {
  if (source === "bodacc") await bodacc(positionals[1] as string);
  else await sirene(values.etablissements as string);
} catch (error) {
  if (error instanceof CsvFormatError) {
    process.stderr.write(`import: ${values.etablissements}, line ${error.line}: ${error.message}\n`);
    process.exitCode = 1;
  } else if (error instanceof BodaccFileError) {
    const file = positionals[1] as string;
    process.stderr.write(`import: ${file}${error.line === null ? "" : `, line ${error.line}`}: ${error.message}\n`);
    process.exitCode = 1;
  } else if (error instanceof OfficialFileError) {
    process.stderr.write(`import: ${error.message}\n`);
    process.exitCode = 1;
  } else if ((error as NodeJS.ErrnoException).code === "ENOENT") {
    process.stderr.write(
      `import: cannot read ${(error as NodeJS.ErrnoException).path ?? values.etablissements ?? positionals[1]}\n`,
    );
    process.exitCode = 1;
  } else if (["Z_DATA_ERROR", "Z_BUF_ERROR"].includes(String((error as NodeJS.ErrnoException).code))) {
    process.stderr.write(`import: a compressed file is damaged or cut short (${(error as Error).message})\n`);
    process.exitCode = 1;
  } else if (isBusy(error)) {
    lockHeldElsewhere = true;
    process.stderr.write(`${lockHeldTooLong("import")}\n`);
    process.exitCode = 1;
  } else {
    throw error;
  }
} finally {
  // The search index follows the store's change feed (src/search/embedded/follow.ts): what this
  // run wrote, and what an earlier run left unapplied, becomes searchable now (a serving server
  // follows the feed meanwhile). A failure here loses nothing: the feed keeps it for the next one.
  if (!lockHeldElsewhere) await catchUpSearchIndex(db, "import");
  db.$client.close();
}
