/**
 * A refresh worker thread: renders the batches the main thread sends, on its own read-only
 * connection, writing into the same publish folder (atomic renames, distinct merchants per batch).
 * On PostgreSQL (`databaseUrl` set: DATABASE_URL) the thread opens a pool of its own (a pool
 * cannot cross threads) and loads profiles through it.
 */
import path from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import { openDatabase } from "../store/db.ts";
import { openPostgresPool } from "../store/postgres/pool.ts";
import { createPostgresProfileLoader } from "../store/postgres/publish-source.ts";
import { createProfileLoader } from "../store/publish-source.ts";
import { packWriters } from "./pack-files.ts";
import { STATE_DIRNAME } from "./publish-folder.ts";
import { readTransactionOf } from "./publisher.ts";
import { type BatchItem, type BatchPacks, renderBatch } from "./render-batch.ts";
import { publishSigning } from "./signing-hooks.ts";

export interface WorkerSetup {
  databaseFile: string;
  /** DATABASE_URL when the store is on PostgreSQL; absent: the SQLite file. */
  databaseUrl?: string;
  dataDir: string;
  publishDir: string;
  /** The run's zstd dictionary (pack-files.ts): the same frames whichever thread encodes them. */
  dictionary: { id: number; body: Uint8Array };
  baseUrl: string;
  orderRailEnabled: boolean;
  nowIso: string;
  skipAllowed: boolean;
  renewBeforeMs: number;
  snapshots: boolean;
}

const setup = workerData as WorkerSetup;
const pool = setup.databaseUrl ? openPostgresPool({ url: setup.databaseUrl, poolMax: 2, poolTimeoutMs: 30_000 }) : null;
const db = pool ? null : openDatabase(setup.databaseFile, { readonly: true, small: true });
const loader = pool ? createPostgresProfileLoader(pool) : db ? createProfileLoader(db) : null;
if (!loader) throw new Error("refresh worker: no store to read");
const context = {
  loadProfiles: (abIds: readonly string[]) => loader.load(abIds),
  packWriter: packWriters(path.join(setup.publishDir, STATE_DIRNAME), {
    id: setup.dictionary.id,
    body: Buffer.from(setup.dictionary.body),
  }),
  baseUrl: setup.baseUrl,
  orderRailEnabled: setup.orderRailEnabled,
  now: new Date(setup.nowIso),
  skipAllowed: setup.skipAllowed,
  renewBeforeMs: setup.renewBeforeMs,
  issueSnapshot: setup.snapshots ? publishSigning({ dataDir: setup.dataDir }).snapshotIssuer : null,
  ...(db ? { readTransaction: readTransactionOf(db) } : {}),
};

/** The batches being rendered: closing waits for them, so no render loses its store midway. */
const inFlight = new Set<Promise<unknown>>();

parentPort?.on("message", (message: { id: number; items: BatchItem[]; packs: BatchPacks } | { close: true }) => {
  if ("close" in message) {
    // Closing the store and the port lets the thread exit on its own (worker-runner.ts says why
    // it is not terminated).
    void Promise.allSettled(inFlight).then(async () => {
      db?.$client.close();
      await pool?.end();
      parentPort?.close();
    });
    return;
  }
  // A failure rejects unhandled, which ends the worker with an error the runner reports.
  const rendering = renderBatch(context, message.items, message.packs).then((result) =>
    parentPort?.postMessage({ id: message.id, result }),
  );
  inFlight.add(rendering);
  void rendering.finally(() => inFlight.delete(rendering));
});
