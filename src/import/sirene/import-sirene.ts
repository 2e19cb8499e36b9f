import { applyOfficialEstablishment } from "../../domain/merchants/apply-official-establishment.ts";
import type { MerchantLifecycleDeps } from "../../domain/merchants/merchant-registry.ts";
import type {
  OfficialEstablishment,
  OfficialLegalUnit,
  OfficialPosition,
} from "../../domain/merchants/official-establishment.ts";
import { tradeOf } from "../../domain/sectors.ts";
import { isValidSiret } from "../../domain/siret.ts";
import { csvRows } from "../csv.ts";
import { openText } from "../open-text.ts";
import {
  ESTABLISHMENT_COLUMNS,
  establishmentOf,
  GEO_COLUMNS,
  LEGAL_UNIT_COLUMNS,
  legalUnitOf,
  NAF_2025_COLUMN,
  placedAt,
  positionOf,
} from "./establishments.ts";

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
   * The file's date (YYYY-MM-DD), as the operator states it: the identity check of a row without
   * INSEE's processing date holds from it. Without it, such rows are skipped as `undated`.
   */
  fileDate?: string | null;
}

export interface SireneImportReport {
  read: number;
  created: number;
  updated: number;
  archived: number;
  unchanged: number;
  skipped: Record<string, number>;
  rejected: { line: number; error: string }[];
}

export interface SireneImportHooks {
  /** Called with each merchant the import created, updated or archived (to refresh a search index). */
  onChanged?: (abId: string) => void;
  /** Called every `every` rows read. */
  onProgress?: (report: SireneImportReport) => void;
  progressEvery?: number;
  /** Shows unreadable text of a file in a report (a terminal-safe rendering). */
  printable?: (text: string) => string;
}

/** Rows per transaction: a serving server waits at most a few tens of milliseconds for the write lock. */
const BATCH_ROWS = 250;

/**
 * Brings the registry in line with a SIRENE stock file, one establishment (one transaction) at a
 * time: the same file twice changes nothing the second time, so an import killed half-way is
 * resumed by running it again. Memory holds the companies and positions of the kept
 * establishments only (a first pass over the establishments names them).
 */
export async function importSireneStock(
  deps: MerchantLifecycleDeps,
  files: SireneImportFiles,
  actor: string,
  hooks: SireneImportHooks = {},
): Promise<SireneImportReport> {
  const establishments = () =>
    csvRows(openText(files.establishments), ESTABLISHMENT_COLUMNS, [...GEO_COLUMNS, NAF_2025_COLUMN]);
  const inDepartments = (inseeCode: string) =>
    !files.departments || files.departments.some((code) => inseeCode.startsWith(code));

  let legalUnits: Map<string, OfficialLegalUnit> | null = null;
  let positions: Map<string, OfficialPosition> | null = null;
  if (files.legalUnits || files.geo) {
    const wantedSirens = new Set<string>();
    const wantedSirets = new Set<string>();
    for await (const item of establishments()) {
      if ("error" in item) continue;
      const establishment = establishmentOf(item.row);
      if (establishment.active && establishment.public && tradeOf(establishment) !== undefined) {
        wantedSirens.add(establishment.siren);
        wantedSirets.add(establishment.siret);
      }
    }
    if (files.legalUnits) {
      legalUnits = new Map();
      for await (const item of csvRows(openText(files.legalUnits), LEGAL_UNIT_COLUMNS, [])) {
        if ("error" in item || !wantedSirens.has(item.row.siren ?? "")) continue;
        const unit = legalUnitOf(item.row);
        if (unit) legalUnits.set(unit.siren, unit);
      }
    }
    if (files.geo) {
      positions = new Map();
      for await (const item of csvRows(openText(files.geo), ["siret", ...GEO_COLUMNS], [])) {
        if ("error" in item || !wantedSirets.has(item.row.siret ?? "")) continue;
        const position = positionOf(item.row);
        if (position) positions.set(item.row.siret ?? "", position);
      }
    }
  }

  const report: SireneImportReport = {
    read: 0,
    created: 0,
    updated: 0,
    archived: 0,
    unchanged: 0,
    skipped: {},
    rejected: [],
  };
  const printable = hooks.printable ?? ((text: string) => JSON.stringify(text));
  const every = hooks.progressEvery ?? 10_000;
  // Rows are applied a few hundred per transaction: one commit each was most of an import's time.
  let batch: OfficialEstablishment[] = [];
  const apply = () => {
    const rows = batch;
    batch = [];
    const outcomes = deps.registry.inOneTransaction(() =>
      rows.map((establishment) => applyOfficialEstablishment(deps, establishment, actor)),
    );
    for (const outcome of outcomes) {
      if (outcome.kind === "skipped") report.skipped[outcome.reason] = (report.skipped[outcome.reason] ?? 0) + 1;
      else {
        report[outcome.kind] += 1;
        if (outcome.kind !== "unchanged") hooks.onChanged?.(outcome.abId);
      }
    }
  };
  try {
    for await (const item of establishments()) {
      report.read += 1;
      if (report.read % every === 0) hooks.onProgress?.(report);
      if ("error" in item) {
        report.rejected.push({ line: item.line, error: item.error });
        continue;
      }
      const read = establishmentOf(item.row);
      const establishment = {
        ...placedAt(read, positionOf(item.row) ?? positions?.get(read.siret) ?? null),
        legalUnit: legalUnits?.get(read.siren) ?? null,
        fileDate: files.fileDate ?? null,
      };
      if (!isValidSiret(establishment.siret)) {
        report.rejected.push({
          line: item.line,
          error: `siret: ${printable(establishment.siret)} is not a valid SIRET`,
        });
        continue;
      }
      if (!inDepartments(establishment.inseeCode)) {
        report.skipped.department = (report.skipped.department ?? 0) + 1;
        continue;
      }
      batch.push(establishment);
      if (batch.length >= BATCH_ROWS) apply();
    }
  } catch (error) {
    // A file cut short: what was read before the cut is applied, then the import stops.
    apply();
    throw error;
  }
  apply();
  return report;
}
