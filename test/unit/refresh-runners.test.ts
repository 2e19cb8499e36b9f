import { describe, expect, it } from "vitest";
import { mixedRunner } from "../../src/publish/mixed-runner.ts";
import { type BatchItem, type BatchResult, type BatchRunner, emptyCounters } from "../../src/publish/render-batch.ts";

function batch(abId: string): BatchItem[] {
  return [{ abId, stamp: "s", status: "ACTIVE", old: null }];
}

function resultOf(items: BatchItem[]): BatchResult {
  return {
    ...emptyCounters(),
    rendered: items.length,
    entries: [],
    documents: [],
    packs: [],
    changed: [],
    failures: [],
  };
}

/** The packs a batch would write into (these fake runners write none). */
const PACKS = { documents: 1, snapshots: 2 };

/** A worker pool that holds `room` batches and answers each when told to (as a worker thread's message would). */
function fakeWorkers(room: number) {
  const held: { abId: string; answer: () => void }[] = [];
  const runner: BatchRunner = {
    concurrency: room,
    hasRoom: () => held.length < room,
    run(items) {
      return new Promise<BatchResult>((resolve) => {
        held.push({ abId: items[0]?.abId ?? "", answer: () => resolve(resultOf(items)) });
      });
    },
    close: async () => undefined,
  };
  const answerOldest = () => held.shift()?.answer();
  return { runner, held, answerOldest };
}

function recordingHere(log: string[]): BatchRunner {
  return {
    concurrency: 1,
    run: async (items) => {
      log.push(items[0]?.abId ?? "");
      return resultOf(items);
    },
    close: async () => undefined,
  };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("sharing a refresh between this thread and worker threads", () => {
  it("hands batches to the workers while they have room, and renders here only when they are full", async () => {
    const workers = fakeWorkers(2);
    const renderedHere: string[] = [];
    const mixed = mixedRunner(recordingHere(renderedHere), workers.runner);
    expect(mixed.concurrency).toBe(3);

    void mixed.run(batch("a"), PACKS);
    void mixed.run(batch("b"), PACKS);
    const third = mixed.run(batch("c"), PACKS);
    expect(workers.held.map((job) => job.abId)).toEqual(["a", "b"]);
    await third;
    expect(renderedHere).toEqual(["c"]);

    // A worker answered: its place goes to the next batch, not to this thread.
    workers.answerOldest();
    void mixed.run(batch("d"), PACKS);
    expect(workers.held.map((job) => job.abId)).toEqual(["b", "d"]);
    expect(renderedHere).toEqual(["c"]);
  });

  it("starts a batch of its own only on the next turn of the event loop, after the workers' answers", async () => {
    const workers = fakeWorkers(0);
    const renderedHere: string[] = [];
    const mixed = mixedRunner(recordingHere(renderedHere), workers.runner);
    const pending = mixed.run(batch("a"), PACKS);
    await Promise.resolve();
    expect(renderedHere).toEqual([]);
    await nextTurn();
    expect(renderedHere).toEqual(["a"]);
    await expect(pending).resolves.toMatchObject({ rendered: 1 });
  });

  it("renders everything here when the workers cannot say whether they have room", async () => {
    const renderedHere: string[] = [];
    const { hasRoom: _unknown, ...withoutRoom } = fakeWorkers(4).runner;
    const mixed = mixedRunner(recordingHere(renderedHere), withoutRoom);
    await mixed.run(batch("a"), PACKS);
    await mixed.run(batch("b"), PACKS);
    expect(renderedHere).toEqual(["a", "b"]);
  });
});
