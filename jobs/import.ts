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
 * layouts since 2019, columns found by name whatever their case and order; the whole country's,
 * 43.9 million rows, read by a thread of its own and read through, checked, before anything is
 * applied: src/import/sirene/import-sirene.ts): active (A) and public
 * (O) establishments of the trades the registry covers become PROBATION merchants with their
 * identity verified; known ones take the file's address and activity; closed ones (F) record
 * their merchant's closure (resolvable, saying closed, never a search hit), and one open again
 * lifts it. The legal units file gives each merchant its company's name, legal form and
 * creation date (and the company's age as an official signal; the file is read for the companies
 * of the kept establishments only): without it, a new establishment has no name the files give
 * and is skipped (name_unknown), known ones still follow their rows. Names are INSEE's own, in its
 * order (sign, usual name, company name). Every active establishment of the stock is
 * identity-verified as of the stock's date (`--file-date`, else the latest INSEE processing date in
 * the file, read in the first pass over the establishments), for 730 days; a known one the stock
 * lists unchanged is confirmed (its check's dates move, nothing else); INSEE's own processing date
 * of each row is kept as the date the record last changed. A check recorded later (npm run verify)
 * is never replaced by an older stock's.
 * Positions come from Etalab's geocoded files (`--geo`, or an establishments file that carries
 * their columns); without one, from the commune's centroid, marked as such. Text is cleaned of
 * control characters; a row with a name, street or town longer than a declaration may have is
 * rejected. Ends with the stock's date and counts; rows it cannot read are counted and the first
 * 100 listed with their file and line. The same file twice changes nothing the second time.
 *
 *   npm run import -- sirene-daily [--since 2026-12-01] [--json]
 *
 * API Sirene 3.11 (INSEE; SIRENE_API_URL, the key in SIRENE_API_KEY): what INSEE processed each day
 * since the last run (or since the date; the first run starts on the day of the last stock
 * imported, else yesterday) through today, the establishments then the companies of each day, page
 * after page by the API's cursor (1,000 a page, at most 30 requests a minute, waiting on a 429 as
 * its Retry-After says). Each establishment is applied as the stock's row would be, verified as of
 * the day processed; each company renames its merchants, or records their closure when it ceased. A day
 * that answers 404 ("Aucun élément trouvé") is empty. Where the run got to is kept in the store
 * after each page: a run killed or stopped by a failure takes up at that page the next time. Ends
 * with the days asked, the day every day up to which is done, and counts. Without SIRENE_API_KEY,
 * one line says so and nothing is done (exit 2). Run by the server's leader (PostgreSQL), both
 * daily imports write only while that server leads.
 *
 *   npm run import -- bodacc-daily [--since 2026-12-01] [--json]
 *
 * BODACC's announcements published each day since the last run (or since the date; the first run
 * starts yesterday) through today, from DILA's dataset (BODACC_API_URL, its JSON Lines export of
 * the day): each day imported as `bodacc FILE` imports a file. The server runs it after
 * sirene-daily on its schedule.
 *
 *   npm run import -- bodacc annonces-commerciales.jsonl [--json]
 *
 * BODACC (DILA's dataset annonces-commerciales, as its Opendatasoft API serves it: a records page
 * of the API v2.1, or of the older v1 and v2.0 (`records[].fields`, `records[].record.fields`),
 * /exports/json or /exports/jsonl; plain, gzipped or zipped): the merchants of each company
 * (SIREN) the file names record bodacc_clean, verified when no insolvency proceeding,
 * deregistration or sale of their business stands against them, failed with the announcement
 * otherwise; a deregistration or a liquidation closed for want of assets records their closure
 * (resolvable, saying closed, never a search hit). Ends with counts: records read; merchants
 * matched, updated, closed, unchanged; records skipped by reason; records rejected, counted and
 * the first 100 listed with their number and line. The same file twice changes nothing the second time.
 *
 * On a terminal, a bar shows the bytes read of the files' total size and the percentage (for
 * SIRENE, the rows read, their rate, the time left and the merchants added); in a log (stderr not
 * a terminal), a line every 10 seconds. The search index's catch-up after the import shows its own.
 *
 * Exit status:
 *   0  done
 *   1  done, but some rows (records) were rejected: they are counted and listed (the others are in)
 *   2  usage: a wrong option, argument or setting, said in one line (nothing was done)
 *   3  a file or an API answer refused: one line naming the file and the line at fault, or the API's address and why (SIRENE stock: nothing applied; otherwise what was applied stays; the next run takes up there)
 *
 * A refused file is one the import does not read (the pre-2019 SIRENE layout, a legal units file
 * given as establishments, ...), a header without the columns needed, a file missing, damaged or
 * cut short: one line on stderr names it (`--unites-legales FILE, line 1: ...`). A SIRENE stock
 * is read through before anything is applied, so nothing is; a BODACC file's records read before
 * the fault are. The run after the file is fixed picks up the rest. A refused API
 * answer (sirene-daily, bodacc-daily) is a refused key (401, 403), a 5xx or a timeout after the
 * retries, or an answer of another shape: one line names the address and why; what was applied
 * stays and the next run takes up at that page. SIRENE_API_KEY unset is a wrong setting (exit 2).
 */
import path from "node:path";
import { type Config, loadConfig } from "../src/config/config.ts";
import { dateIn } from "../src/domain/calendar.ts";
import { OfficialRegistryError } from "../src/domain/merchants/official-registry-lookup.ts";
import { importBodaccDays } from "../src/import/bodacc/daily.ts";
import { importBodaccFile } from "../src/import/bodacc/import-bodacc.ts";
import { BodaccFileError } from "../src/import/bodacc/records.ts";
import { fileFault, ReadMeter } from "../src/import/open-text.ts";
import {
  INSEE_TIME_ZONE,
  importSireneDays,
  SIRENE_STOCK_DATE_KEY,
  type SireneDailyReport,
} from "../src/import/sirene/daily.ts";
import { importSireneStock, SireneFileError, type SireneImportProgress } from "../src/import/sirene/import-sirene.ts";
import type { SireneFileKind } from "../src/import/sirene/layout.ts";
import { setLogLevel } from "../src/logging.ts";
import { createBodaccApiClient } from "../src/official/bodacc-api.ts";
import { createSireneApiClient } from "../src/official/sirene-api.ts";
import { createCommuneLookup } from "../src/seed/communes.ts";
import type { OpenedStore } from "../src/store/open-store.ts";
import { isBusy } from "../src/store/write-lock.ts";
import { CommandError, EXIT_DONE, EXIT_FAILED, EXIT_USAGE, runCommand, USAGE_STATUS, UsageError } from "./cli.ts";
import { followLeaderTerm, registryPortsOf, withJobStore } from "./job-store.ts";
import { isPostgresRefusal } from "./postgres-refusal.ts";
import { count, progressBar } from "./progress.ts";
import { catchUpSearchIndex, commandBuildsFirstIndex, lockHeldTooLong } from "./search-catch-up.ts";
import { printable } from "./terminal.ts";

/** A file refused or unreadable (see the header). */
const REFUSED = 3;
/** How often the progress is drawn (a bar redraws at most every 100 ms; a log gets a line each tenth). */
const PROGRESS_TICK_MS = 100;
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

interface SireneDailyArguments {
  source: "sirene-daily";
  since: string | null;
}

type ImportJob =
  | SireneArguments
  | SireneDailyArguments
  | { source: "bodacc-daily"; since: string | null }
  | { source: "bodacc"; file: string };

interface SireneArguments {
  source: "sirene";
  establishments: string;
  legalUnits: string | null;
  geo: string | null;
  departments: string[] | null;
  fileDate: string | null;
}

await runCommand(
  {
    name: "import",
    usage: [
      "npm run import -- sirene --etablissements FILE --unites-legales FILE [--geo FILE] [--departments 69,75] [--file-date YYYY-MM-DD] [--json]",
      "npm run import -- sirene-daily [--since YYYY-MM-DD] [--json]",
      "npm run import -- bodacc-daily [--since YYYY-MM-DD] [--json]",
      "npm run import -- bodacc FILE [--json]",
    ],
    notes: [
      "sirene: INSEE's SIRENE stock (establishments and legal units; CSV plain, gzipped or zipped, the layouts",
      "since 2019); sirene-daily: what INSEE processed each day since the last run (API Sirene, SIRENE_API_KEY);",
      "bodacc: BODACC's announcements (API pages or exports). Each ends with counts; --json prints the report",
      "as JSON. A bar shows the bytes read on a terminal; a log gets a line each tenth.",
    ],
    options: {
      etablissements: { type: "string" },
      "unites-legales": { type: "string" },
      geo: { type: "string" },
      departments: { type: "string" },
      "file-date": { type: "string" },
      since: { type: "string" },
      json: { type: "boolean", default: false },
    },
    allowPositionals: true,
    exitStatuses: [
      [EXIT_DONE, "done"],
      [EXIT_FAILED, "done, but some rows (records) were rejected: they are counted and listed (the others are in)"],
      USAGE_STATUS,
      [
        REFUSED,
        "a file or an API answer refused: one line naming the file and the line at fault, or the API's address and why (SIRENE stock: nothing applied; otherwise what was applied stays; the next run takes up there)",
      ],
    ],
  },
  async ({ values, positionals }) => {
    const [source, ...files] = positionals;
    const stockOptions = Boolean(
      values.etablissements || values["unites-legales"] || values.geo || values.departments || values["file-date"],
    );
    if (source === "sirene-daily" || source === "bodacc-daily") {
      if (files.length > 0) throw new UsageError(`${source} takes no file, not ${printable(files.join(" "))}`);
      if (stockOptions) throw new UsageError(`${source} takes --since only (its records come from the source's API)`);
      const since = values.since ?? null;
      if (since !== null && !isDay(since)) throw new UsageError("--since takes the first day to ask as YYYY-MM-DD");
      await run({ source, since }, values.json);
      return;
    }
    if (values.since) throw new UsageError("--since is an option of sirene-daily and bodacc-daily");
    if (source === "bodacc") {
      if (files.length !== 1) throw new UsageError("bodacc takes one FILE");
      if (stockOptions) throw new UsageError("bodacc takes no SIRENE option");
      await run({ source: "bodacc", file: files[0] as string }, values.json);
      return;
    }
    if (source !== "sirene") {
      throw new UsageError(
        source === undefined
          ? "the source must be sirene, sirene-daily, bodacc or bodacc-daily"
          : `unknown source ${printable(source)}: sirene, sirene-daily, bodacc or bodacc-daily`,
      );
    }
    if (files.length > 0) throw new UsageError(`sirene takes its files as options, not ${printable(files.join(" "))}`);
    if (!values.etablissements) throw new UsageError("--etablissements FILE is required");
    const departments = values.departments
      ? values.departments.split(",").map((code) => code.trim().toUpperCase())
      : null;
    if (departments?.some((code) => !/^(\d{2,3}|2A|2B)$/.test(code)))
      throw new UsageError("--departments takes codes like 69,75,2A");
    const fileDate = values["file-date"] ?? null;
    if (fileDate !== null && !isDay(fileDate)) {
      throw new UsageError("--file-date takes the file's date as YYYY-MM-DD");
    }
    await run(
      {
        source: "sirene",
        establishments: values.etablissements,
        legalUnits: values["unites-legales"] ?? null,
        geo: values.geo ?? null,
        departments,
        fileDate,
      },
      values.json,
    );
  },
);

/** A day as YYYY-MM-DD that exists. */
function isDay(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(text) && new Date(`${text}T00:00:00Z`).toISOString().slice(0, 10) === text;
}

async function run(job: ImportJob, json: boolean): Promise<void> {
  setLogLevel("warn");
  const config = loadConfig();
  if (job.source === "sirene-daily") {
    // Nothing is done without the key: not even the store is opened.
    if (!config.sireneApi.key) {
      throw new CommandError(
        "SIRENE_API_KEY is not set: sirene-daily asks API Sirene, which needs an integration key (portail-api.insee.fr); nothing was done",
        EXIT_USAGE,
      );
    }
    const apiKey = config.sireneApi.key;
    await withJobStore(config, "import", (store) => importDaysInto(asLeaderJob(store), config, apiKey, job, json));
    return;
  }
  if (job.source === "bodacc-daily") {
    await withJobStore(config, "import", (store) => importBodaccDaysInto(asLeaderJob(store), config, job.since, json));
    return;
  }
  await withJobStore(config, "import", (store) => importInto(store, config, job, json), {
    bulkWrites: true,
  });
}

/**
 * The daily imports the server's leader runs (jobs/daily-imports.ts) write the registry only while
 * that server leads (its term in the environment); run by hand, they write as any command does.
 */
function asLeaderJob(store: OpenedStore): OpenedStore {
  if (store.engine === "postgres") followLeaderTerm(store);
  return store;
}

/** The daily import into the store it opened, from API Sirene (see the header). */
async function importDaysInto(
  store: OpenedStore,
  config: Config,
  apiKey: string,
  job: SireneDailyArguments,
  json: boolean,
): Promise<void> {
  const changes = createSireneApiClient({
    baseUrl: config.sireneApi.url,
    apiKey,
    timeoutMs: config.sireneApi.timeoutMs,
    userAgent: `Abeille registry import job (+${config.baseUrl})`,
  });
  const deps = {
    registry: registryPortsOf(store).registry,
    communes: createCommuneLookup(),
    now: () => new Date(),
    changes,
    settings: store.settings,
  };
  const bar = progressBar({ label: "import sirene-daily", unit: "days" });
  const daysFrom = (from: string, to: string) => Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000);
  let lockHeldElsewhere = false;
  try {
    const report = await importSireneDays(
      deps,
      { since: job.since, today: dateIn(INSEE_TIME_ZONE, new Date()) },
      "import:sirene-daily",
      {
        onPage: (progress, day, query) =>
          bar.update(
            daysFrom(progress.from, day),
            daysFrom(progress.from, progress.to) + 1,
            `${day} ${query === "establishments" ? "establishments" : "companies"}, ${count(progress.establishments)} establishments, ${count(progress.legal_units)} companies`,
          ),
      },
    );
    bar.end();
    printSireneDays({ ...report, requests: changes.requests() }, json);
  } catch (error) {
    bar.end();
    if (isPostgresRefusal(error)) throw error;
    if (isBusy(error)) {
      lockHeldElsewhere = true;
      throw new CommandError(lockHeldTooLong());
    }
    if (error instanceof OfficialRegistryError) {
      throw new CommandError(
        `API Sirene: ${printable(error.message)} (what was applied stays; the next run takes up at this page)`,
        REFUSED,
      );
    }
    throw error;
  } finally {
    if (!lockHeldElsewhere) await catchUpSearchIndex(store, "import");
  }
}

/** The daily BODACC import into the store it opened (see the header). */
async function importBodaccDaysInto(
  store: OpenedStore,
  config: Config,
  since: string | null,
  json: boolean,
): Promise<void> {
  const deps = {
    registry: registryPortsOf(store).registry,
    now: () => new Date(),
    settings: store.settings,
    workDir: path.join(config.dataDir, "import"),
    announcements: createBodaccApiClient({
      baseUrl: config.bodaccApi.url,
      timeoutMs: config.bodaccApi.timeoutMs,
      userAgent: `Abeille registry import job (+${config.baseUrl})`,
    }),
  };
  let lockHeldElsewhere = false;
  try {
    const report = await importBodaccDays(
      deps,
      { since, today: dateIn(INSEE_TIME_ZONE, new Date()) },
      "import:bodacc-daily",
    );
    const rejected = report.days.reduce((sum, day) => sum + day.rejected_count, 0);
    process.stdout.write(
      json
        ? `${JSON.stringify(report, null, 2)}\n`
        : [
            ...report.days.map(
              (day) =>
                `${day.day}: ${day.read} records, ${day.matched} merchants matched, ${day.updated} updated, ${day.closed} closed, ${day.unchanged} unchanged, ${day.rejected_count} rejected`,
            ),
            `done through: ${report.through ?? "no day yet"} (the next run starts the day after)`,
            "",
          ].join("\n"),
    );
    if (rejected > 0) process.exitCode = EXIT_FAILED;
  } catch (error) {
    if (isPostgresRefusal(error)) throw error;
    if (isBusy(error)) {
      lockHeldElsewhere = true;
      throw new CommandError(lockHeldTooLong());
    }
    if (error instanceof OfficialRegistryError) {
      throw new CommandError(`BODACC: ${printable(error.message)} (the next run takes up at this day)`, REFUSED);
    }
    throw error;
  } finally {
    if (!lockHeldElsewhere) await catchUpSearchIndex(store, "import");
  }
}

function printSireneDays(report: SireneDailyReport & { requests: number }, json: boolean): void {
  const { rejected, skipped } = report;
  process.stdout.write(
    json
      ? `${JSON.stringify(report, null, 2)}\n`
      : [
          `${report.from} to ${report.to}${report.resumed ? " (taken up where the last run stopped)" : ""}: ${report.establishments} establishments and ${report.legal_units} companies read in ${report.pages} pages (${report.requests} requests): ${report.created} added, ${report.updated} updated, ${report.archived} archived, ${report.closed} closed, ${report.confirmed} confirmed, ${report.unchanged} unchanged, ${report.rejected_count} rejected`,
          `skipped: ${
            Object.entries(skipped)
              .map(([reason, count]) => `${reason} ${count}`)
              .join(", ") || "none"
          }`,
          `done through: ${report.through ?? "no day yet"} (the next run starts the day after)`,
          ...rejected.map(
            (item) =>
              `${item.day} ${item.query === "establishments" ? "siret" : "siren"} ${item.id === null ? "?" : printable(item.id)}: ${printable(item.error)}`,
          ),
          ...notListed(report),
          "",
        ].join("\n"),
  );
  if (report.rejected_count > 0) process.exitCode = EXIT_FAILED;
}

/** The import into the store it opened (SQLite's file, or PostgreSQL with DATABASE_URL). */
async function importInto(
  store: OpenedStore,
  config: Config,
  job: SireneArguments | { source: "bodacc"; file: string },
  json: boolean,
): Promise<void> {
  const deps = {
    registry: registryPortsOf(store).registry,
    communes: createCommuneLookup(),
    now: () => new Date(),
  };
  const meter = new ReadMeter();
  const bar = progressBar({ label: `import ${job.source}`, unit: "bytes" });
  let detail = "";
  /** The file being read, as the command line named it, and what the import counted so far. */
  const reading = () => {
    const file = meter.current;
    if (job.source === "bodacc" || file === null) return detail;
    const option =
      file === job.establishments ? OPTION.establishments : file === job.legalUnits ? OPTION.legalUnits : OPTION.geo;
    return detail ? `${option}, ${detail}` : option;
  };
  const draw = () => bar.update(meter.bytesRead, meter.totalBytes, reading());
  const ticking = setInterval(draw, PROGRESS_TICK_MS);
  /** Another process held the write lock past the wait: the catch-up would wait as long again. */
  let lockHeldElsewhere = false;
  // A stock that speaks for a registry's worth of merchants leaves the index's first build to the server.
  let firstBuildHere = true;
  try {
    if (job.source === "bodacc") {
      const report = await importBodaccFile(deps, job.file, "import:bodacc", {
        meter,
        progressEvery: 1_000,
        onProgress: (progress, companies) => {
          detail = `${count(progress.read)} records, ${count(companies)} companies known`;
        },
      });
      clearInterval(ticking);
      bar.end(meter.totalBytes, meter.totalBytes, `${count(report.read)} records`);
      printBodacc(report, json);
    } else {
      const rate = sireneRate();
      const collect = garbageCollector();
      const report = await importSireneStock(
        deps,
        { ...job, sortDir: path.join(config.dataDir, "import") },
        "import:sirene",
        {
          printable,
          meter,
          onReading: (progress) => {
            detail = rate(progress);
            collect();
          },
        },
      );
      clearInterval(ticking);
      bar.end(meter.totalBytes, meter.totalBytes, `${count(report.read)} rows, ${count(report.created)} added`);
      firstBuildHere = commandBuildsFirstIndex(
        report.created + report.updated + report.closed + report.confirmed + report.unchanged,
      );
      // The daily import's first run starts on the day of the last stock imported.
      if (report.stock_date) await store.settings.set(SIRENE_STOCK_DATE_KEY, report.stock_date, new Date());
      printSirene(report, job, json);
    }
  } catch (error) {
    clearInterval(ticking);
    bar.end();
    // PostgreSQL not answering: said in one line by withJobStore.
    if (isPostgresRefusal(error)) throw error;
    if (isBusy(error)) {
      lockHeldElsewhere = true;
      throw new CommandError(lockHeldTooLong());
    }
    const message = refusal(error, job);
    if (message === null) throw error;
    throw new CommandError(message, REFUSED);
  } finally {
    // The search index follows the store's change feed (src/search/embedded/follow.ts): what this
    // run wrote, and what an earlier run left unapplied, becomes searchable now (a serving server
    // follows the feed meanwhile). A failure here loses nothing: the feed keeps it for the next one.
    if (!lockHeldElsewhere) await catchUpSearchIndex(store, "import", { build: firstBuildHere });
  }
}

/**
 * The progress of a SIRENE import in words: what it is doing, and once it applies the rows, how
 * many it has read, how fast and how long it has left (from the bytes it has left to read at the
 * rate it reads them while applying: the reading before is faster), and the merchants added.
 */
function sireneRate(): (progress: SireneImportProgress) => string {
  let applyingSince: { at: number; bytes: number } | null = null;
  return (progress) => {
    const now = performance.now();
    if (progress.phase !== "applying") {
      return progress.phase === "checking"
        ? `reading the establishments' file, its rows sorted by SIRET: ${count(progress.rows)} rows`
        : progress.phase === "companies"
          ? "reading the companies"
          : "reading the places";
    }
    applyingSince ??= { at: now, bytes: progress.bytesRead };
    const seconds = (now - applyingSince.at) / 1000;
    const rowsPerSecond = seconds > 0 ? progress.rows / seconds : 0;
    const bytesPerSecond = seconds > 0 ? (progress.bytesRead - applyingSince.bytes) / seconds : 0;
    const left = bytesPerSecond > 0 ? (progress.totalBytes - progress.bytesRead) / bytesPerSecond : null;
    return [
      `${count(progress.rows)} rows`,
      `${count(rowsPerSecond)} rows/s`,
      left === null ? "time left unknown" : `${duration(left)} left`,
      `${count(progress.report.created)} added`,
    ].join(", ");
  };
}

/**
 * A full collection every few seconds, when the job runs with --expose-gc (package.json): the
 * decisions of millions of rows leave garbage V8 would let grow to three times the heap in use
 * before it collects, and the process keeps the pages it grew to (docs/performance.md).
 */
function garbageCollector(): () => void {
  const collect = (globalThis as { gc?: () => void }).gc;
  let last = performance.now();
  return () => {
    if (!collect || performance.now() - last < 5_000) return;
    last = performance.now();
    collect();
  };
}

/** Seconds as people read a wait: 45s, 6m 12s, 1h 04m. */
function duration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  if (whole < 60) return `${whole}s`;
  if (whole < 3600) return `${Math.floor(whole / 60)}m ${String(whole % 60).padStart(2, "0")}s`;
  return `${Math.floor(whole / 3600)}h ${String(Math.floor(whole / 60) % 60).padStart(2, "0")}m`;
}

function printSirene(report: Awaited<ReturnType<typeof importSireneStock>>, job: SireneArguments, json: boolean): void {
  const { rejected, skipped } = report;
  process.stdout.write(
    json
      ? `${JSON.stringify(report, null, 2)}\n`
      : [
          `${report.read} rows: ${report.created} added, ${report.updated} updated, ${report.archived} archived, ${report.closed} closed, ${report.confirmed} confirmed, ${report.unchanged} unchanged, ${report.rejected_count} rejected`,
          `skipped: ${
            Object.entries(skipped)
              .map(([reason, count]) => `${reason} ${count}`)
              .join(", ") || "none"
          }`,
          ...(report.stock_date
            ? [`stock date: ${report.stock_date} (its active establishments verified as of it)`]
            : []),
          ...(skipped.name_unknown
            ? [
                job.legalUnits
                  ? "name_unknown: their companies are not public or not in the legal units file"
                  : "name_unknown: their companies name them: add --unites-legales StockUniteLegale_utf8.zip",
              ]
            : []),
          ...(skipped.undated
            ? ["undated: the file gives no INSEE processing date: state the stock's date with --file-date YYYY-MM-DD"]
            : []),
          ...rejected.map((item) => `${OPTION[item.file]}, line ${item.line}: ${printable(item.error)}`),
          ...notListed(report),
          "",
        ].join("\n"),
  );
  if (report.rejected_count > 0) process.exitCode = EXIT_FAILED;
}

function printBodacc(report: Awaited<ReturnType<typeof importBodaccFile>>, json: boolean): void {
  const { period, rejected, skipped } = report;
  process.stdout.write(
    json
      ? `${JSON.stringify(report, null, 2)}\n`
      : [
          `${report.read} records${period ? ` published ${period.from} to ${period.to}` : ""}: ${report.matched} merchants matched, ${report.updated} updated, ${report.closed} closed, ${report.unchanged} unchanged, ${report.rejected_count} rejected`,
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
  if (report.rejected_count > 0) process.exitCode = EXIT_FAILED;
}

/** A file refused or unreadable, as one line naming it and the line at fault; null for anything else. */
function refusal(error: unknown, job: SireneArguments | { source: "bodacc"; file: string }): string | null {
  const at = (file: string, line: number | null) => `${file}${line === null ? "" : `, line ${line}`}`;
  if (error instanceof SireneFileError) {
    return `${at(`${OPTION[error.file]} ${printable(error.path)}`, error.line)}: ${printable(error.message)}`;
  }
  if (job.source !== "bodacc") return null;
  if (error instanceof BodaccFileError) return `${at(printable(job.file), error.line)}: ${printable(error.message)}`;
  const fault = fileFault(error);
  return fault === null ? null : `${printable(job.file)}: ${printable(fault)}`;
}
