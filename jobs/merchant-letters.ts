/**
 * `npm run merchants -- letters`: prints a batch of postal letters with single-use codes (a PDF)
 * and records it (docs/merchant-space.md, "Par courrier"). Kept apart from jobs/merchants.ts,
 * which parses the command line and calls `runLetters`.
 */
import { renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Config } from "../src/config/config.ts";
import { createLetterCodeKeys } from "../src/domain/merchant-space/letter-code.ts";
import type { LetterRecipientFilter, LetterStore } from "../src/domain/merchant-space/letter-store.ts";
import { issueLetterBatch } from "../src/domain/merchant-space/letters.ts";
import { renderLettersPdf } from "../src/publish/pro/letters-pdf.ts";
import type { DeploymentFileStore } from "../src/store/deployment-files.ts";
import { loadOrCreateSecret } from "../src/store/lead-repository.ts";
import { letterCodeKeyFile } from "../src/store/letter-repository.ts";
import { CommandError, UsageError } from "./cli.ts";
import { requireSharedFiles } from "./shared-files.ts";
import { printable } from "./terminal.ts";

/** INSEE department codes: 01 to 95, 2A, 2B, 971 to 976. */
const DEPARTMENT = /^(?:\d{2}|2[AB]|97\d)$/;

/** Checks the options before anything is opened (a usage error does nothing). */
export function letterFilter(options: {
  abIds: readonly string[] | undefined;
  department: string | undefined;
  unclaimed: boolean;
  limit: number;
  out: string | undefined;
}): { filter: LetterRecipientFilter; out: string } {
  if (!options.out) throw new UsageError("letters needs --out FILE.pdf (where the printable batch goes)");
  if (!options.out.toLowerCase().endsWith(".pdf"))
    throw new UsageError(`--out must name a .pdf file, not ${printable(options.out)}`);
  const department = options.department?.trim().toUpperCase();
  if (department !== undefined && !DEPARTMENT.test(department)) {
    throw new UsageError(
      `--department must be a department code (75, 2A, 971), not ${printable(options.department ?? "")}`,
    );
  }
  for (const abId of options.abIds ?? []) {
    if (!/^ab_[a-z0-9]{8}$/.test(abId))
      throw new UsageError(`--ab-id must be an ab_id (ab_ and 8 letters or digits), not ${printable(abId)}`);
  }
  return {
    out: options.out,
    filter: {
      ...(options.abIds && options.abIds.length > 0 ? { abIds: options.abIds } : {}),
      ...(department !== undefined ? { department } : {}),
      ...(options.unclaimed ? { unclaimed: true } : {}),
      limit: options.abIds && options.abIds.length > options.limit ? options.abIds.length : options.limit,
    },
  };
}

export interface LettersReport {
  batch_id: string;
  letters: number;
  out: string;
  expires_at: string | null;
}

/**
 * Writes the PDF (to a temporary file renamed into place) and records the batch; a batch whose
 * recording fails leaves no PDF behind, since its codes would not work.
 */
export async function runLetters(
  /** The store's letters and the deployment's fingerprints, on either engine (jobs/job-store.ts). */
  store: { letters: LetterStore; deploymentFiles: DeploymentFileStore },
  config: Config,
  request: { filter: LetterRecipientFilter; out: string },
): Promise<LettersReport> {
  // The codes are keyed hashes every server checks: the key must be the deployment's, never one
  // made here (a machine without it, or with another, stops with exit status 2, nothing written).
  await requireSharedFiles(store.deploymentFiles, config, ["letterCode"]);
  const out = path.resolve(request.out);
  const temporary = `${out}.${process.pid}.tmp`;
  let written = false;
  try {
    const batch = await issueLetterBatch(
      {
        letters: store.letters,
        codeKeys: createLetterCodeKeys(() => loadOrCreateSecret(letterCodeKeyFile(config.dataDir))),
        now: () => new Date(),
      },
      request.filter,
      async (batch) => {
        if (batch.letters.length === 0) return;
        const pdf = await renderLettersPdf(batch, {
          baseUrl: config.baseUrl,
          operatorName: config.operator.name,
          teamEmail: config.mail.platformTeamEmail,
        });
        try {
          writeFileSync(temporary, pdf, { mode: 0o600 });
          renameSync(temporary, out);
        } catch (error) {
          rmSync(temporary, { force: true });
          throw new CommandError(`${printable(request.out)}: ${(error as Error).message}`);
        }
        written = true;
      },
    );
    return {
      batch_id: batch.batchId,
      letters: batch.letters.length,
      out,
      expires_at: batch.letters[0]?.expiresAt ?? null,
    };
  } catch (error) {
    if (written) rmSync(out, { force: true });
    throw error;
  }
}
