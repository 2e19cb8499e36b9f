/**
 * Issue 34: a bulk writer's WAL is copied back into the database by a thread of its own
 * (src/store/checkpoint-worker.ts), not inside the writer's commits: the writer's connection
 * checkpoints only past 50,000 pages, and the thread copies what it committed within moments.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startCheckpointThread } from "../../src/store/checkpoint-worker.ts";
import { openConnection } from "../../src/store/connection.ts";

const dir = mkdtempSync(path.join(os.tmpdir(), "abeille-checkpoint-thread-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes about `pages` pages of 4 KB in transactions of a hundred rows. */
function write(sqlite: ReturnType<typeof openConnection>, pages: number): void {
  sqlite.exec("CREATE TABLE IF NOT EXISTS filler (id INTEGER PRIMARY KEY, body BLOB)");
  const insert = sqlite.prepare("INSERT INTO filler (body) VALUES (randomblob(3500))");
  const hundred = sqlite.transaction(() => {
    for (let row = 0; row < 100; row++) insert.run();
  });
  for (let done = 0; done < pages; done += 100) hundred();
}

async function until(condition: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return condition();
}

describe("a bulk writer's checkpoints", () => {
  it("are left to its thread: the database file takes the committed pages without the writer checkpointing", async () => {
    const alone = path.join(dir, "alone.db");
    const writer = openConnection(alone, { checkpoints: "bulk" });
    const before = statSync(alone).size;
    write(writer, 6_000);
    // The writer's own backstop is far: its 6,000 pages stay in the WAL.
    expect(statSync(alone).size).toBe(before);
    writer.close();

    const helped = path.join(dir, "helped.db");
    const bulk = openConnection(helped, { checkpoints: "bulk" });
    const thread = startCheckpointThread(helped);
    try {
      const start = statSync(helped).size;
      write(bulk, 6_000);
      // 6,000 pages of 3,500 bytes, each on a page of its own: 24 MB copied into the file.
      expect(await until(() => statSync(helped).size > start + 20_000_000, 10_000)).toBe(true);
    } finally {
      await thread.stop();
      bulk.close();
    }
  });
});
