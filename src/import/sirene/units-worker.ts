import { parentPort, workerData } from "node:worker_threads";
import { failureOf, spillLegalUnits, type UnitsMessage, type UnitsReadingOptions } from "./stock-reader.ts";

/*
 * The thread that reads a SIRENE stock's companies (StockUniteLegale, 4.3 GB of CSV in a national
 * stock) while the reading thread (stock-worker.ts) makes its first pass over the establishments:
 * each takes a core, and the reading waits for the longer of the two instead of their sum. Started
 * by the reading thread (stock-reader.ts readCompaniesBeside), which walks what it spilled.
 */

/** The worker's data: what to read (the mark tells this thread from any other worker). */
export interface UnitsWorkerData {
  unitsReading: UnitsReadingOptions;
}

const started = workerData as Partial<UnitsWorkerData> | null;
if (parentPort && started?.unitsReading) {
  const port = parentPort;
  const post = (message: UnitsMessage) => port.postMessage(message);
  try {
    const spilled = await spillLegalUnits(started.unitsReading, (bytesRead) => post({ type: "bytes", bytesRead }));
    post({ type: "done", spilled });
  } catch (error) {
    post({ type: "failed", failure: failureOf(error) });
  }
  port.close();
}
