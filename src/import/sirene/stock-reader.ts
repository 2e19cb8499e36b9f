import { createHash } from "node:crypto";
import { readFileSync, rmSync, statSync } from "node:fs";
import type { Readable } from "node:stream";
import { Worker } from "node:worker_threads";
import type {
  OfficialEstablishment,
  OfficialLegalUnit,
  OfficialPosition,
} from "../../domain/merchants/official-establishment.ts";
import { isValidSiret } from "../../domain/siret.ts";
import { MERCHANT_TEXT_LIMITS } from "../../schemas/merchant-declaration.ts";
import { CsvFormatError, CsvScanner, fieldText, headerColumns, MAX_RECORD_BYTES, type ScannedRecord } from "../csv.ts";
import { carriesChecksum, fileFault, openBytes, ReadMeter } from "../open-text.ts";
import { addRejection, type RejectionList } from "../rejections.ts";
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
import {
  allWithin,
  coveredActivity,
  fieldIs,
  nineDigits,
  SiretFilter,
  siretNumber,
  TIMESTAMP_BYTES,
  timestampAt,
} from "./raw-fields.ts";
import { refusedRow } from "./row-check.ts";
import { mergedRuns, ownFolder, SortedSpill, type SpilledRuns } from "./sorted-spill.ts";

/*
 * The reading side of the SIRENE stock import (import-sirene.ts applies what it sends, on the main
 * thread; this runs in a worker thread beside it, stock-worker.ts). The stock is read through twice
 * and its companies once, each file streamed and never held:
 *
 *   1. the establishments, checked whole (a zip's CRC-32, a CSV cut inside a field) before anything
 *      is applied, naming the companies (and, with --geo, the establishments) to read, and, without
 *      --file-date, the stock's date: the latest processing date of its rows (every row's, from
 *      its bytes), as of which its active establishments are identity-verified;
 *   2. the legal units (StockUniteLegale), read at the same time as pass 1 by a thread of their
 *      own (units-worker.ts, the other core): every company's few fields packed and sorted by
 *      SIREN on disk (the companies wanted are not known yet), its lines set aside kept to be
 *      counted once they are; the applying pass walks them forward beside the rows (CompanyWalk);
 *   3. with --geo, the positions of those establishments;
 *   4. the establishments again: each row is read from a few columns' bytes first (raw-fields.ts),
 *      and one the domain would set aside for sure (closed and unknown to the registry, of a trade
 *      the registry does not cover) is counted with the domain's reason and goes no further; the
 *      others are read whole, checked (row-check.ts) and sent in batches, with their company,
 *      place and the stock's date, to be applied in file order.
 */

/** What the import asks of the reading (structured-cloned to the worker). */
export interface StockReadingOptions {
  establishments: string;
  legalUnits: string | null;
  geo: string | null;
  departments: string[] | null;
  /** The stock's date as the operator states it (YYYY-MM-DD); null: the latest processing date in the file. */
  fileDate: string | null;
  /**
   * Set aside from its bytes a row the domain would set aside for sure, and give each row sent a
   * digest (the second run's fast path). False: every row is read whole and sent to the domain
   * (the reference the fast path is tested against).
   */
  fast: boolean;
  /** The registry's SIRETs (archived ones included), as SiretFilter bits: a closing row they may hold goes to the domain. */
  registrySirets: Uint32Array | null;
  /** Rows a batch holds at most. */
  batchRows: number;
  /** Where the rows kept are sorted by SIRET (a folder of the reading's own is made inside, and removed after). */
  sortDir: string;
}

/** A row for the domain, with its digest (the rules' fingerprint and the row as read) when the reading is fast. */
export interface RowToApply {
  establishment: OfficialEstablishment;
  digest: string | null;
  /** The registry may hold its SIRET (false: it does not, no digest can be recorded for it). */
  known: boolean;
}

/** Why a row was set aside before the domain: said on the main thread (its texts are rendered there). */
export type RowRejection =
  | { file: SireneFileKind; line: number; kind: "text"; text: string }
  | { file: SireneFileKind; line: number; kind: "invalid_siret"; siret: string };

/** What was read so far, as a report counts it. */
export interface ReadCounts {
  read: number;
  skipped: Record<string, number>;
}

export type ReadingPhase = "checking" | "companies" | "places" | "applying";

export interface ReadingProgress {
  phase: ReadingPhase;
  /** Bytes read of the files, as they are on disk, against the sum of their sizes (every pass counted). */
  bytesRead: number;
  totalBytes: number;
  /** The file being read. */
  file: string | null;
  /** Establishment rows read in the applying pass. */
  rows: number;
}

/** Where the reading sends what it read; `rows` resolves when the reading may go on. */
export interface ReadingSink {
  /** The stock's date (ISO), once the first pass knows it (before any row is sent); null: none in the file. */
  dated(stockDate: string | null): void;
  rows(batch: RowToApply[], counts: ReadCounts, progress: ReadingProgress): Promise<void>;
  progress(progress: ReadingProgress): void;
}

export interface ReadingResult {
  counts: ReadCounts;
  rejections: RejectionList<RowRejection>;
  progress: ReadingProgress;
}

/**
 * A file the import cannot read on (not a layout it reads, damaged, cut short, missing): which of
 * the three files, its path, and the line at fault when there is one. The establishments are read
 * through once before anything is applied, so a fault of any file leaves the registry as it was.
 * Thrown in the reading thread, said to the main thread as data and thrown there again.
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

/**
 * The digest's fingerprint of the rules a row's meaning depends on beside the row itself: the
 * trades table and the commune reference (a new version of either can change what a row brings),
 * and this number, moved when the domain's reading of a row changes (apply-official-establishment.ts).
 */
export const ROW_RULES_VERSION = 2;

const SHORTEST_LIMIT = Math.min(...Object.values(MERCHANT_TEXT_LIMITS));
const PROGRESS_EVERY_MS = 200;

/** A reading thread's failure, said to the thread that started it as data (an error is not cloned whole). */
export interface ReadingFailure {
  fileError: { file: SireneFileError["file"]; path: string; line: number | null; message: string } | null;
  message: string;
  stack: string | null;
}

export function failureOf(error: unknown): ReadingFailure {
  return {
    fileError:
      error instanceof SireneFileError
        ? { file: error.file, path: error.path, line: error.line, message: error.message }
        : null,
    message: error instanceof Error ? error.message : String(error),
    stack: error instanceof Error ? (error.stack ?? null) : null,
  };
}

/** The error a failure said stands for, thrown again where it is heard. */
export function errorOf(failure: ReadingFailure): Error {
  const { fileError } = failure;
  return fileError
    ? new SireneFileError(fileError.file, fileError.path, fileError.line, fileError.message)
    : Object.assign(new Error(failure.message), { stack: failure.stack ?? undefined });
}

/** What the companies' thread reads (units-worker.ts), and the folder its spills are made in (removed by the reading). */
export interface UnitsReadingOptions {
  legalUnits: string;
  folder: string;
  /**
   * A company whose columns are plain ASCII, within every limit and already spaced is packed from
   * its bytes (UnitPacker.fromBytes). False: every company read as text, through refusedRow and
   * legalUnitOf (the reference the bytes are tested against).
   */
  fromBytes: boolean;
}

/** The companies' file read whole (spillLegalUnits): spilled, for the applying pass to walk. */
export interface UnitsSpilled {
  /** Each company of a nine-digit SIREN the file names, keyed by SIREN, packed (UnitPacker); one listed twice: both, in file order. */
  units: SpilledRuns;
  /** Those of another SIREN (a damaged column), in file order: [its SIREN's text as read, the unit] as JSON. */
  odd: SpilledRuns;
  /** The lines set aside, by line: [the company's SIREN (null: set aside whoever it is), the reason] as JSON. */
  refusals: SpilledRuns;
  bytesRead: number;
}

/** Run bytes of the spills of odd companies and of lines set aside (few, or none, in a sound file). */
const SMALL_RUN_BYTES = 1 << 20;

/**
 * Reads the legal units file through, in the companies' thread beside the first pass: the
 * companies wanted are not known yet, so every one's fields are kept, on disk (a national file's
 * 30 million: about a gigabyte and a half), and a line the old reading would only have set aside
 * for a wanted company is kept with its SIREN, to be counted (or not) once they are known.
 */
export async function spillLegalUnits(
  options: UnitsReadingOptions,
  told: (bytesRead: number) => void,
): Promise<UnitsSpilled> {
  const meter = new ReadMeter();
  meter.plan([options.legalUnits]);
  const units = new SortedSpill(options.folder);
  const odd = new SortedSpill(options.folder, SMALL_RUN_BYTES);
  const refusals = new SortedSpill(options.folder, SMALL_RUN_BYTES);
  const refuse = (line: number, siren: number | string | null, text: string) =>
    refusals.add(line, Buffer.from(JSON.stringify([siren, text]), "utf8"));
  const packer = new UnitPacker();
  let lastTold = 0;
  let records = 0;
  try {
    await readFile("legalUnits", options.legalUnits, LEGAL_UNIT_COLUMNS, [LEGAL_UNIT_PROCESSED_COLUMN], meter, {
      header: () => undefined,
      record: (record, columns) => {
        // The clock read every thousand records only (30 million of them).
        if (++records % 1024 === 0 && performance.now() - lastTold >= PROGRESS_EVERY_MS) {
          lastTold = performance.now();
          told(meter.bytesRead);
        }
        if (record.oversized) {
          refuse(record.line, null, oversized());
          return;
        }
        if (emptyLine(record)) return;
        if (record.count !== columns.width) {
          refuse(record.line, null, widthError(record, columns));
          return;
        }
        const siren = nineDigits(record, columns.siren);
        if (siren >= 0 && options.fromBytes) {
          // Most companies: no string made (30 million of them, all read).
          const packed = packer.fromBytes(record, columns);
          if (packed === null) return;
          if (packed !== undefined) {
            units.add(siren, packed);
            return;
          }
        }
        const row = rowOf(record, columns.kept);
        const refusal = refusedRow(row);
        if (refusal) {
          refuse(record.line, siren >= 0 ? siren : fieldText(record, columns.siren), refusal);
          return;
        }
        const unit = legalUnitOf(row);
        // None (not public, no name): the company is not named, and an earlier listing of it stays.
        if (!unit) return;
        if (siren >= 0) units.add(siren, packer.pack(unit));
        else odd.add(0, Buffer.from(JSON.stringify([fieldText(record, columns.siren), unit]), "utf8"));
      },
    });
    return { units: units.finish(), odd: odd.finish(), refusals: refusals.finish(), bytesRead: meter.bytesRead };
  } catch (error) {
    units.close();
    odd.close();
    refusals.close();
    throw error;
  }
}

/** What the companies' thread says (units-worker.ts). */
export type UnitsMessage =
  | { type: "bytes"; bytesRead: number }
  | { type: "done"; spilled: UnitsSpilled }
  | { type: "failed"; failure: ReadingFailure };

/** The companies' reading, started beside the first pass. */
interface CompaniesBeside {
  /** Settles when the file is read (or could not be): awaited after the first pass. */
  spilled: Promise<UnitsSpilled>;
  bytesRead(): number;
  /** Ends the thread (if it still reads) and removes its spills. */
  stop(): Promise<void>;
}

function readCompaniesBeside(legalUnits: string, sortDir: string): CompaniesBeside {
  const folder = ownFolder(sortDir);
  const reading: UnitsReadingOptions = { legalUnits, folder, fromBytes: true };
  const worker = new Worker(new URL("./units-worker.ts", import.meta.url), { workerData: { unitsReading: reading } });
  let bytesRead = 0;
  const spilled = new Promise<UnitsSpilled>((resolve, reject) => {
    worker.on("message", (message: UnitsMessage) => {
      if (message.type === "bytes") bytesRead = message.bytesRead;
      else if (message.type === "done") {
        bytesRead = message.spilled.bytesRead;
        resolve(message.spilled);
      } else reject(errorOf(message.failure));
    });
    worker.on("error", reject);
    // After "done", a settled promise: nothing more.
    worker.on("exit", (code) => reject(new Error(`the SIRENE companies' reading thread stopped (exit code ${code})`)));
  });
  // Said when awaited, after the first pass (a fault of the establishments' file is said first).
  spilled.catch(() => undefined);
  return {
    spilled,
    bytesRead: () => bytesRead,
    async stop() {
      await worker.terminate();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

export async function readStock(options: StockReadingOptions, sink: ReadingSink): Promise<ReadingResult> {
  const meter = new ReadMeter();
  const files = options;
  meter.plan([
    files.establishments,
    ...(files.legalUnits ? [files.legalUnits] : []),
    ...(files.geo ? [files.geo] : []),
    files.establishments,
  ]);
  const counts: ReadCounts = { read: 0, skipped: {} };
  const rejections: RejectionList<RowRejection> = { rejected: [], rejected_count: 0 };
  let phase: ReadingPhase = "checking";
  let rows = 0;
  let companies: CompaniesBeside | null = null;
  /** Bytes read of the files, the companies' thread's included. */
  const bytesRead = () => meter.bytesRead + (companies?.bytesRead() ?? 0);
  const progress = (): ReadingProgress => ({
    phase,
    bytesRead: bytesRead(),
    totalBytes: meter.totalBytes,
    file: meter.current,
    rows,
  });
  let lastProgress = 0;
  /** Says where the reading is, a few times a second at most (`at`: the applying phase's own measure). */
  const tick = (at: () => ReadingProgress = progress) => {
    const now = performance.now();
    if (now - lastProgress < PROGRESS_EVERY_MS) return;
    lastProgress = now;
    sink.progress(at());
  };
  const reject = (rejection: RowRejection) => addRejection(rejections, rejection);
  const skip = (reason: string) => {
    counts.skipped[reason] = (counts.skipped[reason] ?? 0) + 1;
  };
  const inDepartments = (inseeCode: string) =>
    !files.departments || files.departments.some((code) => inseeCode.startsWith(code));

  // 1. The establishments, read and checked whole; the rows that may go to the domain kept in
  //    SIRET order (sorted-spill.ts); the companies (and places) to read; the stock's date.
  const wanted = new SirenSet();
  const wantedSirets = files.geo ? new Set<string>() : null;
  const latest = files.fileDate ? null : new LatestTimestamp();
  const registry = options.registrySirets ? new SiretFilter(options.registrySirets) : null;
  // The rows kept so far: a closing row the registry does not hold goes to the domain when this
  // stock brought its SIRET in before it (a filter: a false "may hold" only sends a row more).
  const keptSirets = options.fast ? SiretFilter.forCount(KEPT_SIRETS_EXPECTED) : null;
  const applying = { registry, sent: keptSirets, inDepartments: files.departments ? inDepartments : null };
  const spill = new SortedSpill(options.sortDir);
  // The companies whose SIREN is not the first nine digits of their rows' SIRETs (a damaged
  // column): the walk beside the rows cannot find them, they are looked up before it.
  const strays = files.legalUnits ? new Set<number>() : null;
  let walk: CompanyWalk | null = null;
  try {
    if (files.legalUnits) companies = readCompaniesBeside(files.legalUnits, options.sortDir);
    const packer = new RowPacker();
    /** The names of the columns a row keeps, in the order they are packed. */
    let keptNames: string[] = [];
    await readFile("establishments", files.establishments, ESTABLISHMENT_COLUMNS, ESTABLISHMENT_OPTIONAL, meter, {
      header: () => undefined,
      record: (record, columns) => {
        if (record.oversized) {
          counts.read += 1;
          rows += 1;
          reject({ file: "establishments", line: record.line, kind: "text", text: oversized() });
          return;
        }
        if (emptyLine(record)) return;
        counts.read += 1;
        rows += 1;
        tick();
        if (record.count !== columns.width) {
          reject({ file: "establishments", line: record.line, kind: "text", text: widthError(record, columns) });
          return;
        }
        latest?.read(record, columns.processed);
        if (keptNames.length === 0) keptNames = columns.kept.map(([name]) => name);
        if (options.fast) {
          const decided = quickly(record, columns, applying);
          if (decided !== null && decided !== WANTED) {
            skip(decided);
            return;
          }
        }
        const siret = siretNumber(record, columns.siret);
        // A SIRET of another shape sorts last (the domain's reading sets it aside, with its line).
        const key = siret !== null && siret >= 0 ? siret : Number.MAX_VALUE;
        // Kept (or not sure): its company is read. A superset of the companies the domain asks for.
        const siren = nineDigits(record, columns.siren);
        if (siren >= 0) {
          wanted.add(siren);
          if (strays && !walked(siren, key)) strays.add(siren);
        } else {
          const text = fieldText(record, columns.siren);
          wanted.addOdd(spaced(text));
          // Its SIREN as the domain reads it (cleaned, spaced) may still be nine digits: these.
          const digits = text.replace(/[^0-9]/g, "");
          if (strays && digits.length === 9) strays.add(Number(digits));
        }
        if (wantedSirets) wantedSirets.add(spaced(fieldText(record, columns.siret)));
        if (siret !== null && siret >= 0) keptSirets?.add(siret);
        spill.add(key, packer.pack(record, columns.kept));
      },
    });
    wanted.seal();
    const stockDate = files.fileDate ? `${files.fileDate}T00:00:00.000Z` : (latest?.instant() ?? null);
    sink.dated(stockDate);

    // 2. Their companies, read meanwhile: the lines set aside of the wanted ones (as the file lists
    //    them), those of an odd SIREN, and the walk beside the rows.
    if (companies) {
      phase = "companies";
      const waiting = setInterval(() => sink.progress(progress()), PROGRESS_EVERY_MS);
      let spilled: UnitsSpilled;
      try {
        spilled = await companies.spilled;
      } finally {
        clearInterval(waiting);
      }
      for (const { key: line, record } of mergedRuns(spilled.refusals.runs)) {
        const [siren, text] = JSON.parse(record.toString("utf8")) as [number | string | null, string];
        if (siren === null || (typeof siren === "number" ? wanted.indexOf(siren) >= 0 : wanted.hasOdd(siren))) {
          reject({ file: "legalUnits", line, kind: "text", text });
        }
      }
      walk = new CompanyWalk(wanted, spilled, strays ?? new Set());
    }

    // 3. Their places.
    let positions: Map<string, OfficialPosition> | null = null;
    if (files.geo && wantedSirets) {
      phase = "places";
      const found = new Map<string, OfficialPosition>();
      positions = found;
      await readFile("geo", files.geo, ["siret", "longitude", "latitude"], GEO_COLUMNS, meter, {
        header: () => undefined,
        record: (record, columns) => {
          tick();
          if (record.oversized) {
            reject({ file: "geo", line: record.line, kind: "text", text: oversized() });
            return;
          }
          if (emptyLine(record)) return;
          if (record.count !== columns.width) {
            reject({ file: "geo", line: record.line, kind: "text", text: widthError(record, columns) });
            return;
          }
          if (!wantedSirets.has(fieldText(record, columns.siret))) return;
          const row = rowOf(record, columns.kept);
          const refusal = refusedRow(row);
          if (refusal) {
            reject({ file: "geo", line: record.line, kind: "text", text: refusal });
            return;
          }
          const position = positionOf(row);
          // Copied out of the chunk (a kept string must not hold the file's chunk: see csv.ts detached).
          if (position)
            found.set(detach(row.siret ?? ""), { ...position, label: position.label ? detach(position.label) : null });
        },
      });
    }

    // 4. The rows kept, in SIRET order, applied.
    phase = "applying";
    const fingerprint = options.fast ? rulesFingerprint() : "";
    // The rows sent so far: the registry may hold a SIRET this stock sent before (a row read twice).
    const sentSirets = options.fast ? SiretFilter.forCount(spill.count * 2) : null;
    const establishmentsRows = counts.read;
    const establishmentsBytes = statSync(files.establishments).size;
    const readBefore = bytesRead();
    let delivered = 0;
    // The rows sorted stand for a pass over the establishments' file (the meter planned it): the
    // rows and bytes of it their share of the rows kept stands for.
    const position = (): ReadingProgress => {
      const share = spill.count === 0 ? 1 : delivered / spill.count;
      return {
        phase,
        rows: Math.round(establishmentsRows * share),
        bytesRead: readBefore + Math.round(establishmentsBytes * share),
        totalBytes: meter.totalBytes,
        file: files.establishments,
      };
    };
    let batch: RowToApply[] = [];
    const send = async () => {
      if (batch.length === 0) return;
      const rowsNow = batch;
      batch = [];
      const at = position();
      // Rows read count as the rows sent stand for: a report's progress follows the application.
      await sink.rows(rowsNow, { read: at.rows, skipped: { ...counts.skipped } }, at);
    };
    for (const { key, record: packed } of spill.sorted()) {
      delivered += 1;
      const { line, row } = unpackRow(packed, keptNames);
      const refusal = refusedRow(row);
      if (refusal) {
        reject({ file: "establishments", line, kind: "text", text: refusal });
        continue;
      }
      const read = establishmentOf(row);
      const establishment: OfficialEstablishment = {
        ...placedAt(read, positionOf(row) ?? positions?.get(read.siret) ?? null),
        legalUnit: walk?.of(read.siren, key) ?? null,
        asOf: stockDate,
      };
      if (!isValidSiret(establishment.siret)) {
        reject({ file: "establishments", line, kind: "invalid_siret", siret: establishment.siret });
        continue;
      }
      if (!inDepartments(establishment.inseeCode)) {
        skip("department");
        continue;
      }
      const siret = Number(establishment.siret);
      const known = !registry || registry.mayHold(siret) || (sentSirets?.mayHold(siret) ?? true);
      sentSirets?.add(siret);
      batch.push({
        establishment,
        digest: options.fast ? digestOf(fingerprint, establishment) : null,
        known,
      });
      if (batch.length >= options.batchRows) await send();
      tick(position);
    }
    await send();
    return { counts, rejections, progress: position() };
  } finally {
    walk?.close();
    spill.close();
    await companies?.stop();
  }
}

/** What a SIRET's number is divided by to give its SIREN's. */
const SIRET_OF_SIREN = 100_000;

/** Whether a row of this SIREN, at this key of the SIRET order, finds its company by the walk: its SIRET begins with its SIREN. */
function walked(siren: number, key: number): boolean {
  return key !== Number.MAX_VALUE && Math.floor(key / SIRET_OF_SIREN) === siren;
}

/** The optional columns of the establishments' file the import reads (a geocoded file's, NAF 2025, the period's start). */
const ESTABLISHMENT_OPTIONAL = [...GEO_COLUMNS, NAF_2025_COLUMN, PERIOD_START_COLUMN];

const WANTED = "wanted";

/** The header's columns the reading looks at, by index. */
interface Columns {
  width: number;
  kept: [name: string, index: number][];
  siren: number;
  siret: number;
  status: number;
  state: number;
  naf: number;
  naf2025: number;
  commune: number;
  processed: number;
  /** The columns a row keeps, for the length check (row-check.ts). */
  keptIndexes: Int32Array;
}

/**
 * What the domain would do with the row, when its bytes say it for sure: WANTED (it goes to the
 * domain), or the reason the domain would skip it; null when the bytes do not say (the row is read
 * whole). With `applying` null (the first pass), only whether it may be wanted matters.
 */
function quickly(
  record: ScannedRecord,
  columns: Columns,
  applying: {
    registry: SiretFilter | null;
    sent: SiretFilter | null;
    /** Null: every department. */
    inDepartments: ((inseeCode: string) => boolean) | null;
  } | null,
): string | null {
  // A value longer than the shortest limit may be refused (row-check.ts): read whole.
  if (!allWithin(record, columns.keptIndexes, SHORTEST_LIMIT)) return null;
  const siret = siretNumber(record, columns.siret);
  if (siret === null || siret < 0) return null;
  const active = fieldIs(record, columns.state, "A");
  const isPublic = fieldIs(record, columns.status, "O");
  if (active === null || isPublic === null) return null;
  if (applying?.inDepartments) {
    const commune = fieldText(record, columns.commune);
    // A commune code with anything but printable ASCII: read whole (it is cleaned first there).
    if (!/^[\x20-\x7e]*$/.test(commune)) return null;
    if (!applying.inDepartments(spaced(commune))) return "department";
  }
  if (active && isPublic) {
    const covered = coveredActivity(record, columns.naf, columns.naf2025);
    if (covered === null) return null;
    return covered ? WANTED : "naf_not_covered";
  }
  // Closing: the domain records its merchant's closure (or archives it, no longer public), if the
  // registry holds one (or this run sent it).
  if (!applying) return "closing";
  if (applying.registry === null || applying.registry.mayHold(siret) || applying.sent?.mayHold(siret)) return WANTED;
  return isPublic ? "closed" : "not_public";
}

interface FileReading {
  header: (fields: string[]) => void;
  record: (record: ScannedRecord, columns: Columns) => void;
  /** Awaited after each chunk of the file is read. */
  drain?: () => Promise<void>;
}

/**
 * Streams one of the files: its header checked for a layout the import reads (layout.ts) and for
 * the columns it needs, then each record to `reading.record`. Any failure to read the file on is a
 * SireneFileError naming it.
 */
async function readFile(
  file: SireneFileKind,
  path: string,
  required: readonly string[],
  optional: readonly string[],
  meter: ReadMeter,
  reading: FileReading,
): Promise<void> {
  let source: Readable | null = null;
  try {
    source = openBytes(path, meter);
    const scanner = new CsvScanner();
    let columns: Columns | null = null;
    let head: Buffer | null = Buffer.alloc(0);
    const each = (record: ScannedRecord) => {
      if (columns) {
        reading.record(record, columns);
        return;
      }
      if (record.oversized) throw new CsvFormatError(`the header: ${oversized()}`, record.line);
      const fields = Array.from({ length: record.count }, (_, index) => fieldText(record, index));
      columns = columnsOf(headerColumns(fields, required, optional, record.line), fields.length);
      reading.header(fields);
    };
    // A compressed file carries its checksum: what looks malformed in it may be damage, which the
    // rest of the file tells (read to its end, not parsed) before the malformed line is blamed.
    const checked = carriesChecksum(path);
    let malformed: CsvFormatError | null = null;
    for await (const chunk of source as AsyncIterable<Buffer>) {
      if (malformed) continue;
      try {
        await parse(chunk);
      } catch (error) {
        // The header's faults are said at once (a file of another layout is not read through).
        if (!(error instanceof CsvFormatError) || !checked || error.line <= 1) throw error;
        malformed = error;
      }
    }
    if (malformed) throw malformed;
    async function parse(chunk: Buffer): Promise<void> {
      if (head !== null) {
        // The header's line, checked for a layout the import reads before anything parses it.
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf(10);
        if (end < 0 && head.length < MAX_RECORD_BYTES) return;
        const firstLine = head
          .toString("utf8", 0, end < 0 ? MAX_RECORD_BYTES : end)
          .replace(/^\uFEFF/, "")
          .replace(/\r$/, "");
        const refusal = layoutRefusal(firstLine, file);
        if (refusal) throw new SireneFileError(file, path, 1, refusal);
        scanner.feed(head, each);
        head = null;
      } else scanner.feed(chunk, each);
      await reading.drain?.();
    }
    if (head !== null && head.length > 0) {
      const refusal = layoutRefusal(
        head
          .toString("utf8")
          .replace(/^\uFEFF/, "")
          .replace(/\r?\n?$/, ""),
        file,
      );
      if (refusal) throw new SireneFileError(file, path, 1, refusal);
      scanner.feed(head, each);
    }
    scanner.end(each);
    if (!columns) throw new SireneFileError(file, path, 1, "an empty file: it has no header");
    await reading.drain?.();
  } catch (error) {
    source?.destroy();
    if (error instanceof SireneFileError) throw error;
    if (error instanceof CsvFormatError) throw new SireneFileError(file, path, error.line, error.message);
    const fault = fileFault(error);
    throw fault === null ? error : new SireneFileError(file, path, null, fault);
  }
}

function columnsOf(kept: [string, number][], width: number): Columns {
  const index = (name: string) => kept.find(([column]) => column === name)?.[1] ?? -1;
  return {
    width,
    kept,
    siren: index("siren"),
    siret: index("siret"),
    status: index("statutDiffusionEtablissement"),
    state: index("etatAdministratifEtablissement"),
    naf: index("activitePrincipaleEtablissement"),
    naf2025: index(NAF_2025_COLUMN),
    commune: index("codeCommuneEtablissement"),
    processed: index("dateDernierTraitementEtablissement"),
    keptIndexes: Int32Array.from(kept.map(([, column]) => column)),
  };
}

/** A row as the string reading keyed it: the kept columns' texts. */
function rowOf(record: ScannedRecord, kept: [name: string, index: number][]): Record<string, string> {
  const row: Record<string, string> = {};
  for (const [name, index] of kept) row[name] = fieldText(record, index);
  return row;
}

/** An empty line: one empty field (the readers skip it, uncounted). */
function emptyLine(record: ScannedRecord): boolean {
  return record.count === 1 && record.starts[0] === record.ends[0];
}

function oversized(): string {
  return `a record of more than ${MAX_RECORD_BYTES} bytes (a damaged file, or not this file's layout): skipped`;
}

function widthError(record: ScannedRecord, columns: Columns): string {
  return `${record.count} fields where the header has ${columns.width}`;
}

function spaced(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** A string of its own (not a view of the file's chunk, which it would keep alive). */
function detach(text: string): string {
  return text.length < 13 ? text : Buffer.from(text, "utf8").toString("utf8");
}

/** A row's digest: the rules' fingerprint and the establishment as read (its company and place included). */
function digestOf(fingerprint: string, establishment: OfficialEstablishment): string {
  return createHash("sha256")
    .update(fingerprint)
    .update(JSON.stringify(establishment))
    .digest("base64url")
    .slice(0, 22);
}

function rulesFingerprint(): string {
  const hash = createHash("sha256").update(String(ROW_RULES_VERSION));
  for (const file of ["../../../data/naf-trades.json", "../../../data/communes.json"]) {
    hash.update(readFileSync(new URL(file, import.meta.url)));
  }
  return hash.digest("base64url");
}

/**
 * The latest INSEE processing date of the rows read (the stock's date when the operator states
 * none), as processedAtOf reads each: compared from the rows' bytes, a row's text made only when
 * its bytes are not plain ASCII.
 */
class LatestTimestamp {
  readonly #latest = Buffer.alloc(TIMESTAMP_BYTES);
  #any = false;

  read(record: ScannedRecord, index: number): void {
    const start = timestampAt(record, index);
    if (start === null) {
      const processed = processedAtOf(fieldText(record, index));
      if (processed !== null) this.#offer(Buffer.from(processed.slice(0, TIMESTAMP_BYTES), "latin1"), 0);
    } else if (start >= 0) this.#offer(record.bytes, start);
  }

  #offer(bytes: Buffer, start: number): void {
    if (this.#any && bytes.compare(this.#latest, 0, TIMESTAMP_BYTES, start, start + TIMESTAMP_BYTES) <= 0) return;
    bytes.copy(this.#latest, 0, start, start + TIMESTAMP_BYTES);
    this.#any = true;
  }

  /** The latest, as processedAtOf writes it; null when no row had one. */
  instant(): string | null {
    return this.#any ? `${this.#latest.toString("latin1")}.000Z` : null;
  }
}

/**
 * The companies to read, by SIREN: nine-digit ones as numbers (sorted, then found by binary
 * search), any other (a damaged column) as strings.
 */
class SirenSet {
  #numbers = new Uint32Array(1 << 16);
  #count = 0;
  readonly #odd = new Set<string>();
  #sealed: Uint32Array | null = null;

  add(siren: number): void {
    if (this.#count === this.#numbers.length) {
      const grown = new Uint32Array(this.#numbers.length * 2);
      grown.set(this.#numbers);
      this.#numbers = grown;
    }
    this.#numbers[this.#count++] = siren;
  }

  addOdd(siren: string): void {
    this.#odd.add(siren);
  }

  hasOdd(siren: string): boolean {
    return this.#odd.has(siren);
  }

  /** Sorted, each once; no more added. */
  seal(): void {
    const sorted = this.#numbers.subarray(0, this.#count).sort();
    let unique = 0;
    for (let index = 0; index < sorted.length; index++) {
      if (index === 0 || sorted[index] !== sorted[index - 1]) sorted[unique++] = sorted[index] as number;
    }
    this.#sealed = sorted.slice(0, unique);
    this.#numbers = new Uint32Array(0);
  }

  get size(): number {
    return (this.#sealed?.length ?? 0) + this.#odd.size;
  }

  /** Its place among the sorted SIRENs, or -1. */
  indexOf(siren: number): number {
    const sorted = this.#sealed as Uint32Array;
    let low = 0;
    let high = sorted.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const value = sorted[middle] as number;
      if (value === siren) return middle;
      if (value < siren) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }
}

/** A company's packed fields' head: legal form + 1 (0: none), creation day, processing day and time (0: none). */
const UNIT_HEAD_BYTES = 14;

/**
 * A company's fields in bytes (a few dozen, to be sorted by SIREN): its legal form and creation
 * date as numbers, when INSEE last changed its record as two (YYYYMMDD and HHMMSS), then its
 * name's UTF-8 bytes. Packed in a buffer of its own (30 million companies: no buffer made each).
 */
class UnitPacker {
  #buffer = Buffer.allocUnsafe(4096);

  /** The packed company: a view of this packer's buffer, valid until the next call. */
  pack(unit: OfficialLegalUnit): Buffer {
    // A character is at most three bytes of UTF-8 (a surrogate pair: four for two).
    const most = UNIT_HEAD_BYTES + 3 * unit.legalName.length;
    if (most > this.#buffer.length) this.#buffer = Buffer.allocUnsafe(most);
    const packed = this.#buffer;
    packed.writeUInt16LE(unit.legalForm ? Number(unit.legalForm) + 1 : 0, 0);
    packed.writeUInt32LE(unit.createdOn ? digitsOf(unit.createdOn, 0, 10) : 0, 2);
    // processedAtOf's shape, YYYY-MM-DDTHH:MM:SS.000Z: its digits, in two numbers.
    const processed = unit.processedAt ?? null;
    packed.writeUInt32LE(processed ? digitsOf(processed, 0, 10) : 0, 6);
    packed.writeUInt32LE(processed ? digitsOf(processed, 11, 19) : 0, 10);
    const name = packed.write(unit.legalName, UNIT_HEAD_BYTES, "utf8");
    return packed.subarray(0, UNIT_HEAD_BYTES + name);
  }

  /**
   * The company packed from the record's bytes as `pack(legalUnitOf(row))` packs it, when its
   * bytes say it for sure: null when legalUnitOf would give none (not public, no name), undefined
   * when not sure (a column with anything but printable ASCII, doubled quotes, a value over the
   * shortest limit refusedRow applies, spaces legalUnitOf's spacing would change): read as text.
   */
  fromBytes(record: ScannedRecord, columns: Columns): Buffer | null | undefined {
    const unit = this.#columns(columns);
    const { bytes } = record;
    for (const index of columns.keptIndexes) {
      if (index >= record.count) continue;
      if (record.escaped[index]) return undefined;
      const start = record.starts[index] as number;
      const end = record.ends[index] as number;
      if (end - start > SHORTEST_LIMIT) return undefined;
      if (index === unit.processed) continue;
      for (let at = start; at < end; at++) {
        const byte = bytes[at] as number;
        if (byte < 0x20 || byte > 0x7e) return undefined;
        // A space first, last or after another: spaced() would change the text.
        if (byte === SPACE_BYTE && (at === start || at === end - 1 || bytes[at - 1] === SPACE_BYTE)) return undefined;
      }
    }
    const status = fieldIs(record, unit.status, "O");
    if (status !== true) return status === null ? undefined : null;
    let processedDay = 0;
    let processedTime = 0;
    if (unit.processed >= 0) {
      const at = timestampAt(record, unit.processed);
      if (at === null) return undefined;
      if (at >= 0) {
        processedDay = digitsIn(bytes, at, at + 10);
        processedTime = digitsIn(bytes, at + 11, at + TIMESTAMP_BYTES);
      }
    }
    const [denominationStart, denominationEnd] = bounds(record, unit.denomination);
    let [firstStart, firstEnd] = bounds(record, unit.firstName);
    let [lastStart, lastEnd] = bounds(record, unit.usedName);
    if (lastStart === lastEnd) [lastStart, lastEnd] = bounds(record, unit.birthName);
    let length = denominationEnd - denominationStart;
    if (length === 0) {
      // A person: the usual first name and the name of use (else the birth name), the ones given.
      if (firstStart === firstEnd) [firstStart, firstEnd] = [lastStart, lastStart];
      length = firstEnd - firstStart + (firstEnd > firstStart && lastEnd > lastStart ? 1 : 0) + lastEnd - lastStart;
      if (length === 0) return null;
    }
    if (UNIT_HEAD_BYTES + length > this.#buffer.length) this.#buffer = Buffer.allocUnsafe(UNIT_HEAD_BYTES + length);
    const packed = this.#buffer;
    const [formStart, formEnd] = bounds(record, unit.form);
    const form = formEnd - formStart === 4 ? digitsIn(bytes, formStart, formEnd, 4) : -1;
    packed.writeUInt16LE(form >= 0 ? form + 1 : 0, 0);
    const [createdStart, createdEnd] = bounds(record, unit.created);
    packed.writeUInt32LE(
      createdEnd - createdStart >= 10 && isDay(bytes, createdStart)
        ? digitsIn(bytes, createdStart, createdStart + 10)
        : 0,
      2,
    );
    packed.writeUInt32LE(processedDay, 6);
    packed.writeUInt32LE(processedTime, 10);
    if (denominationEnd > denominationStart) bytes.copy(packed, UNIT_HEAD_BYTES, denominationStart, denominationEnd);
    else {
      let at = UNIT_HEAD_BYTES + bytes.copy(packed, UNIT_HEAD_BYTES, firstStart, firstEnd);
      if (firstEnd > firstStart && lastEnd > lastStart) packed[at++] = SPACE_BYTE;
      bytes.copy(packed, at, lastStart, lastEnd);
    }
    return packed.subarray(0, UNIT_HEAD_BYTES + length);
  }

  #of: Columns | null = null;
  #unit: UnitColumns = {
    status: -1,
    created: -1,
    form: -1,
    denomination: -1,
    birthName: -1,
    usedName: -1,
    firstName: -1,
    processed: -1,
  };

  /** The legal units' columns by index (the header's, found once a file). */
  #columns(columns: Columns): UnitColumns {
    if (this.#of === columns) return this.#unit;
    const index = (name: string) => columns.kept.find(([column]) => column === name)?.[1] ?? -1;
    this.#of = columns;
    this.#unit = {
      status: index("statutDiffusionUniteLegale"),
      created: index("dateCreationUniteLegale"),
      form: index("categorieJuridiqueUniteLegale"),
      denomination: index("denominationUniteLegale"),
      birthName: index("nomUniteLegale"),
      usedName: index("nomUsageUniteLegale"),
      firstName: index("prenomUsuelUniteLegale"),
      processed: index(LEGAL_UNIT_PROCESSED_COLUMN),
    };
    return this.#unit;
  }
}

/** The columns of StockUniteLegale legalUnitOf reads, by index (-1: not in the file). */
interface UnitColumns {
  status: number;
  created: number;
  form: number;
  denomination: number;
  birthName: number;
  usedName: number;
  firstName: number;
  processed: number;
}

const SPACE_BYTE = 0x20;

/** A field's bounds in the record's bytes (empty when the file has no such column). */
function bounds(record: ScannedRecord, index: number): [start: number, end: number] {
  if (index < 0 || index >= record.count) return [0, 0];
  return [record.starts[index] as number, record.ends[index] as number];
}

/** The number the ASCII digits of bytes[from, to) make, others passed over; -1 when fewer than `digits` of them are digits. */
function digitsIn(bytes: Buffer, from: number, to: number, digits = 0): number {
  let number = 0;
  let count = 0;
  for (let at = from; at < to; at++) {
    const digit = (bytes[at] as number) - 48;
    if (digit >= 0 && digit <= 9) {
      number = number * 10 + digit;
      count += 1;
    }
  }
  return count < digits ? -1 : number;
}

/** Whether the bytes at `start` are a day as dateOf reads one: YYYY-MM-DD. */
function isDay(bytes: Buffer, start: number): boolean {
  for (let at = 0; at < 10; at++) {
    const byte = bytes[start + at] as number;
    if (at === 4 || at === 7 ? byte !== 45 : byte < 48 || byte > 57) return false;
  }
  return true;
}

/** The number the digits of text[from, to) make, its other characters ("-", ":") passed over. */
function digitsOf(text: string, from: number, to: number): number {
  let number = 0;
  for (let at = from; at < to; at++) {
    const digit = text.charCodeAt(at) - 48;
    if (digit >= 0 && digit <= 9) number = number * 10 + digit;
  }
  return number;
}

/** A company packed (UnitPacker) read back, as legalUnitOf gave it. */
function unpackUnit(siren: number, packed: Buffer): OfficialLegalUnit {
  const form = packed.readUInt16LE(0);
  const created = packed.readUInt32LE(2);
  const processedDay = packed.readUInt32LE(6);
  const time = String(packed.readUInt32LE(10)).padStart(6, "0");
  return {
    siren: String(siren).padStart(9, "0"),
    legalName: packed.toString("utf8", UNIT_HEAD_BYTES),
    legalForm: form === 0 ? null : String(form - 1).padStart(4, "0"),
    createdOn: created === 0 ? null : dayOf(created),
    // As legalUnitOf gives it: present only when the file gave one.
    ...(processedDay === 0
      ? {}
      : { processedAt: `${dayOf(processedDay)}T${time.slice(0, 2)}:${time.slice(2, 4)}:${time.slice(4, 6)}.000Z` }),
  };
}

/**
 * Each row's company, the rows coming in SIRET order: the companies' spill (sorted by SIREN, the
 * first nine digits of a SIRET) is walked forward beside them, no map of the country's companies
 * held. A company listed twice is named by its last listing that names it. What the first pass's
 * reading of them did is kept: a row finds a company of a nine-digit SIREN when that SIREN was
 * wanted (SirenSet), else, as any odd SIREN, the company listed under that text. A row whose SIRET
 * does not begin with its SIREN (a damaged file) finds its company among the strays, looked up
 * before the walk.
 */
class CompanyWalk {
  readonly #wanted: SirenSet;
  readonly #odd = new Map<string, OfficialLegalUnit>();
  readonly #strays = new Map<number, OfficialLegalUnit>();
  readonly #units: Generator<{ key: number; record: Buffer }>;
  #head: { key: number; record: Buffer } | null;
  #lastSiren = -1;
  #last: OfficialLegalUnit | null = null;

  constructor(wanted: SirenSet, spilled: UnitsSpilled, strays: ReadonlySet<number>) {
    this.#wanted = wanted;
    for (const { record } of mergedRuns(spilled.odd.runs)) {
      const [text, unit] = JSON.parse(record.toString("utf8")) as [string, OfficialLegalUnit];
      if (wanted.hasOdd(text)) this.#odd.set(unit.siren, unit);
    }
    if (strays.size > 0) {
      for (const { key, record } of mergedRuns(spilled.units.runs)) {
        if (strays.has(key)) this.#strays.set(key, unpackUnit(key, record));
      }
    }
    this.#units = mergedRuns(spilled.units.runs);
    this.#head = this.#next();
  }

  /** The company of a row: its SIREN as the domain reads it, and the row's key in the SIRET order. */
  of(siren: string, key: number): OfficialLegalUnit | null {
    if (!/^\d{9}$/.test(siren)) return this.#odd.get(siren) ?? null;
    const number = Number(siren);
    if (this.#wanted.indexOf(number) < 0) return this.#odd.get(siren) ?? null;
    const found = walked(number, key) ? this.#at(number) : (this.#strays.get(number) ?? null);
    return found ?? this.#odd.get(siren) ?? null;
  }

  /** Closes the runs' files (the walk may stop before their end). */
  close(): void {
    this.#units.return(undefined);
  }

  #at(siren: number): OfficialLegalUnit | null {
    if (siren === this.#lastSiren) return this.#last;
    if (siren < this.#lastSiren) throw new Error("the rows came out of SIRET order");
    let found: OfficialLegalUnit | null = null;
    while (this.#head !== null && this.#head.key < siren) this.#head = this.#next();
    while (this.#head !== null && this.#head.key === siren) {
      found = unpackUnit(siren, this.#head.record);
      this.#head = this.#next();
    }
    this.#lastSiren = siren;
    this.#last = found;
    return found;
  }

  #next(): { key: number; record: Buffer } | null {
    const step = this.#units.next();
    return step.done ? null : step.value;
  }
}

/** YYYYMMDD as a number, as YYYY-MM-DD. */
function dayOf(day: number): string {
  const date = String(day).padStart(8, "0");
  return `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}`;
}

/**
 * How many SIRETs the filter of the rows kept is sized for: the country's local commerce (5.2
 * million in a national stock) and more; 8 MB, whatever the stock's size.
 */
const KEPT_SIRETS_EXPECTED = 8_000_000;

/**
 * A row's kept fields in bytes, to be sorted (sorted-spill.ts): its line (4 bytes), then each
 * field's length (4 bytes) and UTF-8 text, doubled quotes undone, in the order of the columns kept.
 */
class RowPacker {
  #buffer = Buffer.allocUnsafe(2 * MAX_RECORD_BYTES);

  /** The packed row: a view of this packer's buffer, valid until the next call. */
  pack(record: ScannedRecord, kept: [name: string, index: number][]): Buffer {
    // Every field's text is at most its bytes in the record, plus 4 bytes of length each.
    const most = 4 + record.bytes.length + 4 * kept.length;
    if (most > this.#buffer.length) this.#buffer = Buffer.allocUnsafe(most);
    const buffer = this.#buffer;
    buffer.writeUInt32LE(record.line, 0);
    let at = 4;
    for (const [, index] of kept) {
      let length = 0;
      if (index < record.count) {
        if (record.escaped[index]) length = buffer.write(fieldText(record, index), at + 4, "utf8");
        else length = record.bytes.copy(buffer, at + 4, record.starts[index], record.ends[index]);
      }
      buffer.writeUInt32LE(length, at);
      at += 4 + length;
    }
    return buffer.subarray(0, at);
  }
}

/** A packed row (RowPacker) read back: its line, and its fields by column name, as rowOf gives them. */
function unpackRow(packed: Buffer, names: readonly string[]): { line: number; row: Record<string, string> } {
  const row: Record<string, string> = {};
  let at = 4;
  for (const name of names) {
    const length = packed.readUInt32LE(at);
    row[name] = packed.toString("utf8", at + 4, at + 4 + length);
    at += 4 + length;
  }
  return { line: packed.readUInt32LE(0), row };
}
