import os from "node:os";
import { Worker } from "node:worker_threads";
import type { RefreshInput } from "./publisher.ts";
import type { WorkerSetup } from "./refresh-worker.ts";
import type { BatchItem, BatchPacks, BatchResult, BatchRunner } from "./render-batch.ts";

/** Batches a worker holds at once: the one it renders and the next. */
const BATCHES_PER_WORKER = 2;

/**
 * A render thread's heap: a batch's profiles and documents are a few MB live, but V8's default
 * young generation (48 MB a thread here) and an old generation left to grow until it is worth
 * collecting took a full refresh to 930 MB of RSS at 29,000 merchants, two workers and the main
 * thread (issue 35 asks for 500 MB at any size). 12 MB young (4 MB semi-spaces) collects as
 * often for the same work; the old generation's limit is far above a batch's needs and makes V8
 * collect before it grows.
 */
const WORKER_HEAP = { maxYoungGenerationSizeMb: 12, maxOldGenerationSizeMb: 128 };

/** How long a worker asked to close may take before it is terminated. */
const CLOSE_TIMEOUT_MS = 10_000;

/**
 * Ends a worker by asking it to close its store and its port, so it exits on its own once idle.
 * `worker.terminate()` on a thread holding a better-sqlite3 database can abort the whole process
 * on Node 24 (better-sqlite3 issue #1507, FATAL ERROR napi_throw): it is only the fallback for a
 * worker that does not exit in time.
 */
async function endWorker(worker: Worker, exited: Promise<unknown>): Promise<void> {
  worker.postMessage({ close: true });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), CLOSE_TIMEOUT_MS);
  });
  const outcome = await Promise.race([exited, late]);
  clearTimeout(timer);
  if (outcome === "late") await worker.terminate();
}

/**
 * Renders batches in worker threads (one per core by default, at most 4), so a full refresh uses
 * every core: rendering is CPU-bound, the store is read concurrently (WAL) and each file write is
 * an atomic rename. Workers run the TypeScript sources as the job does (Node strips the types).
 */
export function workerRunner(
  config: {
    databaseFile: string;
    /** DATABASE_URL: each worker opens its own pool to it (refresh-worker.ts). */
    databaseUrl?: string | null;
    dataDir: string;
    baseUrl: string;
    publicOrderRailEnabled: boolean;
  },
  settings: { publishDir: string },
  count?: number,
): NonNullable<RefreshInput["runner"]> {
  return (context, options = {}) => {
    const size = Math.max(1, (count ?? Math.min(4, os.availableParallelism())) - (options.spareOneCore ? 1 : 0));
    const setup: WorkerSetup = {
      databaseFile: config.databaseFile,
      ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
      dataDir: config.dataDir,
      publishDir: settings.publishDir,
      dictionary: context.dictionary,
      baseUrl: context.baseUrl,
      orderRailEnabled: context.orderRailEnabled,
      nowIso: context.now.toISOString(),
      skipAllowed: context.skipAllowed,
      renewBeforeMs: context.renewBeforeMs,
      snapshots: context.issueSnapshot !== null,
    };
    const entry = new URL("./refresh-worker.ts", import.meta.url);

    const pending = new Map<number, { resolve: (result: BatchResult) => void; reject: (error: Error) => void }>();
    const queue: { id: number; items: BatchItem[]; packs: BatchPacks }[] = [];
    /** The batches posted to each worker and not answered yet (a worker renders its own in order). */
    const posted = new Map<Worker, Set<number>>();
    let nextId = 0;
    let failure: Error | null = null;

    const leastLoaded = (): Worker | null => {
      let best: Worker | null = null;
      for (const [worker, ids] of posted) if (best === null || ids.size < (posted.get(best)?.size ?? 0)) best = worker;
      return best !== null && (posted.get(best)?.size ?? 0) < BATCHES_PER_WORKER ? best : null;
    };
    // A worker holds its next batch in its own message queue, so it never waits for this thread
    // (which may be rendering, or reading stamps) to hand it one.
    const dispatch = () => {
      for (let worker = leastLoaded(); worker !== null && queue.length > 0; worker = leastLoaded()) {
        const job = queue.shift() as { id: number; items: BatchItem[]; packs: BatchPacks };
        posted.get(worker)?.add(job.id);
        worker.postMessage(job);
      }
    };
    const exits = new Map<Worker, Promise<unknown>>();
    const workers = Array.from({ length: size }, () => {
      const worker = new Worker(entry, { workerData: setup, resourceLimits: WORKER_HEAP });
      // Not events.once: it would reject on the worker's "error", which the handler below reports.
      exits.set(worker, new Promise((resolve) => worker.once("exit", resolve)));
      posted.set(worker, new Set());
      worker.on("message", (message: { id: number; result: BatchResult }) => {
        posted.get(worker)?.delete(message.id);
        pending.get(message.id)?.resolve(message.result);
        pending.delete(message.id);
        dispatch();
      });
      worker.on("error", (error) => {
        failure = error;
        // The run fails: the batches this worker held and those not handed out yet fail with it
        // (none is left waiting for a worker), the other workers finish what they hold.
        const lost = [...(posted.get(worker) ?? []), ...queue.splice(0).map((job) => job.id)];
        for (const id of lost) {
          pending.get(id)?.reject(error);
          pending.delete(id);
        }
        posted.delete(worker);
      });
      return worker;
    });

    const runner: BatchRunner = {
      concurrency: size * BATCHES_PER_WORKER,
      hasRoom: () => failure === null && queue.length === 0 && leastLoaded() !== null,
      run(items, packs) {
        if (failure) return Promise.reject(failure);
        const id = nextId++;
        const promise = new Promise<BatchResult>((resolve, reject) => pending.set(id, { resolve, reject }));
        queue.push({ id, items, packs });
        dispatch();
        return promise;
      },
      async close() {
        await Promise.all(workers.map((worker) => endWorker(worker, exits.get(worker) ?? Promise.resolve())));
      },
    };
    return runner;
  };
}
