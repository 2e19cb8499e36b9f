/**
 * A real Meilisearch (the pinned community binary, jobs/meilisearch.ts) on a free loopback port
 * and a temporary data directory, for the tests that run against it. Never skipped.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type LocalMeilisearch, startLocalMeilisearch } from "../../jobs/meilisearch.ts";
import { freePort } from "./spawn-start.ts";

export interface TestMeilisearch extends LocalMeilisearch {
  dataDir: string;
  /** Starts it again on the same port and data (after stop()). */
  restart(): Promise<void>;
  /** Stops it and removes its data. */
  close(): Promise<void>;
}

export async function startTestMeilisearch(): Promise<TestMeilisearch> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-meili-"));
  const port = await freePort();
  let running = await startLocalMeilisearch({ port, dataDir });
  return {
    url: running.url,
    port,
    dataDir,
    get pid() {
      return running.pid;
    },
    stop: () => running.stop(),
    async restart() {
      running = await startLocalMeilisearch({ port, dataDir });
    },
    async close() {
      await running.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
