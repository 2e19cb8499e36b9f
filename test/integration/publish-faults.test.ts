/**
 * Faults during publication (issue 35, item 5): the refresh job killed midway, and its writes
 * refused as on a full disk, on a first publication and on a later one. Whatever the fault, the
 * server never serves half a run (what it serves is the last committed generation, or the routes'
 * own rendering), the next run finishes the work, and nothing is lost: every published merchant's
 * documents are served again from the packs, byte for byte what the routes render.
 */
import type { ChildProcess } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobArgv } from "../../jobs/compile-cache.ts";
import { loadConfig } from "../../src/config/config.ts";
import { nodePackWrites, packFilesOnDisk, usePackWrites } from "../../src/publish/pack-files.ts";
import { runRefresh } from "../../src/publish/publisher.ts";
import { loadPublishSettings } from "../../src/publish/settings.ts";
import { publishSigning } from "../../src/publish/signing-hooks.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { openPackIndexReader, openPackIndexWriter } from "../../src/store/pack-index.ts";
import { runJob } from "../helpers/run-job.ts";
import { startTestServer, TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
let db: Db;

beforeAll(async () => {
  server = await startTestServer({ count: 300 });
  db = openDatabase(path.join(server.dataDir, "abeille.db"));
}, 120_000);
afterAll(async () => {
  db?.$client.close();
  await server?.close();
});

const stateDir = () => path.join(server.dataDir, "publish", ".abeille");
const packsDir = () => path.join(stateDir(), "packs");
const packCount = () => {
  try {
    return readdirSync(packsDir()).filter((name) => name.endsWith(".pack")).length;
  } catch {
    return 0;
  }
};
const committedGeneration = () => {
  const index = openPackIndexReader(stateDir());
  if (!index) return 0;
  try {
    return index.committed().generation;
  } catch {
    return 0;
  } finally {
    index.close();
  }
};

/** The published merchants, in ab_id order. */
const publishedIds = () =>
  db.$client
    .prepare("SELECT ab_id FROM merchants WHERE status IN ('ACTIVE','PROBATION','PAUSED') ORDER BY ab_id")
    .pluck()
    .all() as string[];

/** A French phone number, `+33 1 <block> 00 NN NN`, distinct for each index. */
const phone = (block: string, index: number) =>
  `+33 1 ${block} 00 ${String(Math.floor(index / 100) % 100).padStart(2, "0")} ${String(index % 100).padStart(2, "0")}`;

/** The server looks at the packs' index at most once a second. */
const serverCatchesUp = () => new Promise((resolve) => setTimeout(resolve, 1100));

interface Answer {
  body: Buffer;
  etag: string;
  servedFrom: string | null;
}

async function answerOf(url: string): Promise<Answer> {
  const response = await server.get(url);
  expect(response.status).toBe(200);
  return {
    body: Buffer.from(await response.arrayBuffer()),
    etag: response.headers.get("etag") ?? "",
    servedFrom: response.headers.get("x-served-from"),
  };
}

const urlsOf = (abId: string) => [
  `/api/merchants/${abId}/jsonld`,
  `/api/merchants/${abId}/ai-digest`,
  `/api/merchants/${abId}/decision-card`,
  `/m/${abId}/ai.md`,
];

/** Every pack on disk is one the index names, and no temporary file is left (nor a run's staged entries). */
function packsAccountedFor(): void {
  const onDisk = packFilesOnDisk(stateDir());
  expect(onDisk.temporary).toEqual([]);
  expect(readdirSync(stateDir()).filter((name) => name.startsWith("index-run-"))).toEqual([]);
  const index = openPackIndexWriter(stateDir());
  try {
    const registered = new Set(index.packs().map((pack) => pack.id));
    expect(onDisk.ids.filter((id) => !registered.has(id))).toEqual([]);
  } finally {
    index.close();
  }
}

/** Runs `npm run refresh` and kills it (SIGKILL) once it has written `packsWritten` more packs. */
async function refreshKilledMidway(packsWritten: number): Promise<void> {
  const before = packCount();
  let child: ChildProcess | null = null;
  let watching: NodeJS.Timeout | null = null;
  const finished = runJob(jobArgv("jobs/refresh.ts", "--batch-size", "1", "--workers", "1", "--quiet"), {
    dataDir: server.dataDir,
    baseUrl: TEST_BASE_URL,
    onSpawn: (spawned) => {
      child = spawned;
      watching = setInterval(() => {
        if (packCount() >= before + packsWritten) {
          if (watching) clearInterval(watching);
          spawned.kill("SIGKILL");
        }
      }, 5);
    },
  });
  const outcome = await finished.finally(() => {
    if (watching) clearInterval(watching);
  });
  expect(child).not.toBeNull();
  expect(outcome.signal, outcome.stderr).toBe("SIGKILL");
}

/** `npm run refresh` to its end, as an operator runs it after a fault. */
async function refreshToTheEnd(): Promise<{ failed: number; merchants: number }> {
  const outcome = await runJob(jobArgv("jobs/refresh.ts", "--json"), {
    dataDir: server.dataDir,
    baseUrl: TEST_BASE_URL,
  });
  expect([outcome.code, outcome.stderr]).toEqual([0, ""]);
  return JSON.parse(outcome.stdout.trim().split("\n").pop() ?? "{}") as { failed: number; merchants: number };
}

describe("faults during publication", () => {
  const rendered = new Map<string, Answer>();
  let sample: string[] = [];

  it("records what the routes render, before anything is published", async () => {
    const ids = publishedIds();
    sample = ids.filter((_abId, index) => index % 25 === 0);
    for (const abId of sample) {
      for (const url of urlsOf(abId)) {
        const answer = await answerOf(url);
        expect(answer.servedFrom).toBeNull();
        rendered.set(url, answer);
      }
    }
  });

  it("a first publication killed midway: nothing of it is served; the next run publishes everything", async () => {
    await refreshKilledMidway(4);
    expect(committedGeneration()).toBe(0);
    await serverCatchesUp();
    for (const [url, expected] of rendered) {
      const answer = await answerOf(url);
      expect(answer.servedFrom, url).toBeNull();
      expect(answer.body.equals(expected.body), url).toBe(true);
    }

    const run = await refreshToTheEnd();
    expect(run).toMatchObject({ failed: 0, merchants: publishedIds().length });
    packsAccountedFor();
    await serverCatchesUp();
    for (const [url, expected] of rendered) {
      const answer = await answerOf(url);
      expect(answer.servedFrom, url).toBe("publish-folder");
      expect(answer.etag, url).toBe(expected.etag);
      expect(answer.body.equals(expected.body), url).toBe(true);
    }
  }, 120_000);

  it("a later run killed midway: the last publication stays served; the next run publishes the changes", async () => {
    const generation = committedGeneration();
    const ids = publishedIds();
    // Half the registry changes (the merchants of the sample among them, a phone number each).
    const touched = ids.filter((_abId, index) => index % 2 === 0);
    const touch = db.$client.prepare("UPDATE merchants SET phone = ?, updated_at = ? WHERE ab_id = ?");
    const at = new Date().toISOString();
    db.$client.transaction(() => {
      for (const [index, abId] of touched.entries()) touch.run(phone("40", index), at, abId);
    })();
    const untouched = sample.filter((abId) => !touched.includes(abId));
    expect(untouched.length).toBeGreaterThan(0);

    await refreshKilledMidway(4);
    expect(committedGeneration()).toBe(generation);
    await serverCatchesUp();
    // The merchants nobody touched: still served from the last publication, as they were.
    for (const abId of untouched) {
      for (const url of urlsOf(abId)) {
        const answer = await answerOf(url);
        expect(answer.servedFrom, url).toBe("publish-folder");
        expect(answer.etag, url).toBe(rendered.get(url)?.etag);
      }
    }
    // The ones touched are rendered by their routes meanwhile (their stamp moved), with the new phone.
    const changed = sample.filter((abId) => touched.includes(abId));
    const fresh = new Map<string, Answer>();
    for (const abId of changed) {
      for (const url of urlsOf(abId)) {
        const answer = await answerOf(url);
        expect(answer.servedFrom, url).toBeNull();
        fresh.set(url, answer);
      }
    }

    const run = await refreshToTheEnd();
    expect(run.failed).toBe(0);
    packsAccountedFor();
    await serverCatchesUp();
    for (const [url, expected] of fresh) {
      const answer = await answerOf(url);
      expect(answer.servedFrom, url).toBe("publish-folder");
      expect(answer.body.equals(expected.body), url).toBe(true);
    }
  }, 120_000);

  it("a disk that refuses writes (RLIMIT_FSIZE, as a full disk refuses them): nothing half-written is served; the next run finishes", async () => {
    const generation = committedGeneration();
    const ids = publishedIds();
    const touch = db.$client.prepare("UPDATE merchants SET phone = ?, updated_at = ? WHERE ab_id = ?");
    const at = new Date().toISOString();
    const touched = ids.filter((_abId, index) => index % 3 === 1);
    db.$client.transaction(() => {
      for (const [index, abId] of touched.entries()) touch.run(phone("41", index), at, abId);
    })();
    // Every file the job writes is refused past 64 KB (EFBIG): its packs, the packs' index growing,
    // its own index. What a full disk does to each write that needs a new block.
    const refused = await runJob(jobArgv("jobs/refresh.ts", "--batch-size", "20", "--json"), {
      dataDir: server.dataDir,
      baseUrl: TEST_BASE_URL,
      fileSizeLimitKb: 64,
    });
    // The run either failed, or finished with its merchants counted as failed (to be retried).
    const summary =
      refused.code === 0 ? (JSON.parse(refused.stdout.trim().split("\n").pop() ?? "{}") as { failed: number }) : null;
    expect(refused.code !== 0 || (summary?.failed ?? 0) > 0, refused.stderr).toBe(true);
    expect(refused.stderr).toMatch(/EFBIG|too large|SQLITE_FULL|disk|could not be written/i);
    await serverCatchesUp();
    // Whatever it committed, no touched merchant is served with its old documents.
    for (const abId of sample.filter((id) => touched.includes(id))) {
      const answer = await answerOf(`/api/merchants/${abId}/jsonld`);
      if (answer.servedFrom === "publish-folder") expect(committedGeneration()).toBeGreaterThan(generation);
      expect(answer.body.toString("utf8"), abId).toContain("41 00");
    }

    const run = await refreshToTheEnd();
    expect(run.failed).toBe(0);
    packsAccountedFor();
    await serverCatchesUp();
    for (const abId of sample) {
      for (const url of urlsOf(abId)) {
        const answer = await answerOf(url);
        expect(answer.servedFrom, url).toBe("publish-folder");
      }
    }
  }, 120_000);

  it("packs refused midway by the disk (ENOSPC at the pack writes): those merchants fail and are retried; the others are published", async () => {
    const config = loadConfig();
    const signing = publishSigning(config);
    const ids = publishedIds();
    const touched = ids.filter((_abId, index) => index % 4 === 3);
    const touch = db.$client.prepare("UPDATE merchants SET phone = ?, updated_at = ? WHERE ab_id = ?");
    const at = new Date().toISOString();
    db.$client.transaction(() => {
      for (const [index, abId] of touched.entries()) touch.run(phone("42", index), at, abId);
    })();
    const input = {
      db,
      config,
      settings: loadPublishSettings(config),
      nextRunAt: new Date(Date.now() + 3600_000),
      snapshotIssuer: signing.snapshotIssuer,
      keySet: signing.keySet,
      codeKey: "faults",
      batchSize: 10,
    };
    // The full pass a new code key asks for first, so the next runs are incremental.
    await runRefresh({ ...input, full: true });
    // The writes of every third pack are refused, as a disk refuses them when it is full.
    let packs = 0;
    const refusedFds = new Set<number>();
    const full = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    const previous = usePackWrites({
      ...nodePackWrites,
      open(file) {
        const fd = nodePackWrites.open(file);
        packs += 1;
        if (packs % 3 === 0) refusedFds.add(fd);
        return fd;
      },
      write(fd, data) {
        if (refusedFds.has(fd)) throw full;
        nodePackWrites.write(fd, data);
      },
      close(fd) {
        refusedFds.delete(fd);
        nodePackWrites.close(fd);
      },
    });
    // A change as every writer makes it: updated_at moves (the stamps the server compares read it).
    const later = new Date(Date.now() + 1000).toISOString();
    db.$client.transaction(() => {
      for (const [index, abId] of touched.entries()) touch.run(phone("43", index), later, abId);
    })();
    let failedRun: Awaited<ReturnType<typeof runRefresh>>;
    try {
      failedRun = await runRefresh(input);
    } finally {
      usePackWrites(previous);
    }
    expect(failedRun.failed).toBeGreaterThan(0);
    expect(failedRun.failed).toBeLessThan(touched.length);
    packsAccountedFor();
    await serverCatchesUp();
    // Every touched merchant answers its new content, from the packs or (failed ones) from its route.
    for (const abId of touched.slice(0, 30)) {
      const answer = await answerOf(`/api/merchants/${abId}/jsonld`);
      expect(answer.body.toString("utf8")).toContain("43 00");
    }
    // The next run retries the failed ones: every merchant is served from the packs again.
    const retried = await runRefresh(input);
    expect(retried.failed).toBe(0);
    expect(retried.rendered).toBe(failedRun.failed);
    await serverCatchesUp();
    for (const abId of touched.slice(0, 30)) {
      const answer = await answerOf(`/api/merchants/${abId}/jsonld`);
      expect(answer.servedFrom).toBe("publish-folder");
      expect(answer.body.toString("utf8")).toContain("43 00");
    }
  }, 120_000);
});
