import os from "node:os";
import { Worker } from "node:worker_threads";
import {
  applyOfficialEstablishment,
  countOutcome,
  type OfficialCounts,
  type OfficialOutcome,
  officialCounts,
} from "../../domain/merchants/apply-official-establishment.ts";
import { abIdsOfOneBatch } from "../../domain/merchants/build-merchant.ts";
import { decideInRegistry, type MerchantLifecycleDeps } from "../../domain/merchants/merchant-registry.ts";
import type { ReadMeter } from "../open-text.ts";
import { quoted, type RejectionList } from "../rejections.ts";
import type { SireneFileKind } from "./layout.ts";
import { SiretFilter } from "./raw-fields.ts";
import {
  errorOf,
  type ReadingProgress,
  type RowRejection,
  type RowToApply,
  SireneFileError,
  type StockReadingOptions,
} from "./stock-reader.ts";
import { type ReadingMessage, type StockWorkerData, TAKEN } from "./stock-worker.ts";

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
  /**
   * Where the reading sorts the rows it keeps by SIRET (a national stock's: a couple of gigabytes,
   * removed after): DATA_DIR's import folder for the command; the system's temporary folder if unset.
   */
  sortDir?: string | null;
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

export { SireneFileError };

/** How far an import is, as a long run's progress line shows it. */
export interface SireneImportProgress extends ReadingProgress {
  report: SireneImportReport;
}

export interface SireneImportHooks {
  /** Called with each merchant the import created, updated, archived, closed or confirmed (to refresh a search index). */
  onChanged?: (abId: string) => void;
  /** Called every `every` rows read. */
  onProgress?: (report: SireneImportReport) => void;
  progressEvery?: number;
  /** Told what the reading has read of the files (bytes, every pass counted): a long import's progress. */
  meter?: ReadMeter;
  /** Called as the reading goes (a few times a second at most): its phase, the bytes and rows read, the report so far. */
  onReading?: (progress: SireneImportProgress) => void;
  /** Shows unreadable text of a file in a report (a terminal-safe rendering). */
  printable?: (text: string) => string;
  /**
   * Every row read whole and decided by the domain: none set aside from its bytes, no digest
   * compared. The reference the fast path is held to (test/unit/sirene-fast-path.test.ts).
   */
  everyRowToTheDomain?: boolean;
}

/** Rows the reading thread sends in one message. */
const BATCH_ROWS = 1_000;
/**
 * How long one transaction of the registry aims to hold the write lock: a serving server's writes
 * wait that long at most (the bound is a second). Transactions are sized from the time rows took
 * so far (a new merchant costs more as the registry grows, and on a busy machine): bigger ones
 * write each page of an index once for more rows.
 */
const TRANSACTION_MS = 200;
const FEWEST_ROWS = 10;
const MOST_ROWS = 2_000;
/** SIRETs read of the registry per query, for the filter of SIRETs the registry may hold. */
const SIRET_PAGE = 20_000;

/**
 * Brings the registry in line with a SIRENE stock (docs/merchant-lifecycle.md), the whole country
 * included (43.9 million establishment rows, 29.9 million companies): a worker thread reads the
 * files (stock-reader.ts: the establishments read through and checked before anything is applied,
 * their companies kept packed, most rows set aside from a few columns' bytes with the domain's
 * own reason), and this thread applies the rest, a batch per transaction, through the domain
 * (applyOfficialEstablishment, the one rule of what a row means). Every active establishment of
 * the stock is identity-verified as of the stock's date (`fileDate`, else the latest INSEE
 * processing date in the establishments file, which the reading's first pass reads through
 * anyway); a known one the stock lists unchanged is confirmed as of that date. A row whose digest
 * (the stock's date in it) is the one recorded when it was last applied, its merchant untouched
 * since, is known unchanged without a decision: the same stock again costs little more than
 * reading it. The same files twice change nothing the second time, so an import killed half-way
 * is resumed by running it again. A row that cannot be taken is counted and, among the first
 * REJECTIONS_KEPT, listed with its file and line. A file that cannot be read on throws a
 * SireneFileError naming it, the registry untouched when it is the establishments' or the
 * companies' file.
 */
export async function importSireneStock(
  deps: MerchantLifecycleDeps,
  files: SireneImportFiles,
  actor: string,
  hooks: SireneImportHooks = {},
): Promise<SireneImportReport> {
  const fast = hooks.everyRowToTheDomain !== true;
  const printable = hooks.printable ?? ((text: string) => JSON.stringify(text));
  const report: SireneImportReport = {
    read: 0,
    stock_date: files.fileDate ? `${files.fileDate}T00:00:00.000Z` : null,
    ...officialCounts(),
    rejected: [],
    rejected_count: 0,
  };
  const decided = officialCounts();
  let readSkipped: Record<string, number> = {};
  const every = hooks.progressEvery ?? 10_000;
  let progressed = 0;
  const current = () => {
    report.created = decided.created;
    report.updated = decided.updated;
    report.archived = decided.archived;
    report.closed = decided.closed;
    report.confirmed = decided.confirmed;
    report.unchanged = decided.unchanged;
    report.skipped = sumOf(readSkipped, decided.skipped);
    return report;
  };
  const told = (progress: ReadingProgress) => {
    hooks.meter?.tell(progress.file, progress.bytesRead, progress.totalBytes);
    hooks.onReading?.({ ...progress, report: current() });
  };

  const options: StockReadingOptions = {
    establishments: files.establishments,
    legalUnits: files.legalUnits ?? null,
    geo: files.geo ?? null,
    departments: files.departments ?? null,
    fileDate: files.fileDate ?? null,
    fast,
    registrySirets: fast ? await registrySirets(deps) : null,
    batchRows: BATCH_ROWS,
    sortDir: files.sortDir ?? os.tmpdir(),
  };

  /**
   * What a row has cost in a transaction so far. The first guess is high: the first rows run
   * before the compiler has made the domain's code fast, a few milliseconds each.
   */
  let msPerRow = 5;
  const apply = async (rows: RowToApply[]) => {
    let toDecide = rows;
    if (fast) {
      const known = rows.filter((row) => row.known && row.digest).map((row) => row.establishment.siret);
      const recorded = known.length > 0 ? await deps.registry.officialRowDigests(known) : null;
      if (recorded && recorded.size > 0) {
        // The digests were read before any row of the batch is decided: a SIRET the batch has
        // already sent to the domain may have moved since (a row read twice), and goes there too.
        const sent = new Set<string>();
        toDecide = rows.filter((row) => {
          const { siret } = row.establishment;
          if (row.digest === null || sent.has(siret) || recorded.get(siret) !== row.digest) {
            sent.add(siret);
            return true;
          }
          decided.unchanged += 1;
          return false;
        });
      }
    }
    for (let start = 0; start < toDecide.length; ) {
      const size = Math.max(FEWEST_ROWS, Math.min(MOST_ROWS, Math.floor(TRANSACTION_MS / msPerRow)));
      const rowsNow = toDecide.slice(start, start + size);
      start += rowsNow.length;
      const began = performance.now();
      const outcomes = await decideInRegistry(
        { ...deps, randomId: deps.randomId ?? abIdsOfOneBatch() },
        { sirets: rowsNow.map((row) => row.establishment.siret) },
        (decision) =>
          rowsNow.map(({ establishment, digest }) =>
            decision.registry.row((): OfficialOutcome => {
              const outcome = applyOfficialEstablishment(decision, establishment, actor);
              if (digest !== null && outcome.kind !== "skipped" && outcome.kind !== "archived") {
                decision.registry.recordOfficialRowDigest(outcome.abId, digest);
              }
              return outcome;
            }),
          ),
      );
      msPerRow = 0.7 * msPerRow + (0.3 * (performance.now() - began)) / rowsNow.length;
      // The lock is left free a moment between two transactions: a server's writer that asked for
      // it meanwhile (it tries again every millisecond) takes it then, not after the whole import.
      await new Promise((resolve) => setTimeout(resolve, 1));
      for (const outcome of outcomes) {
        const written = countOutcome(decided, outcome);
        if (written) hooks.onChanged?.(written);
      }
    }
  };

  const worker = new Worker(new URL("./stock-worker.ts", import.meta.url), {
    workerData: { stockReading: options } satisfies StockWorkerData,
  });
  const rejections = await new Promise<RejectionList<RowRejection>>((resolve, reject) => {
    let failed = false;
    let settled = false;
    const fail = (error: unknown) => {
      if (failed || settled) return;
      failed = true;
      void worker.terminate();
      reject(error);
    };
    worker.on("error", fail);
    worker.on("exit", (code) => {
      if (code !== 0) fail(new Error(`the SIRENE reading thread stopped (exit code ${code})`));
    });
    // What the reading thread says is handled one message at a time, in order, each on a turn of
    // the event loop of its own: the thread's next batch is always ready, and a chain of them
    // would keep timers (the progress line) and the rest of this process from ever running.
    const queue: ReadingMessage[] = [];
    let working = false;
    const handle = async (message: ReadingMessage) => {
      if (message.type === "progress") told(message.progress);
      else if (message.type === "dated") report.stock_date = message.stockDate;
      else if (message.type === "rows") {
        await apply(message.batch);
        report.read = message.counts.read;
        readSkipped = message.counts.skipped;
        told(message.progress);
        while (report.read >= progressed + every) {
          progressed += every;
          hooks.onProgress?.(current());
        }
        worker.postMessage(TAKEN);
      } else if (message.type === "done") {
        report.read = message.result.counts.read;
        readSkipped = message.result.counts.skipped;
        told(message.result.progress);
        settled = true;
        resolve(message.result.rejections);
      } else fail(errorOf(message.failure));
    };
    const next = () => {
      const message = queue.shift();
      if (message === undefined || failed || settled) {
        working = false;
        return;
      }
      handle(message).then(() => setImmediate(next), fail);
    };
    worker.on("message", (message: ReadingMessage) => {
      queue.push(message);
      if (!working) {
        working = true;
        setImmediate(next);
      }
    });
  }).finally(() => worker.terminate());

  // Listed as the files are read (the companies, the places, then the establishments), each by
  // line: the reading sets rows aside in two phases (as read, then in SIRET order).
  const fileOrder: Record<SireneFileKind, number> = { legalUnits: 0, geo: 1, establishments: 2 };
  const listed = [...rejections.rejected].sort((a, b) => fileOrder[a.file] - fileOrder[b.file] || a.line - b.line);
  report.rejected = listed.map((rejection) => ({
    file: rejection.file,
    line: rejection.line,
    error:
      rejection.kind === "text" ? rejection.text : `siret: ${printable(quoted(rejection.siret))} is not a valid SIRET`,
  }));
  report.rejected_count = rejections.rejected_count;
  return current();
}

/** The registry's SIRETs (archived merchants' included), as a filter the reading thread asks (raw-fields.ts). */
async function registrySirets(deps: MerchantLifecycleDeps): Promise<Uint32Array> {
  const sirets: number[] = [];
  let after: string | null = null;
  for (;;) {
    const page = await deps.registry.sirets(after, SIRET_PAGE);
    for (const siret of page) if (/^\d{14}$/.test(siret)) sirets.push(Number(siret));
    if (page.length < SIRET_PAGE) break;
    after = page[page.length - 1] as string;
  }
  const filter = SiretFilter.forCount(sirets.length);
  for (const siret of sirets) filter.add(siret);
  return filter.bits;
}

function sumOf(first: Record<string, number>, second: Record<string, number>): Record<string, number> {
  const sum: Record<string, number> = { ...first };
  for (const [reason, count] of Object.entries(second)) sum[reason] = (sum[reason] ?? 0) + count;
  return sum;
}
