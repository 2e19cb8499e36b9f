import { parentPort, Worker, workerData } from "node:worker_threads";
import { startWalCheckpoints } from "./wal-checkpoints.ts";

/*
 * The WAL checkpoints of a command that writes millions of rows (an import), on a thread of its
 * own: the command's connection would otherwise copy the WAL back into the database inside one of
 * its commits, on the thread that applies the rows, while the process's other core mostly waits.
 * PASSIVE, on a connection of this thread's (wal-checkpoints.ts), as the server's primary does.
 */

/** How often the thread checkpoints: a bulk writer fills the WAL fast. */
const BULK_CHECKPOINT_INTERVAL_MS = 100;

interface CheckpointWorkerData {
  walCheckpoints: { databaseFile: string };
}

export interface CheckpointThread {
  stop(): Promise<void>;
}

/** Starts checkpointing `databaseFile` on a thread of its own until `stop`. */
export function startCheckpointThread(databaseFile: string): CheckpointThread {
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { walCheckpoints: { databaseFile } } satisfies CheckpointWorkerData,
  });
  // A checkpoint that fails is taken again by the next, or by the connection's own backstop.
  worker.on("error", () => undefined);
  worker.unref();
  return {
    async stop() {
      // Waited for: the thread holds the loop until it has closed its connection.
      worker.ref();
      const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
      worker.postMessage("stop");
      await exited;
    },
  };
}

const started = workerData as Partial<CheckpointWorkerData> | null;
if (parentPort && started?.walCheckpoints) {
  const port = parentPort;
  const checkpoints = startWalCheckpoints(
    started.walCheckpoints.databaseFile,
    () => undefined,
    BULK_CHECKPOINT_INTERVAL_MS,
  );
  port.on("message", (message: unknown) => {
    if (message !== "stop") return;
    checkpoints.stop();
    port.close();
  });
}
