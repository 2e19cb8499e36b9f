/**
 * A job the server runs in a child process of its own (`jobs/<script>.ts`, as `npm run` runs it:
 * jobArgv's flags), from the project's folder: its stdout collected for the report it prints, its
 * stderr the server's (a failure's one line goes to the server's log). The server's event loop
 * stays free while the job works, and the job's memory goes when it exits.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { jobArgv } from "./compile-cache.ts";

const projectRoot = fileURLToPath(new URL("..", import.meta.url));

export interface ChildJob {
  child: ChildProcess;
  /** Resolves when the job ends: its exit status (null when killed), the signal, what it printed. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }>;
}

export function spawnJob(script: string, args: readonly string[], env: NodeJS.ProcessEnv): ChildJob {
  const child = spawn(process.execPath, jobArgv(script, ...args), {
    cwd: projectRoot,
    env: { ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }>(
    (resolve, reject) => {
      let stdout = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.once("error", reject);
      child.once("exit", (code, signal) => resolve({ code, signal, stdout }));
    },
  );
  return { child, exited };
}
