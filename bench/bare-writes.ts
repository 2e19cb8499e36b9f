/**
 * The refresh bench's baseline, measured in the same run: the files a full refresh wrote, written
 * again by bare node:fs on as many threads as the job renders on, in the same layout and the same
 * way (a merchant's directories made, each file written beside its target and renamed over it),
 * with no rendering, no signing and no database. It says what the files alone cost on this machine
 * today, so a refresh figure can be read against the machine's speed of the day.
 */
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { isMainThread, Worker, workerData } from "node:worker_threads";
import { PUBLISHED_KINDS, publishedPath } from "../src/publish/documents.ts";

export interface MerchantFiles {
  /** Paths relative to the publish folder, with their sizes in bytes. */
  files: { relative: string; size: number }[];
}

interface WorkerInput {
  root: string;
  merchants: MerchantFiles[];
}

/** The published files of the first `limit` merchants of a publish folder (in ab_id order). */
export function merchantFilesOf(publishDir: string, limit: number): MerchantFiles[] {
  const abIds = readdirSync(path.join(publishDir, "api/merchants")).sort().slice(0, limit);
  return abIds.map((abId) => ({
    files: PUBLISHED_KINDS.flatMap((kind) => {
      const relative = publishedPath(kind, abId);
      try {
        return [{ relative, size: statSync(path.join(publishDir, relative)).size }];
      } catch {
        return [];
      }
    }),
  }));
}

/** Writes the merchants' files under `root` on `threads` threads; answers the wall and CPU seconds. */
export async function writeBare(
  merchants: MerchantFiles[],
  root: string,
  threads: number,
): Promise<{ wallSeconds: number; cpuSeconds: number }> {
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  const share = Math.ceil(merchants.length / threads);
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: threads }, (_, thread) => {
      const input: WorkerInput = { root, merchants: merchants.slice(thread * share, (thread + 1) * share) };
      const worker = new Worker(new URL(import.meta.url), { workerData: input });
      return new Promise<void>((resolve, reject) => {
        worker.once("error", reject);
        worker.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`bare writer exited with ${code}`))));
      });
    }),
  );
  const used = process.cpuUsage(cpu);
  const result = {
    wallSeconds: (performance.now() - started) / 1000,
    cpuSeconds: (used.user + used.system) / 1e6,
  };
  rmSync(root, { recursive: true, force: true });
  return result;
}

function writeShare({ root, merchants }: WorkerInput): void {
  const made = new Set<string>();
  let sequence = 0;
  for (const merchant of merchants) {
    for (const file of merchant.files) {
      const target = path.join(root, file.relative);
      const directory = path.dirname(target);
      if (!made.has(directory)) {
        mkdirSync(directory, { recursive: true });
        made.add(directory);
      }
      const temp = path.join(directory, `.${path.basename(target)}.tmp-${sequence++}`);
      writeFileSync(temp, Buffer.alloc(file.size, 0x61));
      renameSync(temp, target);
    }
  }
}

if (!isMainThread && (workerData as WorkerInput | undefined)?.merchants) writeShare(workerData as WorkerInput);
