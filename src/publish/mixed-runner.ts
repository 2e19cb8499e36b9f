import type { BatchRunner } from "./render-batch.ts";

/**
 * Batches go to the workers while they have room, to this thread otherwise. This thread renders
 * synchronously, so its batch starts on the next turn of the event loop: the workers' answers
 * that arrived meanwhile are taken in first and each worker is handed its next batch before this
 * thread is busy again. (Choosing "this thread when it is free" sent every batch here: a batch
 * rendered here is over before the next one is handed out, and the worker idled.)
 */
export function mixedRunner(here: BatchRunner, workers: BatchRunner): BatchRunner {
  return {
    concurrency: workers.concurrency + 1,
    run(items, packs) {
      if (workers.hasRoom?.() ?? false) return workers.run(items, packs);
      return new Promise<void>((resolve) => setImmediate(resolve)).then(() => here.run(items, packs));
    },
    async close() {
      await Promise.all([here.close(), workers.close()]);
    },
  };
}
