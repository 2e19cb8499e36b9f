/**
 * Imports from official French sources (docs/merchant-lifecycle.md). Safe beside a serving
 * server on the same DATA_DIR: each establishment is one transaction.
 *
 *   npm run import -- sirene --etablissements StockEtablissement_utf8.zip [--unites-legales StockUniteLegale_utf8.zip]
 *                            [--geo geo_siret_69.csv.gz] [--departments 69,75] [--json]
 *
 * SIRENE stock (INSEE, format 3.11, UTF-8 CSV with its header, as published: plain, zipped or
 * gzipped): active (A) and public (O) establishments of the trades the registry covers become
 * PROBATION merchants with their identity verified; known ones take the file's address and
 * activity; closed ones (F) archive their merchant. With the legal units file, a merchant takes
 * its company's name, legal form and creation date (and the company's age as an official signal;
 * the file is read for the companies of the kept establishments only). Positions come from
 * Etalab's geocoded files (`--geo`, or an establishments file that carries their columns); without
 * one, from the commune's centroid, marked as such. Ends with counts; rows it cannot read are
 * listed with their line numbers. The same file twice changes nothing the second time.
 * Exit status: 0 done, 1 some rows rejected, 2 usage.
 */
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config/config.ts";
import { CsvFormatError } from "../src/import/csv.ts";
import { OfficialFileError } from "../src/import/open-text.ts";
import { importSireneStock } from "../src/import/sirene/import-sirene.ts";
import { setLogLevel } from "../src/logging.ts";
import { createEmbeddedSearchIndex } from "../src/search/embedded/index.ts";
import { createCommuneLookup } from "../src/seed/communes.ts";
import { openDatabase } from "../src/store/db.ts";
import { createMerchantRegistryRepository } from "../src/store/merchant-registry-repository.ts";
import { printable } from "./terminal.ts";

const USAGE =
  "usage: npm run import -- sirene --etablissements FILE [--unites-legales FILE] [--geo FILE] [--departments 69,75] [--json]";
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
    json: { type: "boolean", default: false },
  },
});
if (positionals[0] !== "sirene" || positionals.length !== 1) usage("the source must be sirene");
if (!values.etablissements) usage("--etablissements FILE is required");
const departments = values.departments ? values.departments.split(",").map((code) => code.trim().toUpperCase()) : null;
if (departments?.some((code) => !/^(\d{2,3}|2A|2B)$/.test(code))) usage("--departments takes codes like 69,75,2A");

setLogLevel("warn");
const config = loadConfig();
const db = openDatabase(config.databaseFile);
const deps = { registry: createMerchantRegistryRepository(db), communes: createCommuneLookup(), now: () => new Date() };
const index = createEmbeddedSearchIndex(db);
const pending = new Set<string>();
const flushIndex = () => {
  if (pending.size > 0) index.refresh([...pending]);
  pending.clear();
};
const tty = process.stderr.isTTY === true;

try {
  const report = await importSireneStock(
    deps,
    {
      establishments: values.etablissements,
      legalUnits: values["unites-legales"] ?? null,
      geo: values.geo ?? null,
      departments,
    },
    "import:sirene",
    {
      printable,
      onChanged: (abId) => {
        pending.add(abId);
        if (pending.size >= 500) flushIndex();
      },
      onProgress: (progress) =>
        process.stderr.write(`${tty ? "\r" : ""}${progress.read} rows, ${progress.created} added${tty ? " " : "\n"}`),
    },
  );
  if (tty && report.read >= 10_000) process.stderr.write("\n");
  flushIndex();
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
          ...rejected.map((item) => `line ${item.line}: ${item.error}`),
          "",
        ].join("\n"),
  );
  if (rejected.length > 0) process.exitCode = 1;
} catch (error) {
  if (error instanceof CsvFormatError) {
    process.stderr.write(`import: ${values.etablissements}, line ${error.line}: ${error.message}\n`);
    process.exitCode = 1;
  } else if (error instanceof OfficialFileError) {
    process.stderr.write(`import: ${error.message}\n`);
    process.exitCode = 1;
  } else if ((error as NodeJS.ErrnoException).code === "ENOENT") {
    process.stderr.write(`import: cannot read ${(error as NodeJS.ErrnoException).path ?? values.etablissements}\n`);
    process.exitCode = 1;
  } else if (["Z_DATA_ERROR", "Z_BUF_ERROR"].includes(String((error as NodeJS.ErrnoException).code))) {
    process.stderr.write(`import: a compressed file is damaged or cut short (${(error as Error).message})\n`);
    process.exitCode = 1;
  } else {
    throw error;
  }
} finally {
  db.$client.close();
}
