import { isServiceError, type ValidationIssue, validationError } from "../../errors/service-error.ts";
import type { MerchantRegistryStore } from "./merchant-registry.ts";

/** Where a bulk import stopped: the last line whose outcome is written (resuming skips up to it). */
export interface ImportCheckpoints {
  read(importKey: string): Promise<number>;
  write(importKey: string, line: number): Promise<void>;
}

export interface ImportReport {
  read: number;
  created: number;
  updated: number;
  unchanged: number;
  /** Lines skipped because a previous run of the same file already did them. */
  resumed: number;
  rejected: { line: number; issues: ValidationIssue[] }[];
}

export interface ImportLine {
  number: number;
  text: string;
}

/** What one line did, and to which merchant. */
export interface LineOutcome {
  outcome: "created" | "updated" | "unchanged";
  abId: string;
}

export interface JsonLinesOptions {
  /** Names the file's content: a run of the same content resumes where the last one stopped. */
  importKey: string;
  onProgress?: (report: ImportReport, line: number) => void;
  /** Told of each merchant a line added or changed (to bring derived indexes along). */
  onChanged?: (abId: string) => void;
}

/** Lines applied per transaction (each line a savepoint inside it), and between two checkpoints. */
const LINES_PER_TRANSACTION = 200;

/**
 * A bulk import of one JSON object a line (NDJSON), each applied by `apply`: a line that is not
 * JSON or does not validate is reported with its number and errors while the import goes on, and
 * a run killed midway resumes after the last line it recorded. Blank lines are skipped. Lines are
 * applied a batch at a time inside the registry's `inOneTransaction` (each line's write a savepoint of it, so a
 * refused line leaves nothing), the checkpoint written after each batch.
 */
export async function importJsonLines(
  deps: { registry: Pick<MerchantRegistryStore, "inOneTransaction">; checkpoints: ImportCheckpoints },
  lines: AsyncIterable<ImportLine>,
  options: JsonLinesOptions,
  apply: (value: unknown) => LineOutcome,
): Promise<ImportReport> {
  const { checkpoints } = deps;
  const report: ImportReport = { read: 0, created: 0, updated: 0, unchanged: 0, resumed: 0, rejected: [] };
  const doneUpTo = await checkpoints.read(options.importKey);
  let batch: ImportLine[] = [];
  const applyBatch = async () => {
    if (batch.length === 0) return;
    const applying = batch;
    batch = [];
    deps.registry.inOneTransaction(() => {
      for (const line of applying) applyLine(line, apply, report, options);
    });
    // After the batch's transaction has committed: a transaction never spans an await.
    await checkpoints.write(options.importKey, (applying[applying.length - 1] as ImportLine).number);
  };
  for await (const line of lines) {
    if (line.text.trim() === "") continue;
    report.read += 1;
    if (line.number <= doneUpTo) {
      report.resumed += 1;
      continue;
    }
    batch.push(line);
    if (batch.length >= LINES_PER_TRANSACTION) await applyBatch();
  }
  await applyBatch();
  return report;
}

function applyLine(
  { number, text }: ImportLine,
  apply: (value: unknown) => LineOutcome,
  report: ImportReport,
  options: JsonLinesOptions,
): void {
  try {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw validationError([{ path: "", message: `the line is not JSON (${(error as Error).message})` }]);
    }
    const { outcome, abId } = apply(value);
    report[outcome] += 1;
    if (outcome !== "unchanged") options.onChanged?.(abId);
  } catch (failure) {
    if (!isServiceError(failure)) throw failure;
    report.rejected.push({ line: number, issues: failure.details.issues ?? [{ path: "", message: failure.message }] });
  }
  options.onProgress?.(report, number);
}
