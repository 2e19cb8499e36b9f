import { isServiceError, type ValidationIssue, validationError } from "../../errors/service-error.ts";
import type { MerchantRegistryStore, MerchantRegistryView, RegistryBatchKeys } from "./merchant-registry.ts";

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
  /** The line was longer than the reader keeps (its text is not given): rejected with its number. */
  overLimit?: true;
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

/**
 * How an import applies a line: the merchants it reads (`keysOf`, told the line's JSON value), and
 * its decision over the registry as the batch sees it.
 */
export interface LineApplier {
  keysOf: (value: unknown) => RegistryBatchKeys;
  apply: (registry: MerchantRegistryView, value: unknown) => LineOutcome;
}

/** Lines applied per transaction (each line a savepoint inside it), and between two checkpoints. */
const LINES_PER_TRANSACTION = 200;

/**
 * A bulk import of one JSON object a line (NDJSON), each applied by `apply`: a line that is not
 * JSON or does not validate is reported with its number and errors while the import goes on, and
 * a run killed midway resumes after the last line it recorded. Blank lines are skipped. Lines are
 * applied a batch at a time in one `applyBatch` of the registry (each line a row of it, so a refused
 * line leaves nothing), the checkpoint written after each batch.
 */
export async function importJsonLines(
  deps: { registry: Pick<MerchantRegistryStore, "applyBatch">; checkpoints: ImportCheckpoints },
  lines: AsyncIterable<ImportLine>,
  options: JsonLinesOptions,
  applier: LineApplier,
): Promise<ImportReport> {
  const { checkpoints } = deps;
  const report: ImportReport = { read: 0, created: 0, updated: 0, unchanged: 0, resumed: 0, rejected: [] };
  const doneUpTo = await checkpoints.read(options.importKey);
  let batch: ImportLine[] = [];
  const applyBatch = async () => {
    if (batch.length === 0) return;
    const applying = batch.map((line) => ({
      line,
      value: line.overLimit ? new UnreadableLine(TOO_LONG) : jsonOf(line.text),
    }));
    batch = [];
    const keys = mergedKeys(
      applying.flatMap(({ value }) => (value instanceof UnreadableLine ? [] : [applier.keysOf(value.json)])),
    );
    await deps.registry.applyBatch(keys, (registry) => {
      for (const { line, value } of applying) applyLine(line.number, value, registry, applier, report, options);
    });
    // After the batch's transaction has committed: a transaction never spans an await.
    await checkpoints.write(options.importKey, (applying[applying.length - 1] as { line: ImportLine }).line.number);
  };
  for await (const line of lines) {
    if (!line.overLimit && line.text.trim() === "") continue;
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

const TOO_LONG = "the line is longer than 1 MiB; a line holds one declaration of a few kilobytes";

/** A line that cannot be read as a JSON value, and why (said to the operator with its number). */
class UnreadableLine {
  readonly message: string;
  constructor(message: string) {
    this.message = message;
  }
}

function jsonOf(text: string): { json: unknown } | UnreadableLine {
  try {
    return { json: JSON.parse(text) as unknown };
  } catch (error) {
    return new UnreadableLine(`the line is not JSON (${(error as Error).message})`);
  }
}

/** The keys of several lines as one batch's. */
export function mergedKeys(all: RegistryBatchKeys[]): RegistryBatchKeys {
  return {
    abIds: [...new Set(all.flatMap((keys) => keys.abIds ?? []))],
    sirets: [...new Set(all.flatMap((keys) => keys.sirets ?? []))],
    sirens: [...new Set(all.flatMap((keys) => keys.sirens ?? []))],
  };
}

function applyLine(
  number: number,
  value: { json: unknown } | UnreadableLine,
  registry: MerchantRegistryView,
  applier: LineApplier,
  report: ImportReport,
  options: JsonLinesOptions,
): void {
  try {
    if (value instanceof UnreadableLine) {
      throw validationError([{ path: "", message: value.message }]);
    }
    const { outcome, abId } = registry.row(() => applier.apply(registry, value.json));
    report[outcome] += 1;
    if (outcome !== "unchanged") options.onChanged?.(abId);
  } catch (failure) {
    if (!isServiceError(failure)) throw failure;
    report.rejected.push({ line: number, issues: failure.details.issues ?? [{ path: "", message: failure.message }] });
  }
  options.onProgress?.(report, number);
}
