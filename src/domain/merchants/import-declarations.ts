import { isServiceError, type ValidationIssue, validationError } from "../../errors/service-error.ts";
import { addMerchant } from "./add-merchant.ts";
import type { Actor, MerchantLifecycleDeps } from "./merchant-registry.ts";
import { updateMerchant } from "./update-merchant.ts";

/** Where a bulk import stopped: the last line whose outcome is written (resuming skips up to it). */
export interface ImportCheckpoints {
  read(importKey: string): number;
  write(importKey: string, line: number): void;
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

const CHECKPOINT_EVERY = 200;

/**
 * A bulk import of merchant declarations, one JSON object a line (NDJSON): a SIRET already
 * registered updates its merchant, a new one adds a merchant, and a line that does not validate
 * is reported with its number and errors while the import goes on. Each line is its own
 * transaction; the same file twice changes nothing the second time, and a run killed midway
 * resumes after the last line it recorded (`importKey` names the file's content).
 */
export async function importDeclarations(
  deps: MerchantLifecycleDeps & { checkpoints: ImportCheckpoints },
  lines: AsyncIterable<ImportLine>,
  options: {
    importKey: string;
    actor: Actor;
    onProgress?: (report: ImportReport, line: number) => void;
    /** Told of each merchant a line added or changed (to bring derived indexes along). */
    onChanged?: (abId: string) => void;
  },
): Promise<ImportReport> {
  const report: ImportReport = { read: 0, created: 0, updated: 0, unchanged: 0, resumed: 0, rejected: [] };
  const doneUpTo = deps.checkpoints.read(options.importKey);
  let last = doneUpTo;
  for await (const { number, text } of lines) {
    if (text.trim() === "") continue;
    report.read += 1;
    if (number <= doneUpTo) {
      report.resumed += 1;
      continue;
    }
    try {
      const changed = applyLine(deps, text, options.actor, report);
      if (changed) options.onChanged?.(changed);
    } catch (failure) {
      if (!isServiceError(failure)) throw failure;
      report.rejected.push({
        line: number,
        issues: failure.details.issues ?? [{ path: "", message: failure.message }],
      });
    }
    last = number;
    if (report.read % CHECKPOINT_EVERY === 0) deps.checkpoints.write(options.importKey, last);
    options.onProgress?.(report, number);
  }
  deps.checkpoints.write(options.importKey, last);
  return report;
}

/** Applies one line; the ab_id of the merchant it added or changed, or null. */
function applyLine(deps: MerchantLifecycleDeps, text: string, actor: Actor, report: ImportReport): string | null {
  let declaration: unknown;
  try {
    declaration = JSON.parse(text);
  } catch (error) {
    throw validationError([{ path: "", message: `the line is not JSON (${(error as Error).message})` }]);
  }
  const siret = (declaration as { siret?: unknown } | null)?.siret;
  const existing = typeof siret === "string" ? deps.registry.abIdOfSiret(siret) : null;
  if (!existing) {
    const added = addMerchant(deps, declaration, actor);
    report.created += 1;
    return added.abId;
  }
  const { siret: _siret, ...update } = declaration as Record<string, unknown>;
  const updated = updateMerchant(deps, existing, update, actor);
  if (updated.changed.length === 0) {
    report.unchanged += 1;
    return null;
  }
  report.updated += 1;
  return existing;
}
