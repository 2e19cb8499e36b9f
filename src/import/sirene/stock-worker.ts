import { parentPort, workerData } from "node:worker_threads";
import {
  failureOf,
  type ReadCounts,
  type ReadingFailure,
  type ReadingProgress,
  type RowToApply,
  readStock,
  type StockReadingOptions,
} from "./stock-reader.ts";

/*
 * The thread that reads a SIRENE stock (stock-reader.ts) beside the one that applies it
 * (import-sirene.ts): inflating, splitting and setting aside 43.9 million rows takes a core of its
 * own. It sends the rows to apply in batches, at most BATCHES_AHEAD ahead of the batch the main
 * thread has taken last ("taken"), so memory holds a few batches whatever the file's size.
 */

/** What the reading thread says, in order. */
export type ReadingMessage =
  | { type: "progress"; progress: ReadingProgress }
  /** The stock's date, before any row (stock-reader.ts). */
  | { type: "dated"; stockDate: string | null }
  | { type: "rows"; batch: RowToApply[]; counts: ReadCounts; progress: ReadingProgress }
  | { type: "done"; result: Awaited<ReturnType<typeof readStock>> }
  | { type: "failed"; failure: ReadingFailure };

/** What the main thread answers: it has taken a batch. */
export const TAKEN = "taken";

const BATCHES_AHEAD = 3;

/** The worker's data: what to read (the mark tells this thread from any other worker). */
export interface StockWorkerData {
  stockReading: StockReadingOptions;
}

const started = workerData as Partial<StockWorkerData> | null;
if (parentPort && started?.stockReading) {
  const port = parentPort;
  const post = (message: ReadingMessage) => port.postMessage(message);
  let ahead = 0;
  let release: (() => void) | null = null;
  port.on("message", (message: unknown) => {
    if (message !== TAKEN) return;
    ahead -= 1;
    release?.();
    release = null;
  });
  try {
    const result = await readStock(started.stockReading, {
      dated(stockDate) {
        post({ type: "dated", stockDate });
      },
      async rows(batch, counts, progress) {
        post({ type: "rows", batch, counts, progress });
        ahead += 1;
        while (ahead >= BATCHES_AHEAD) {
          await new Promise<void>((resolve) => {
            release = resolve;
          });
        }
      },
      progress(progress) {
        post({ type: "progress", progress });
      },
    });
    post({ type: "done", result });
  } catch (error) {
    post({ type: "failed", failure: failureOf(error) });
  }
  port.close();
}
