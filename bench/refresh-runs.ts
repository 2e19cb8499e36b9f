/**
 * One run of `npm run refresh` as a bench measures it (bench/refresh.ts, bench/national-serving.ts):
 * a child process (start-up included), its CPU time and peak RSS (GNU time) and the publish folder
 * after it (bytes on disk counted in file-system blocks, files, folders).
 */
import { spawnSync } from "node:child_process";
import { lstatSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { jobArgv } from "../jobs/compile-cache.ts";
import type { RefreshSummary } from "../src/publish/publisher.ts";
import { round } from "./lib.ts";

const root = path.resolve(import.meta.dirname, "..");

export interface RefreshRun {
  name: string;
  wallSeconds: number;
  /**
   * The refresh process's CPU time, every thread (GNU time's %U + %S), seconds: on a shared machine
   * the figure to compare, where the wall time moves with the others' load.
   */
  cpuSeconds: number;
  /** The refresh process's peak resident memory (GNU time's %M), MB. */
  peakRssMb: number;
  summary: RefreshSummary;
  /** The publish folder after the run: bytes on disk (file-system blocks) and inodes (files and folders). */
  disk: DiskUse;
}

export interface DiskUse {
  bytes: number;
  files: number;
  folders: number;
}

/** What a folder takes on disk: its blocks (not the files' apparent sizes), files and folders. */
export function diskUseOf(root: string): DiskUse {
  const use: DiskUse = { bytes: 0, files: 0, folders: 0 };
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    use.folders += 1;
    for (const name of names) {
      const full = path.join(dir, name);
      const stat = lstatSync(full);
      use.bytes += stat.blocks * 512;
      if (stat.isDirectory()) walk(full);
      else use.files += 1;
    }
  };
  walk(root);
  return use;
}

/**
 * `npm run refresh -- --json` in `env` (its DATA_DIR's publish folder is measured after it), with
 * `--workers` when given; prints a line of its figures.
 */
export function refreshRun(
  name: string,
  env: NodeJS.ProcessEnv & { DATA_DIR: string },
  options: { workers?: string; extraArgs?: string[] } = {},
): RefreshRun {
  const started = performance.now();
  const args = jobArgv(
    "jobs/refresh.ts",
    "--json",
    ...(options.workers ? ["--workers", options.workers] : []),
    ...(options.extraArgs ?? []),
  );
  // GNU time writes the child's peak RSS (KB) and CPU seconds to its own file, apart from the job's output.
  const rssFile = path.join(os.tmpdir(), `abeille-refresh-rss-${process.pid}`);
  const result = spawnSync("/usr/bin/time", ["-f", "%M %U %S", "-o", rssFile, process.execPath, ...args], {
    cwd: root,
    env,
    encoding: "utf8",
    maxBuffer: 1 << 24,
  });
  const wallSeconds = round((performance.now() - started) / 1000, 2);
  if (result.status !== 0) throw new Error(`refresh failed: ${result.stderr}`);
  const summary = JSON.parse(result.stdout.trim().split("\n").pop() ?? "{}") as RefreshSummary;
  const [rssKb = 0, user = 0, system = 0] = (readFileSync(rssFile, "utf8").trim().split("\n").pop() ?? "")
    .split(" ")
    .map(Number);
  const peakRssMb = Math.round(rssKb / 1024);
  const cpuSeconds = round(user + system, 2);
  rmSync(rssFile, { force: true });
  const disk = diskUseOf(path.join(env.DATA_DIR, "publish"));
  process.stdout.write(
    `${name}: ${summary.merchants} merchants in ${wallSeconds} s wall (${Math.round(summary.merchants / wallSeconds)} merchants/s, ` +
      `${round((wallSeconds * 1000) / Math.max(1, summary.merchants), 3)} ms a merchant; ${cpuSeconds} s of CPU, ` +
      `${round((cpuSeconds * 1000) / Math.max(1, summary.merchants), 3)} ms a merchant), peak RSS ${peakRssMb} MB; ` +
      `rendered ${summary.rendered}, written ${summary.written}, unchanged ${summary.unchanged}, signed ${summary.snapshotsSigned}; ` +
      `on disk ${round(disk.bytes / 1e6, 1)} MB, ${disk.files} files, ${disk.folders} folders\n`,
  );
  return { name, wallSeconds, cpuSeconds, peakRssMb, summary, disk };
}
