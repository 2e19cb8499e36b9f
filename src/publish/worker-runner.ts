import os from "node:os";
import { Worker } from "node:worker_threads";
import type { BatchRunner, RefreshInput } from "./publisher.ts";
import type { WorkerSetup } from "./refresh-worker.ts";
import type { BatchItem, BatchResult } from "./render-batch.ts";

/**
 * Renders batches in worker threads (one per core by default, at most 4), so a full refresh uses
 * every core: rendering is CPU-bound, the store is read concurrently (WAL) and each file write is
 * an atomic rename. Workers run the TypeScript sources as the job does (Node strips the types).
 */
export function workerRunner(
  config: { databaseFile: string; dataDir: string; baseUrl: string; publicOrderRailEnabled: boolean },
  settings: { publishDir: string },
  count?: number,
): NonNullable<RefreshInput["runner"]> {
  return (context, options = {}) => {
    const size = Math.max(1, (count ?? Math.min(4, os.availableParallelism())) - (options.spareOneCore ? 1 : 0));
    const setup: WorkerSetup = {
      databaseFile: config.databaseFile,
      dataDir: config.dataDir,
      publishDir: settings.publishDir,
      baseUrl: context.baseUrl,
      orderRailEnabled: context.orderRailEnabled,
      nowIso: context.now.toISOString(),
      skipAllowed: context.skipAllowed,
      renewBeforeMs: context.renewBeforeMs,
      snapshots: context.issueSnapshot !== null,
    };
    const entry = new URL("./refresh-worker.ts", import.meta.url);

    const pending = new Map<number, { resolve: (result: BatchResult) => void; reject: (error: Error) => void }>();
    const idle: Worker[] = [];
    const queue: { id: number; items: BatchItem[] }[] = [];
    const busy = new Map<Worker, number>();
    let nextId = 0;
    let failure: Error | null = null;

    const dispatch = () => {
      while (idle.length > 0 && queue.length > 0) {
        const worker = idle.pop() as Worker;
        const job = queue.shift() as { id: number; items: BatchItem[] };
        busy.set(worker, job.id);
        worker.postMessage(job);
      }
    };
    const workers = Array.from({ length: size }, () => {
      const worker = new Worker(entry, { workerData: setup });
      worker.on("message", (message: { id: number; result: BatchResult }) => {
        busy.delete(worker);
        pending.get(message.id)?.resolve(message.result);
        pending.delete(message.id);
        idle.push(worker);
        dispatch();
      });
      worker.on("error", (error) => {
        failure = error;
        const id = busy.get(worker);
        if (id !== undefined) {
          pending.get(id)?.reject(error);
          pending.delete(id);
        }
      });
      idle.push(worker);
      return worker;
    });

    const runner: BatchRunner = {
      concurrency: size * 2,
      run(items) {
        if (failure) return Promise.reject(failure);
        const id = nextId++;
        const promise = new Promise<BatchResult>((resolve, reject) => pending.set(id, { resolve, reject }));
        queue.push({ id, items });
        dispatch();
        return promise;
      },
      async close() {
        await Promise.all(workers.map((worker) => worker.terminate()));
      },
    };
    return runner;
  };
}
