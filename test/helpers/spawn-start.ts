/**
 * Runs `jobs/start.ts` (what `npm start` runs after the build) as a child process on a free port
 * and waits until it answers its health check; for tests that need a real separate process.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";

export interface StartedProcess {
  child: ChildProcess;
  baseUrl: string;
  /** Everything the process wrote on stdout and stderr so far. */
  output(): string;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

export async function spawnStart(env: Record<string, string>, timeoutMs = 90_000): Promise<StartedProcess> {
  const port = await freePort();
  // vitest exports Vite's BASE_URL ("/"); the server needs an absolute one.
  const baseUrl = `http://127.0.0.1:${port}`;
  let output = "";
  const child = spawn(process.execPath, ["jobs/start.ts"], {
    // Its logs are kept (output()), not printed: at info, so that tests can read what it says.
    env: { ...process.env, BASE_URL: baseUrl, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`start exited early:\n${output}`);
    if (Date.now() > deadline) throw new Error(`start never became healthy:\n${output}`);
    try {
      if ((await fetch(`${baseUrl}/api/health`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { child, baseUrl, output: () => output };
}

/** The processes a process started (a cluster primary's server processes), read from /proc. */
export function childPids(pid: number): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}
