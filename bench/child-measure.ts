/**
 * A command measured as a child process, for the national benches (bench/national.ts,
 * bench/national-serving.ts): its wall time, the CPU time and the peak RSS of its process tree
 * (sampled every 100 ms from /proc, threads included), and, when asked, the longest a writer beside
 * it waited for the store's write lock (test/helpers/lock-probe.ts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { childPids } from "../test/helpers/spawn-start.ts";
import { round } from "./lib.ts";

const root = path.resolve(import.meta.dirname, "..");

export interface ChildFigures {
  wallSeconds: number;
  cpuSeconds: number;
  peakTreeRssMb: number;
  /** The longest a writer beside the command waited for the write lock, ms; null: not probed. */
  longestLockWaitMs: number | null;
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/** CPU seconds (user and system, every thread) and RSS (MB) of a process, from /proc. */
function processFigures(pid: number): { cpuSeconds: number; rssMb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  return { cpuSeconds: ticks / 100, rssMb: rss };
}

/** A process tree's pids: the process and its descendants. */
function tree(pid: number): number[] {
  const pids = [pid];
  for (let index = 0; index < pids.length; index++) pids.push(...childPids(pids[index] as number));
  return pids;
}

/**
 * Runs node with these arguments from the project's folder, sampling its tree's RSS and CPU every
 * 100 ms; its stderr (a job's progress lines) is passed on as it comes. With `probedDatabase`, a
 * writer asks for that database's write lock beside it. Resolves whatever the exit code: the
 * caller says which ones are a failure.
 */
export function measureChild(
  args: string[],
  env: Record<string, string>,
  probedDatabase: string | null = null,
): Promise<ChildFigures> {
  const probe = probedDatabase ? lockProbe(probedDatabase) : null;
  return new Promise<Omit<ChildFigures, "longestLockWaitMs">>((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: "warn", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (data: Buffer) => {
      stderr += data.toString();
      process.stderr.write(data);
    });
    let peak = 0;
    const cpu = new Map<number, number>();
    const sample = () => {
      let rss = 0;
      for (const pid of tree(child.pid as number)) {
        try {
          const figures = processFigures(pid);
          rss += figures.rssMb;
          cpu.set(pid, figures.cpuSeconds);
        } catch {
          // gone between the listing and the reading
        }
      }
      peak = Math.max(peak, rss);
    };
    const sampler = setInterval(sample, 100);
    let stdout = "";
    child.stdout.on("data", (data: Buffer) => {
      stdout += data.toString();
    });
    child.on("error", reject);
    child.on("exit", (exitCode) => {
      clearInterval(sampler);
      resolve({
        wallSeconds: round((performance.now() - started) / 1000, 2),
        cpuSeconds: round(
          [...cpu.values()].reduce((sum, seconds) => sum + seconds, 0),
          1,
        ),
        peakTreeRssMb: Math.round(peak),
        exitCode,
        stdout,
        stderr,
      });
    });
  }).then(
    async (figures) => ({ ...figures, longestLockWaitMs: probe ? await probe.stop() : null }),
    async (error: unknown) => {
      await probe?.stop();
      throw error;
    },
  );
}

/**
 * A writer beside the command (test/helpers/lock-probe.ts, as a server's request thread asks for
 * the lock every 20 ms), started once the database exists; patient, so its longest wait is the
 * figure (issues 34 and 35: no write lock held more than a second at a time).
 */
function lockProbe(database: string): { stop: () => Promise<number | null> } {
  let child: ChildProcess | null = null;
  let output = "";
  const waiting = setInterval(() => {
    if (child || !existsSync(database)) return;
    clearInterval(waiting);
    child = spawn(process.execPath, [path.join(root, "test/helpers/lock-probe.ts"), database, "600000"], {
      cwd: root,
      stdio: ["ignore", "pipe", "inherit"],
    });
    child.stdout?.on("data", (data: Buffer) => {
      output += data.toString();
    });
  }, 50);
  return {
    async stop() {
      clearInterval(waiting);
      const running = child as ChildProcess | null;
      if (!running || running.exitCode !== null) return null;
      const ended = new Promise((resolve) => running.once("exit", resolve));
      running.kill("SIGTERM");
      await ended;
      const figures = output.split("\n").find((line) => line.startsWith("{"));
      return figures ? (JSON.parse(figures) as { longestWaitMs: number }).longestWaitMs : null;
    },
  };
}
