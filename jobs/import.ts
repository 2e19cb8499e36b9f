/**
 * Imports from official French sources (docs/merchant-lifecycle.md). Safe beside a serving
 * server on the same DATA_DIR: each establishment is one transaction.
 *
 *   npm run import -- sirene --etablissements StockEtablissement_utf8.csv [--unites-legales StockUniteLegale_utf8.csv]
 *                            [--departments 69,75] [--json]
 *
 * SIRENE stock (INSEE, format 3.11, UTF-8 CSV with its header): active (A) and public (O)
 * establishments of the trades the registry covers become PROBATION merchants with their identity
 * verified; known ones take the file's address and activity; closed ones (F) archive their
 * merchant. With the legal units file, a merchant takes its company's name and creation date (the
 * file is read for the companies of the kept establishments only). Ends with counts; rows it cannot read are listed with their line numbers. The same
 * file twice changes nothing the second time. Exit status: 0 done, 1 some rows rejected, 2 usage.
 */
import { createReadStream } from "node:fs";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config/config.ts";
import {
  applyOfficialEstablishment,
  type OfficialOutcome,
} from "../src/domain/merchants/apply-official-establishment.ts";
import type { OfficialLegalUnit } from "../src/domain/merchants/official-establishment.ts";
import { trades } from "../src/domain/sectors.ts";
import { isValidSiret } from "../src/domain/siret.ts";
import { CsvFormatError, csvRows } from "../src/import/csv.ts";
import {
  ESTABLISHMENT_COLUMNS,
  establishmentOf,
  LEGAL_UNIT_COLUMNS,
  legalUnitOf,
} from "../src/import/sirene/establishments.ts";
import { setLogLevel } from "../src/logging.ts";
import { createEmbeddedSearchIndex } from "../src/search/embedded/index.ts";
import { createCommuneLookup } from "../src/seed/communes.ts";
import { openDatabase } from "../src/store/db.ts";
import { createMerchantRegistryRepository } from "../src/store/merchant-registry-repository.ts";
import { printable } from "./terminal.ts";

const USAGE =
  "usage: npm run import -- sirene --etablissements FILE [--unites-legales FILE] [--departments 69,75] [--json]";
function usage(message: string): never {
  process.stderr.write(`import: ${message}\n${USAGE}\n`);
  process.exit(2);
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    etablissements: { type: "string" },
    "unites-legales": { type: "string" },
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

const counts = { read: 0, created: 0, updated: 0, archived: 0, unchanged: 0 };
const skipped: Record<string, number> = {};
const rejected: { line: number; error: string }[] = [];
const tty = process.stderr.isTTY === true;

const establishments = () =>
  csvRows(createReadStream(values.etablissements as string, "utf8") as AsyncIterable<string>, ESTABLISHMENT_COLUMNS);

/**
 * The companies of the establishments the import keeps, read from the legal units file: a first
 * pass over the establishments names them, so memory holds those only (the national file has
 * tens of millions of companies).
 */
async function legalUnitsOfKept(file: string): Promise<Map<string, OfficialLegalUnit>> {
  const wanted = new Set<string>();
  for await (const item of establishments()) {
    if ("error" in item) continue;
    const establishment = establishmentOf(item.row);
    if (
      establishment.active &&
      establishment.public &&
      trades.some((trade) => trade.nafCode === establishment.nafCode)
    ) {
      wanted.add(establishment.siren);
    }
  }
  const units = new Map<string, OfficialLegalUnit>();
  for await (const item of csvRows(createReadStream(file, "utf8") as AsyncIterable<string>, LEGAL_UNIT_COLUMNS)) {
    if ("error" in item || !wanted.has(item.row.siren ?? "")) continue;
    const unit = legalUnitOf(item.row);
    if (unit) units.set(unit.siren, unit);
  }
  return units;
}

try {
  const legalUnits = values["unites-legales"] ? await legalUnitsOfKept(values["unites-legales"]) : null;
  const rows = establishments();
  for await (const item of rows) {
    counts.read += 1;
    if ("error" in item) {
      rejected.push({ line: item.line, error: item.error });
      continue;
    }
    const read = establishmentOf(item.row);
    const establishment = { ...read, legalUnit: legalUnits?.get(read.siren) ?? null };
    if (!isValidSiret(establishment.siret)) {
      rejected.push({ line: item.line, error: `siret: ${printable(establishment.siret)} is not a valid SIRET` });
      continue;
    }
    if (departments && !departments.some((code) => establishment.inseeCode.startsWith(code))) {
      skipped.department = (skipped.department ?? 0) + 1;
      continue;
    }
    const outcome: OfficialOutcome = applyOfficialEstablishment(deps, establishment, "import:sirene");
    if (outcome.kind === "skipped") skipped[outcome.reason] = (skipped[outcome.reason] ?? 0) + 1;
    else {
      counts[outcome.kind] += 1;
      if (outcome.kind !== "unchanged") pending.add(outcome.abId);
      if (pending.size >= 500) flushIndex();
    }
    if (counts.read % 10_000 === 0) {
      process.stderr.write(`${tty ? "\r" : ""}${counts.read} rows, ${counts.created} added${tty ? " " : "\n"}`);
    }
  }
  if (tty && counts.read >= 10_000) process.stderr.write("\n");
  flushIndex();
  const report = { ...counts, skipped, rejected };
  process.stdout.write(
    values.json
      ? `${JSON.stringify(report, null, 2)}\n`
      : [
          `${counts.read} rows: ${counts.created} added, ${counts.updated} updated, ${counts.archived} archived, ${counts.unchanged} unchanged, ${rejected.length} rejected`,
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
  } else if ((error as NodeJS.ErrnoException).code === "ENOENT") {
    process.stderr.write(`import: cannot read ${values.etablissements}\n`);
    process.exitCode = 1;
  } else {
    throw error;
  }
} finally {
  db.$client.close();
}
