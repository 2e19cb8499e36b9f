/**
 * Runs an operator command (`jobs/<name>.ts`) as `npm run` does, in a process of its own on a
 * DATA_DIR, and collects what it wrote; for tests that run commands beside a server or one after
 * another.
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");

export interface FinishedJob {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function runJob(
  args: string[],
  options: {
    dataDir: string;
    /** The server's (vitest exports Vite's BASE_URL, "/", and jobs need an absolute one). */
    baseUrl: string;
    /** Gets the job's process as it starts (to stop it midway on what it wrote, not what it said). */
    onSpawn?: (child: ChildProcess) => void;
    /** More of the job's environment (DATABASE_URL...). */
    env?: Record<string, string>;
    /**
     * Refuses the job's writes past this many KB in any file (bash's `ulimit -f`: EFBIG, as a full
     * disk refuses a write that needs a new block).
     */
    fileSizeLimitKb?: number;
  },
): Promise<FinishedJob> {
  const [command, argv] =
    options.fileSizeLimitKb === undefined
      ? [process.execPath, args]
      : ["bash", ["-c", `ulimit -f ${options.fileSizeLimitKb}; exec "$0" "$@"`, process.execPath, ...args]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, {
      cwd: root,
      env: { ...process.env, DATA_DIR: options.dataDir, BASE_URL: options.baseUrl, LOG_LEVEL: "warn", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    options.onSpawn?.(child);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
