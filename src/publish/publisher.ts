import { mkdirSync } from "node:fs";
import { createTask } from "node-cron";
import type { MerchantProfile } from "../domain/merchant.ts";
import type { Db } from "../store/db.ts";
import type { StagedDocument } from "../store/pack-index.ts";
import { asPublishIndexPort, openPublishIndex, type PublishIndexPort } from "../store/publish-index.ts";
import {
  createProfileLoader,
  createPublishSource,
  type MerchantStamp,
  type PublishSource,
} from "../store/publish-source.ts";
import { bodyHash } from "./document.ts";
import { KEY_SET_PATH, PUBLISHED_KINDS, type PublishedKind, publishedPath } from "./documents.ts";
import { mixedRunner } from "./mixed-runner.ts";
import { type PackDictionary, packWriters } from "./pack-files.ts";
import { openPackStore, type PackStage } from "./pack-store.ts";
import { type IndexEntry, PublishFolder, RefreshBusyError } from "./publish-folder.ts";
import { type PublishedDocuments, publicationOf } from "./published-documents.ts";
import {
  type BatchContext,
  type BatchItem,
  type BatchResult,
  type BatchRunner,
  emptyCounters,
  type RenderContext,
  renderBatch,
  sampleDocuments,
} from "./render-batch.ts";
import { formatServeIndex, publishKeyOf, serveRecordOf } from "./serve-index.ts";
import type { PublishSettings } from "./settings.ts";
import type { SnapshotIssuer } from "./snapshot.ts";
import { STATIC_CONFIG_FILES } from "./static-config.ts";
import { isPublishedStatus } from "./view.ts";

export interface RefreshConfig {
  baseUrl: string;
  publicOrderRailEnabled: boolean;
  dataDir: string;
  databaseFile: string;
}

/**
 * Where a run reads the registry and keeps its index when the store is not the SQLite file `db`:
 * on PostgreSQL, createPostgresPublishSource, createPostgresProfileLoader and
 * createPostgresPublishIndex over the job's pool (the workers open their own: workerRunner's
 * databaseUrl).
 */
export interface RefreshStore {
  source: PublishSource;
  loadProfiles: (abIds: readonly string[]) => Promise<Map<string, MerchantProfile>>;
  index: PublishIndexPort;
  /**
   * One run at a time across every machine of the store (on PostgreSQL a session-level advisory
   * lock, src/store/postgres/refresh-lock.ts), held for the run beside the folder's lock file:
   * the lock, released when the run ends; or who holds it (the run is refused, RefreshBusyError).
   * Absent: the folder's lock alone (one machine).
   */
  lockRun?: () => Promise<{ release(): Promise<void> } | { heldBy: string }>;
}

export interface RefreshInput {
  /** The SQLite store (one machine); absent when `store` says where the run reads. */
  db?: Db;
  store?: RefreshStore;
  config: RefreshConfig;
  settings: PublishSettings;
  /** The run's clock (default: now). */
  now?: Date;
  /** The next scheduled run; undefined: computed from REFRESH_CRON; null: no schedule. */
  nextRunAt?: Date | null;
  /** Signs snapshot manifests; null or absent: no snapshot is published. */
  snapshotIssuer?: SnapshotIssuer | null;
  /** The public key set as served; null or absent: not published. */
  keySet?: (() => unknown) | null;
  /** Hash of the rendering code (jobs/refresh.ts passes code-key.ts refreshCodeKey); a change re-renders everything. */
  codeKey?: string;
  /** Renders every merchant again and checks every file (`npm run refresh -- --full`); the next run is incremental again. */
  full?: boolean;
  batchSize?: number;
  /**
   * Called once the run is over with the merchants whose published content changed since the last
   * run (card changed, newly published or withdrawn); not called on a first run. jobs/refresh.ts
   * refreshes the search index's copy of them (trust moves when signals expire).
   */
  onMerchantsChanged?: (abIds: string[]) => void | Promise<void>;
  /** Where batches render (default: this thread). */
  runner?: (context: RunnerContext, options?: { spareOneCore?: boolean }) => BatchRunner;
  onProgress?: (progress: { done: number; total: number }) => void;
  /**
   * The shared database's published documents (a deployment on PostgreSQL): each run writes the
   * files it changed there once its index is committed, and every file when the table is not at
   * this folder's last run (docs/several-machines.md). Absent: the folder alone, as on one machine.
   */
  publishedDocuments?: PublishedDocuments | null;
}

/** What a runner's threads are given: rendering's context and the run's zstd dictionary. */
export type RunnerContext = RenderContext & { dictionary: PackDictionary };

export interface RefreshSummary {
  /** Published merchants (ACTIVE, PROBATION, PAUSED). */
  merchants: number;
  /** Merchants rendered; the others were proven unchanged without rendering. */
  rendered: number;
  skipped: number;
  /** Files written (their bytes changed), files left as they were. */
  written: number;
  unchanged: number;
  snapshotsSigned: number;
  /** Merchants whose published content changed since the last run (including new and withdrawn ones). */
  changed: number;
  /** Merchants whose files were deleted (suspended, archived, gone), and the files deleted. */
  withdrawn: number;
  deleted: number;
  failed: number;
  seconds: number;
}

export { RefreshBusyError } from "./publish-folder.ts";

/** How long a refresh waits for the machine's mirror to finish applying the shared table. */
const MIRROR_WAIT_MS = 60_000;

/**
 * The folder's lock for a run. Held by another refresh: refused at once. Held by this machine's
 * mirror (on PostgreSQL, applying another machine's publication: seconds at most): waited for, so
 * neither writes a file the other is writing (the mirror would put a file's older bytes over the
 * ones this run just rendered, which the run would then publish).
 */
async function lockFolderWaitingForMirror(folder: PublishFolder): Promise<() => void> {
  const deadline = Date.now() + MIRROR_WAIT_MS;
  for (;;) {
    try {
      return folder.lockForRun("refresh");
    } catch (error) {
      if (!(error instanceof RefreshBusyError) || error.heldBy !== "mirror" || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** A snapshot is renewed when it would expire within this long, when no schedule says when the next run is. */
const UNSCHEDULED_RENEW_SECONDS = 12 * 3600;

/** The next run of a cron expression after now, or null when there is no schedule. */
export function nextScheduledRun(cron: string | null, timezone: string | null): Date | null {
  if (!cron) return null;
  const task = createTask(cron, () => undefined, timezone ? { timezone } : {});
  try {
    return task.getNextRuns(1)[0] ?? null;
  } finally {
    void task.destroy();
  }
}

/**
 * One refresh of the publish folder: every published merchant's documents and snapshot manifest
 * into the packs (pack-store.ts), the key set and the static server configuration as files;
 * withdrawn merchants' documents removed. The packs' new generation is committed first (what the
 * server reads, atomically), the job's index last: a run that dies between the two is followed
 * by one that checks every merchant against the packs.
 */
export async function runRefresh(input: RefreshInput): Promise<RefreshSummary> {
  const started = performance.now();
  const now = input.now ?? new Date();
  const folder = new PublishFolder(input.settings.publishDir);
  mkdirSync(folder.stateDir, { recursive: true });
  const releaseLock = await lockFolderWaitingForMirror(folder);
  let success = false;
  let shared: { release(): Promise<void> } | null = null;
  try {
    // The folder's lock first (this machine), then the store's (every machine): a run refused by
    // either leaves the folder untouched.
    const taken = (await input.store?.lockRun?.()) ?? null;
    if (taken && "heldBy" in taken) {
      throw new RefreshBusyError(`another refresh is running on this deployment (${taken.heldBy})`);
    }
    shared = taken;
    folder.open();
    const packs = openPackStore(folder.stateDir);
    try {
      const summary = await refreshLocked(input, folder, packs.begin(), now, started);
      success = true;
      return summary;
    } finally {
      packs.close();
    }
  } finally {
    folder.close(success);
    await shared?.release();
    releaseLock();
  }
}

async function refreshLocked(
  input: RefreshInput,
  folder: PublishFolder,
  stage: PackStage,
  now: Date,
  started: number,
): Promise<RefreshSummary> {
  if (input.store) return refreshWithIndex(input, folder, stage, input.store.index, now, started);
  const index = asPublishIndexPort(openPublishIndex(folder.stateDir));
  try {
    return await refreshWithIndex(input, folder, stage, index, now, started);
  } finally {
    await index.close();
  }
}

/** What a run reads from: the given store, or the SQLite file (synchronous profiles in one read transaction). */
function readersOf(input: RefreshInput): {
  source: PublishSource;
  loadProfiles: BatchContext["loadProfiles"];
  readTransaction?: BatchContext["readTransaction"];
} {
  if (input.store) return { source: input.store.source, loadProfiles: input.store.loadProfiles };
  if (!input.db) throw new Error("runRefresh: neither a SQLite store (db) nor another store (store) was given");
  const loader = createProfileLoader(input.db);
  return {
    source: createPublishSource(input.db),
    loadProfiles: (abIds) => loader.load(abIds),
    readTransaction: readTransactionOf(input.db),
  };
}

/** Merchants whose documents make the dictionary of a new publication. */
const DICTIONARY_SAMPLE_MERCHANTS = 8;

async function refreshWithIndex(
  input: RefreshInput,
  folder: PublishFolder,
  stage: PackStage,
  index: PublishIndexPort,
  now: Date,
  started: number,
): Promise<RefreshSummary> {
  const { config, settings } = input;
  const publishKey = publishKeyOf(config);
  const codeKey = input.codeKey ?? "";
  const snapshots = Boolean(input.snapshotIssuer);
  const readers = readersOf(input);
  const { source } = readers;
  const seconds = () => Math.round((performance.now() - started) / 10) / 100;

  const nextRunAt =
    input.nextRunAt === undefined ? nextScheduledRun(settings.refreshCron, settings.refreshTimezone) : input.nextRunAt;
  const renewBeforeMs = nextRunAt
    ? nextRunAt.getTime() + settings.snapshotRenewMarginSeconds * 1000
    : now.getTime() + UNSCHEDULED_RENEW_SECONDS * 1000;
  const globalFiles = renderGlobalFiles(input);

  // The plan: a full pass (first run, new code or keys, `--full`) reads every merchant's stamp;
  // otherwise only the merchants written since the last run, those falling due and those that
  // failed are looked at, and every other entry stays as it is without being read.
  const previous = await index.meta();
  const skipAllowed =
    !input.full &&
    previous !== null &&
    previous.publishKey === publishKey &&
    codeKey !== "" &&
    previous.codeKey === codeKey;
  // The packs are not those of the index's last run (it died between the two commits, packs were
  // lost, the first run since packs replaced files) or `--full` asks: every merchant is read and
  // each document the index records is looked for in the packs, with its hash. On a deployment
  // that publishes to the shared table, only on `--full`: there the machine's mirror fills its
  // packs from the table, and the table is what a run keeps in step (tableBehind below).
  const sharedTable = index.publishesDocuments || input.publishedDocuments != null;
  const packsMade = stage.committedRun();
  const verify =
    Boolean(input.full) ||
    (!sharedTable &&
      (stage.damaged ||
        previous === null ||
        packsMade.run !== previous.generatedAt ||
        packsMade.publishKey !== previous.publishKey));
  const since = skipAllowed && !verify ? (previous?.cursor ?? null) : null;
  // The first run on packs: the files an earlier version wrote a merchant at a time go.
  if (packsMade.run === null) for (const abId of folder.merchantsOnDisk()) folder.removeMerchant(abId);
  // The table holds what this folder's last run published, or it is behind (another leader ran
  // since, a publication failed after its index was committed, the first run here): then this run
  // sends every file.
  const documents = input.publishedDocuments ?? null;
  const tableState = documents ? await documents.state() : null;
  const tableBehind =
    documents !== null &&
    (previous === null ||
      tableState === null ||
      tableState.runGeneratedAt !== previous.generatedAt ||
      tableState.publishKey !== previous.publishKey);

  const renderContext: RenderContext = {
    baseUrl: config.baseUrl,
    orderRailEnabled: config.publicOrderRailEnabled,
    now,
    skipAllowed,
    renewBeforeMs,
    issueSnapshot: input.snapshotIssuer ?? null,
  };
  let contextBase: RunnerContext | null = null;
  /** The run's dictionary: the publication's, or made from a few merchants rendered here first. */
  const dictionaryReady = async (): Promise<RunnerContext> => {
    if (contextBase) return contextBase;
    let samples: Buffer[] = [];
    if (!stage.hasDictionary(publishKey)) {
      const stamps = (await source.stampsAfter("", DICTIONARY_SAMPLE_MERCHANTS * 4))
        .filter((stamp) => isPublishedStatus(stamp.status))
        .slice(0, DICTIONARY_SAMPLE_MERCHANTS);
      const inTransaction = readers.readTransaction ?? (<T>(work: () => T) => work());
      const profiles = await inTransaction(() => readers.loadProfiles(stamps.map((stamp) => stamp.abId)));
      samples = sampleDocuments(renderContext, profiles.values());
    }
    contextBase = { ...renderContext, dictionary: stage.dictionary(publishKey, () => samples) };
    return contextBase;
  };
  let runner: BatchRunner | null = null;
  const inline = (context: RunnerContext) =>
    inlineRunner({
      ...context,
      loadProfiles: readers.loadProfiles,
      packWriter: packWriters(folder.stateDir, context.dictionary),
      ...(readers.readTransaction ? { readTransaction: readers.readTransaction } : {}),
    });
  const startRunner = async (): Promise<BatchRunner> => {
    if (runner) return runner;
    const context = await dictionaryReady();
    // An incremental run renders on this thread too, beside one worker fewer: this thread would
    // otherwise wait, and each worker costs a start-up (a full pass keeps every core on workers).
    runner ??= input.runner
      ? since !== null
        ? mixedRunner(inline(context), input.runner(context, { spareOneCore: true }))
        : input.runner(context)
      : inline(context);
    return runner;
  };

  let cursor: number;
  let candidates: string[] | null = null;
  if (since === null) {
    cursor = await source.revision();
  } else {
    const touched = await source.touchedSince(since);
    cursor = touched.revision;
    const due = await index.due(now.toISOString(), new Date(renewBeforeMs).toISOString(), snapshots);
    candidates = [...new Set([...touched.abIds, ...due, ...(previous?.retry ?? [])])].sort();
    // Workers take about half a second to load: they start now, while this thread reads the stamps.
    if (candidates.length > 0) await startRunner();
  }
  const globalUnchanged = Object.entries(globalFiles).every(
    ([relative, file]) => previous?.files[relative] === file.hash && folder.exists(relative),
  );
  if (
    candidates?.length === 0 &&
    !tableBehind &&
    !stage.damaged &&
    globalUnchanged &&
    Object.keys(previous?.files ?? {}).length === Object.keys(globalFiles).length
  ) {
    // Nothing written since the last run and nothing due: nothing to do.
    const counts = await index.counts();
    return {
      ...emptyCounters(),
      merchants: counts.merchants,
      skipped: counts.merchants,
      unchanged: counts.files + Object.keys(globalFiles).length,
      changed: 0,
      withdrawn: 0,
      seconds: seconds(),
    };
  }

  const total = candidates ? candidates.length : await source.count();
  // Smaller batches in a small incremental run share the work out evenly between this thread and
  // the worker; a large one (the daily snapshots of every merchant) takes full ones, so its packs
  // stay one for 500 merchants.
  const batchSize = input.batchSize ?? (since !== null && total <= 20_000 ? 100 : 500);
  // The entries this run writes (rendered, or carried with a new stamp; the index's other rows
  // stay): kept by the folder's own index on disk until the commit, so that the run holds a
  // batch's at a time (issue 35: 500 MB of RSS at any size); kept here when the commit publishes
  // them to the shared table (PostgreSQL), which needs them whole.
  const staging = documents === null && !index.publishesDocuments ? (index.staging ?? null) : null;
  await staging?.clear();
  const written = new Map<string, IndexEntry>();
  let writtenCount = 0;
  let writtenFiles = 0;
  const totals = emptyCounters();
  /** Merchants read by a full pass (kept only without staging: the staged rows say it then). */
  const seen = staging ? null : new Set<string>();
  const withdrawnIds: string[] = [];
  let done = 0;
  const inFlight = new Set<Promise<void>>();
  const failures: { abId: string; message: string }[] = [];
  // Only a later run tells anyone what changed: a first one counts them.
  const changed: string[] = [];
  let changedCount = 0;
  let batchFailure: Error | null = null;

  const collect = async (result: BatchResult, size: number) => {
    stage.stageDocuments(result.documents);
    for (const pack of result.packs) stage.recordPack(pack);
    stage.stageServe(
      result.entries.map(([abId, entry]) => ({ abId, record: serveRecordOf(entry), replaces: previous !== null })),
    );
    if (staging) await staging.add(result.entries);
    else for (const [abId, entry] of result.entries) written.set(abId, entry);
    writtenCount += result.entries.length;
    for (const [, entry] of result.entries) writtenFiles += Object.keys(entry.hashes).length;
    for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += result[key];
    failures.push(...result.failures);
    if (previous !== null) changed.push(...result.changed);
    changedCount += result.changed.length;
    done += size;
    input.onProgress?.({ done, total });
    // Started with --expose-gc (jobs/compile-cache.ts): a collection every 10,000 merchants keeps
    // the garbage of the batches taken in from piling up (V8 let a first publication's main
    // thread grow by about 150 MB at 100,000 merchants before collecting).
    if (collectGarbage && done - collectedAt >= 10_000) {
      collectedAt = done;
      collectGarbage();
    }
  };
  const collectGarbage = (globalThis as { gc?: () => void }).gc;
  let collectedAt = 0;

  // Stamps are read before the profiles: a file is never recorded with a stamp newer than its content.
  let position = 0;
  let after = "";
  const nextStamps = async (): Promise<MerchantStamp[] | null> => {
    if (candidates) {
      if (position >= candidates.length) return null;
      const wanted = candidates.slice(position, position + batchSize);
      position += wanted.length;
      const found = await source.stampsOf(wanted);
      const known = new Set(found.map((stamp) => stamp.abId));
      // Gone from the store: withdrawn like a merchant no longer listed.
      for (const abId of wanted) if (!known.has(abId)) withdrawnIds.push(abId);
      const missing = wanted.length - found.length;
      if (missing > 0) {
        done += missing;
        input.onProgress?.({ done, total });
      }
      return found;
    }
    const stamps = await source.stampsAfter(after, batchSize);
    if (stamps.length === 0) return null;
    after = stamps[stamps.length - 1]?.abId ?? after;
    return stamps;
  };

  try {
    for (let stamps = await nextStamps(); stamps !== null; stamps = await nextStamps()) {
      const old = await index.entriesOf(stamps.map((stamp) => stamp.abId));
      const items: BatchItem[] = [];
      let skippedHere = 0;
      for (const stamp of stamps) {
        seen?.add(stamp.abId);
        if (!isPublishedStatus(stamp.status)) {
          withdrawnIds.push(stamp.abId);
          skippedHere += 1;
          continue;
        }
        items.push({ abId: stamp.abId, stamp: stamp.stamp, status: stamp.status, old: old.get(stamp.abId) ?? null });
      }
      if (verify) withoutMissingDocuments(stage, items);
      if (skippedHere > 0) {
        done += skippedHere;
        input.onProgress?.({ done, total });
      }
      if (items.length === 0) continue;
      const active = await startRunner();
      const packs = { documents: stage.nextPack(), snapshots: stage.nextPack() };
      const task: Promise<void> = active
        .run(items, packs)
        .then(
          (result) => collect(result, items.length),
          (error: unknown) => {
            batchFailure ??= error instanceof Error ? error : new Error(String(error));
          },
        )
        .finally(() => inFlight.delete(task));
      inFlight.add(task);
      // Whichever batch ends first frees its place (this thread's own batch usually does).
      if (inFlight.size >= Math.max(1, active.concurrency)) await Promise.race(inFlight);
      if (batchFailure) break;
    }
    await Promise.all(inFlight);
    if (batchFailure) throw batchFailure;
  } finally {
    await (runner as BatchRunner | null)?.close();
  }

  // Withdrawal: merchants no longer published, merchants gone from the store and, on a full pass,
  // index rows of merchants the store no longer has and documents in the packs nobody owns.
  let indexed: Set<string>;
  let withdrawn: Set<string>;
  if (candidates) {
    indexed = new Set((await index.entriesOf(withdrawnIds)).keys());
    withdrawn = new Set(withdrawnIds.filter((abId) => indexed.has(abId)));
  } else if (staging) {
    // A full pass staged every merchant it still publishes: the index's other rows go.
    indexed = new Set(await staging.unstaged());
    withdrawn = new Set(indexed);
  } else {
    indexed = new Set(await index.abIds());
    withdrawn = new Set(withdrawnIds.filter((abId) => indexed.has(abId)));
    for (const abId of indexed) if (!seen?.has(abId)) withdrawn.add(abId);
  }
  if (!candidates) {
    for (const page of pagesOf(stage.servedMerchants(), 1000)) {
      const kept = staging ? await staging.among(page) : new Set(page.filter((abId) => written.has(abId)));
      for (const abId of page) if (!kept.has(abId)) withdrawn.add(abId);
    }
  }
  let deleted = totals.deleted;
  for (const abId of withdrawn) {
    written.delete(abId);
    deleted += withdrawFromPacks(stage, abId);
  }
  const withdrawnIndexed = [...withdrawn].filter((abId) => indexed.has(abId));
  if (previous !== null) changed.push(...withdrawnIndexed);
  changedCount += withdrawnIndexed.length;

  // Files that belong to no merchant: the key set and the static server configuration.
  const files: Record<string, string> = {};
  const globalWritten: string[] = [];
  for (const [relative, file] of Object.entries(globalFiles)) {
    files[relative] = file.hash;
    if (previous?.files[relative] === file.hash && folder.exists(relative)) totals.unchanged += 1;
    else {
      folder.write(relative, file.text);
      globalWritten.push(relative);
      totals.written += 1;
    }
  }
  const keySetRemoved = !input.keySet && folder.remove(KEY_SET_PATH);
  if (keySetRemoved) deleted += 1;
  // What the table had of these merchants: read before the index moves.
  const before =
    (documents && !tableBehind) || index.publishesDocuments
      ? await index.entriesOf([...written.keys(), ...withdrawn])
      : new Map<string, IndexEntry>();
  const publication = async (replaceAll: boolean, withServeIndex: boolean) =>
    publicationOf({
      read: (relative) => stage.read(relative) ?? folder.read(relative),
      before,
      written,
      withdrawn,
      everyEntry: async () => Object.entries((await index.snapshot())?.merchants ?? {}),
      globalFiles: {
        written: globalWritten,
        present: Object.keys(globalFiles),
        removed: keySetRemoved ? [KEY_SET_PATH] : [],
      },
      replaceAll,
      serveIndex: withServeIndex ? formatServeIndex(publishKey, await index.serveRows()) : null,
      runGeneratedAt: now.toISOString(),
      publishKey,
      at: new Date().toISOString(),
    });

  const run = {
    meta: {
      publishKey,
      codeKey,
      generatedAt: now.toISOString(),
      cursor,
      files,
      retry: failures.map((failure) => failure.abId),
    },
    upserts: written,
    deletes: withdrawn,
  };
  // The packs first (what this machine serves), then the job's index: on PostgreSQL the index and
  // the published documents are one transaction (the serve index is made from the index's rows
  // inside it); with the folder's own index the shared table follows it.
  stage.commit({ publishKey, run: now.toISOString() });
  await index.commit(run, index.publishesDocuments ? await publication(false, false) : null);
  if (documents && !index.publishesDocuments) {
    await documents.publish(await publication(tableBehind, true));
  }

  if (previous !== null && changed.length > 0) await input.onMerchantsChanged?.(changed);
  if (failures.length > 0) {
    process.emitWarning(
      `refresh: ${failures.length} merchant(s) failed to render, e.g. ${failures[0]?.abId}: ${failures[0]?.message}`,
    );
  }
  const counts = await index.counts();
  // Merchants an incremental run left as they were, and their files.
  const carried = candidates ? Math.max(0, counts.merchants - writtenCount) : 0;
  const carriedFiles = candidates ? Math.max(0, counts.files - writtenFiles) : 0;
  return {
    merchants: counts.merchants,
    rendered: totals.rendered,
    skipped: totals.skipped + carried,
    written: totals.written,
    unchanged: totals.unchanged + carriedFiles,
    snapshotsSigned: totals.snapshotsSigned,
    changed: changedCount,
    withdrawn: withdrawn.size,
    deleted,
    failed: totals.failed,
    seconds: seconds(),
  };
}

interface GlobalFile {
  text: string;
  hash: string;
}

/** The files that belong to no merchant, rendered (cheap): the key set and the static server configuration. */
function renderGlobalFiles(input: RefreshInput): Record<string, GlobalFile> {
  const files: Record<string, GlobalFile> = {};
  const add = (relative: string, text: string) => {
    files[relative] = { text, hash: bodyHash(Buffer.from(text, "utf8")) };
  };
  if (input.keySet) add(KEY_SET_PATH, JSON.stringify(input.keySet()));
  for (const [name, build] of Object.entries(STATIC_CONFIG_FILES)) add(name, build());
  return files;
}

/** An iterable cut into arrays of `size`. */
function* pagesOf<T>(items: Iterable<T>, size: number): Generator<T[]> {
  let page: T[] = [];
  for (const item of items) {
    page.push(item);
    if (page.length >= size) {
      yield page;
      page = [];
    }
  }
  if (page.length > 0) yield page;
}

function inlineRunner(context: BatchContext): BatchRunner {
  return {
    concurrency: 1,
    run: (items, packs) => renderBatch(context, items, packs),
    close: async () => undefined,
  };
}

/**
 * Verification (publisher.ts `verify`): a document the index records but the packs lack, or hold
 * with other bytes, is dropped from the merchant's old entry, so the merchant is rendered and the
 * document written again.
 */
function withoutMissingDocuments(stage: PackStage, items: BatchItem[]): void {
  const paths: string[] = [];
  for (const item of items) {
    for (const kind of Object.keys(item.old?.hashes ?? {}) as PublishedKind[])
      paths.push(publishedPath(kind, item.abId));
  }
  const present = stage.locations(paths);
  for (const item of items) {
    if (!item.old) continue;
    let hashes: IndexEntry["hashes"] | null = null;
    for (const [kind, hash] of Object.entries(item.old.hashes) as [PublishedKind, string][]) {
      if (present.get(publishedPath(kind, item.abId))?.sha256 === hash) continue;
      hashes ??= { ...item.old.hashes };
      delete hashes[kind];
    }
    if (hashes) item.old = { ...item.old, hashes };
  }
}

/** Removes a withdrawn merchant's documents from the packs (at the run's generation); answers how many it had. */
function withdrawFromPacks(stage: PackStage, abId: string): number {
  const paths = PUBLISHED_KINDS.map((kind) => publishedPath(kind, abId));
  const present = stage.locations(paths);
  const rows: StagedDocument[] = paths.map((relative) => ({ path: relative, location: null, replaces: true }));
  stage.stageDocuments(rows);
  stage.stageServe([{ abId, record: null, replaces: true }]);
  return present.size;
}

/** Runs a function in one read transaction: the profiles of a batch come from one snapshot of the store. */
export function readTransactionOf(db: Db): <T>(work: () => T) => T {
  return <T>(work: () => T): T => db.$client.transaction(work)();
}

/** Every kind a merchant may have on disk (for tests and tools). */
export const MERCHANT_FILE_KINDS = PUBLISHED_KINDS;
