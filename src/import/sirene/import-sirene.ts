import {
  applyOfficialEstablishment,
  countOutcome,
  type OfficialCounts,
  officialCounts,
} from "../../domain/merchants/apply-official-establishment.ts";
import { decideInRegistry, type MerchantLifecycleDeps } from "../../domain/merchants/merchant-registry.ts";
import type {
  OfficialEstablishment,
  OfficialLegalUnit,
  OfficialPosition,
} from "../../domain/merchants/official-establishment.ts";
import { tradeOf } from "../../domain/sectors.ts";
import { isValidSiret } from "../../domain/siret.ts";
import { CsvFormatError, csvRows, detached, MAX_RECORD_CHARS } from "../csv.ts";
import { afterFirstLineCheck, fileFault, openText, type ReadMeter } from "../open-text.ts";
import { addRejection, quoted, type RejectionList } from "../rejections.ts";
import {
  ESTABLISHMENT_COLUMNS,
  establishmentOf,
  GEO_COLUMNS,
  LEGAL_UNIT_COLUMNS,
  LEGAL_UNIT_PROCESSED_COLUMN,
  legalUnitOf,
  NAF_2025_COLUMN,
  PERIOD_START_COLUMN,
  placedAt,
  positionOf,
  processedAtOf,
} from "./establishments.ts";
import { layoutRefusal, type SireneFileKind } from "./layout.ts";
import { refusedRow } from "./row-check.ts";

export interface SireneImportFiles {
  /** StockEtablissement (CSV, gzipped or zipped), or a geocoded establishments file (its columns plus longitude, latitude, geo_score, geo_type). */
  establishments: string;
  /** StockUniteLegale: the companies' names, legal forms and creation dates. */
  legalUnits?: string | null;
  /** A geocoded establishments file (per department, as Etalab publishes them), read for its coordinates. */
  geo?: string | null;
  /** Keep only establishments of these departments (INSEE commune code prefixes: 69, 2A, 971). */
  departments?: string[] | null;
  /**
   * The stock's date (YYYY-MM-DD), as the operator states it: every active establishment of the
   * stock is identity-verified as of it. Without it, the stock's date is the latest INSEE
   * processing date in the establishments file.
   */
  fileDate?: string | null;
}

/** A row set aside: which file, its line, why. */
export interface SireneRejection {
  file: SireneFileKind;
  line: number;
  error: string;
}

export interface SireneImportReport extends RejectionList<SireneRejection>, OfficialCounts {
  read: number;
  /** The date the stock confirms its establishments as of (ISO): `--file-date`, else its latest processing date. */
  stock_date: string | null;
}

/**
 * A file the import cannot read on (not a layout it reads, damaged, cut short, missing): which of
 * the three files, its path, and the line at fault when there is one. What was read before the
 * fault has been applied.
 */
export class SireneFileError extends Error {
  override name = "SireneFileError";
  readonly file: SireneFileKind;
  readonly path: string;
  readonly line: number | null;
  constructor(file: SireneFileKind, path: string, line: number | null, message: string) {
    super(message);
    this.file = file;
    this.path = path;
    this.line = line;
  }
}

/** Why reading a file failed, said of that file; null for a failure that is not the file's (a bug). */
function fileError(file: SireneFileKind, path: string, error: unknown): SireneFileError | null {
  if (error instanceof SireneFileError) return error;
  if (error instanceof CsvFormatError) return new SireneFileError(file, path, error.line, error.message);
  const fault = fileFault(error);
  return fault === null ? null : new SireneFileError(file, path, null, fault);
}

/**
 * The rows of one of the files, its header checked first for a layout the import does not read
 * (src/import/sirene/layout.ts); any failure to read it on is a SireneFileError naming the file.
 */
async function* rowsOf(
  file: SireneFileKind,
  path: string,
  required: readonly string[],
  optional: readonly string[],
  meter: ReadMeter | undefined,
): AsyncGenerator<{ line: number; row: Record<string, string> } | { line: number; error: string }> {
  try {
    const checked = afterFirstLineCheck(
      openText(path, meter),
      (header) => {
        const refusal = layoutRefusal(header, file);
        if (refusal) throw new SireneFileError(file, path, 1, refusal);
      },
      MAX_RECORD_CHARS,
    );
    yield* csvRows(checked, required, optional);
  } catch (error) {
    throw fileError(file, path, error) ?? error;
  }
}

export interface SireneImportHooks {
  /** Called with each merchant the import created, updated, archived, closed or confirmed (to refresh a search index). */
  onChanged?: (abId: string) => void;
  /** Called every `every` rows read. */
  onProgress?: (report: SireneImportReport) => void;
  progressEvery?: number;
  /** Told the files the import reads, in order, and the bytes read of them (a long import's progress). */
  meter?: ReadMeter;
  /** Shows unreadable text of a file in a report (a terminal-safe rendering). */
  printable?: (text: string) => string;
}

/** Rows per transaction: a serving server waits at most a few tens of milliseconds for the write lock. */
const BATCH_ROWS = 250;

/**
 * Brings the registry in line with a SIRENE stock file, a few hundred establishments per
 * transaction: the same file twice changes nothing the second time, so an import killed half-way
 * is resumed by running it again. Every active establishment of the stock is identity-verified as
 * of the stock's date (`fileDate`, else the latest INSEE processing date in the file: the pass
 * over the establishments that names the companies and places to keep reads it, and a stock read
 * without legal units or geocoded file is read once for it first); a known one the stock lists
 * unchanged is confirmed as of that date. Memory holds the companies and positions of the kept
 * establishments only (a first pass over the establishments names them). Each file's header is
 * checked for a layout the import reads before it is parsed, and each row is cleaned and held to
 * the declarations' limits before anything reads it (row-check.ts); a row that cannot be taken is
 * counted and, among the first REJECTIONS_KEPT, listed with its file and line. A file that cannot
 * be read on throws a SireneFileError naming it.
 */
export async function importSireneStock(
  deps: MerchantLifecycleDeps,
  files: SireneImportFiles,
  actor: string,
  hooks: SireneImportHooks = {},
): Promise<SireneImportReport> {
  const establishments = () =>
    rowsOf(
      "establishments",
      files.establishments,
      ESTABLISHMENT_COLUMNS,
      [...GEO_COLUMNS, NAF_2025_COLUMN, PERIOD_START_COLUMN],
      hooks.meter,
    );
  // What is read, in order: a first pass over the establishments names the companies and places
  // to keep when there are other files to read them from, and reads the stock's date when the
  // operator did not state it; then those files; then the establishments.
  const namesFirst = Boolean(files.legalUnits || files.geo);
  const firstPass = namesFirst || !files.fileDate;
  hooks.meter?.plan([
    ...(firstPass ? [files.establishments] : []),
    ...(files.legalUnits ? [files.legalUnits] : []),
    ...(files.geo ? [files.geo] : []),
    files.establishments,
  ]);
  const inDepartments = (inseeCode: string) =>
    !files.departments || files.departments.some((code) => inseeCode.startsWith(code));

  const report: SireneImportReport = {
    read: 0,
    stock_date: files.fileDate ? `${files.fileDate}T00:00:00.000Z` : null,
    ...officialCounts(),
    rejected: [],
    rejected_count: 0,
  };
  const reject = (file: SireneFileKind, line: number, error: string) => addRejection(report, { file, line, error });

  let legalUnits: Map<string, OfficialLegalUnit> | null = null;
  let positions: Map<string, OfficialPosition> | null = null;
  const wantedSirens = new Set<string>();
  const wantedSirets = new Set<string>();
  if (firstPass) {
    // The stock's date, when not stated: its latest processing date.
    let latest: string | null = null;
    for await (const item of establishments()) {
      if ("error" in item) continue;
      if (!files.fileDate) {
        const processed = processedAtOf(item.row.dateDernierTraitementEtablissement ?? "");
        if (processed !== null && (latest === null || processed > latest)) latest = processed;
      }
      if (!namesFirst || refusedRow(item.row)) continue;
      const establishment = establishmentOf(item.row);
      if (establishment.active && establishment.public && tradeOf(establishment) !== undefined) {
        wantedSirens.add(establishment.siren);
        wantedSirets.add(detached(establishment.siret));
      }
    }
    if (!files.fileDate) report.stock_date = latest;
  }
  if (namesFirst) {
    if (files.legalUnits) {
      legalUnits = new Map();
      for await (const item of rowsOf(
        "legalUnits",
        files.legalUnits,
        LEGAL_UNIT_COLUMNS,
        [LEGAL_UNIT_PROCESSED_COLUMN],
        hooks.meter,
      )) {
        if ("error" in item) {
          reject("legalUnits", item.line, item.error);
          continue;
        }
        if (!wantedSirens.has(item.row.siren ?? "")) continue;
        const refusal = refusedRow(item.row);
        if (refusal) {
          reject("legalUnits", item.line, refusal);
          continue;
        }
        const unit = legalUnitOf(item.row);
        // Kept for the whole run: its text copied out of the file's chunk (detached).
        if (unit) legalUnits.set(unit.siren, { ...unit, legalName: detached(unit.legalName) });
      }
    }
    if (files.geo) {
      positions = new Map();
      for await (const item of rowsOf("geo", files.geo, ["siret", "longitude", "latitude"], GEO_COLUMNS, hooks.meter)) {
        if ("error" in item) {
          reject("geo", item.line, item.error);
          continue;
        }
        if (!wantedSirets.has(item.row.siret ?? "")) continue;
        const refusal = refusedRow(item.row);
        if (refusal) {
          reject("geo", item.line, refusal);
          continue;
        }
        const position = positionOf(item.row);
        if (position) {
          positions.set(detached(item.row.siret ?? ""), {
            ...position,
            label: position.label ? detached(position.label) : null,
          });
        }
      }
    }
  }

  const printable = hooks.printable ?? ((text: string) => JSON.stringify(text));
  const every = hooks.progressEvery ?? 10_000;
  // Rows are applied a few hundred per transaction: one commit each was most of an import's time.
  let batch: OfficialEstablishment[] = [];
  const apply = async () => {
    const rows = batch;
    batch = [];
    if (rows.length === 0) return;
    const outcomes = await decideInRegistry(deps, { sirets: rows.map((row) => row.siret) }, (decision) =>
      rows.map((establishment) =>
        decision.registry.row(() => applyOfficialEstablishment(decision, establishment, actor)),
      ),
    );
    for (const outcome of outcomes) {
      const written = countOutcome(report, outcome);
      if (written) hooks.onChanged?.(written);
    }
  };
  try {
    for await (const item of establishments()) {
      report.read += 1;
      if (report.read % every === 0) hooks.onProgress?.(report);
      if ("error" in item) {
        reject("establishments", item.line, item.error);
        continue;
      }
      const refusal = refusedRow(item.row);
      if (refusal) {
        reject("establishments", item.line, refusal);
        continue;
      }
      const read = establishmentOf(item.row);
      const establishment = {
        ...placedAt(read, positionOf(item.row) ?? positions?.get(read.siret) ?? null),
        legalUnit: legalUnits?.get(read.siren) ?? null,
        asOf: report.stock_date,
      };
      if (!isValidSiret(establishment.siret)) {
        reject("establishments", item.line, `siret: ${printable(quoted(establishment.siret))} is not a valid SIRET`);
        continue;
      }
      if (!inDepartments(establishment.inseeCode)) {
        report.skipped.department = (report.skipped.department ?? 0) + 1;
        continue;
      }
      batch.push(establishment);
      if (batch.length >= BATCH_ROWS) await apply();
    }
  } catch (error) {
    // A file cut short: what was read before the cut is applied, then the import stops.
    await apply();
    throw error;
  }
  await apply();
  return report;
}
