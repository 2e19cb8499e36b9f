/**
 * Issue 34: the rows a stock brings to the domain are applied in SIRET order whatever the file's
 * order (src/import/sirene/sorted-spill.ts): sorted in runs of bounded size written to files of
 * their own, then merged; equal keys keep the order they were added in; nothing stays on disk.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SortedSpill } from "../../src/import/sirene/sorted-spill.ts";

const parent = mkdtempSync(path.join(os.tmpdir(), "abeille-sorted-spill-"));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

/** A generator of numbers the same at every run (a linear congruential one). */
function numbers(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state;
  };
}

function drain(spill: SortedSpill): { key: number; text: string }[] {
  return [...spill.sorted()].map(({ key, record }) => ({ key, text: record.toString("utf8") }));
}

describe("a sorted spill", () => {
  it("gives back records written in many runs in key order, equal keys in the order added, and leaves no file", () => {
    const inside = path.join(parent, "runs");
    // Runs of 4 KB: 5,000 records of 9-30 bytes make about twenty of them.
    const spill = new SortedSpill(inside, 4_096);
    const next = numbers(7);
    const added: { key: number; text: string }[] = [];
    for (let index = 0; index < 5_000; index++) {
      // Few distinct keys (SIRETs of 14 digits), so that many are equal.
      const key = 10_000_000_000_000 + (next() % 700) * 1_000_003;
      const text = `row ${index} ${"x".repeat(next() % 20)}`;
      added.push({ key, text });
      spill.add(key, Buffer.from(text));
    }
    const folder = readdirSync(inside);
    expect(folder).toHaveLength(1);
    expect(readdirSync(path.join(inside, folder[0] as string)).length).toBeGreaterThan(15);
    expect(spill.count).toBe(5_000);
    expect(spill.bytes).toBe(added.reduce((sum, { text }) => sum + 12 + Buffer.byteLength(text), 0));
    // Array.prototype.sort is stable: equal keys stay in the order added.
    const expected = [...added].sort((a, b) => a.key - b.key);
    expect(drain(spill)).toEqual(expected);
    spill.close();
    expect(readdirSync(inside)).toEqual([]);
  });

  it("sorts in memory what fits in one run, a record longer than a run included, writing no file", () => {
    const inside = path.join(parent, "memory");
    const spill = new SortedSpill(inside, 1_024);
    spill.add(3, Buffer.from("three"));
    spill.add(1, Buffer.from("one"));
    spill.add(2, Buffer.from("two"));
    const folder = path.join(inside, readdirSync(inside)[0] as string);
    expect(readdirSync(folder)).toEqual([]);
    expect(drain(spill).map(({ text }) => text)).toEqual(["one", "two", "three"]);
    spill.close();

    const long = new SortedSpill(inside, 1_024);
    long.add(5, Buffer.from("a".repeat(10)));
    long.add(1, Buffer.from("b".repeat(5_000)));
    long.add(3, Buffer.from("c".repeat(3_000)));
    expect(drain(long).map(({ key, text }) => [key, text.length])).toEqual([
      [1, 5_000],
      [3, 3_000],
      [5, 10],
    ]);
    long.close();
  });

  it("removes what a killed reading left behind, and nothing of a reading still running", () => {
    const inside = path.join(parent, "left");
    mkdirSync(inside, { recursive: true });
    // A process that has ended: its pid names no running process.
    const ended = spawnSync(process.execPath, ["-e", "process.pid"]).pid as number;
    const stale = path.join(inside, `sirene-sort-${ended}-1`);
    const running = path.join(inside, `sirene-sort-${process.pid}-1`);
    const other = path.join(inside, "kept");
    for (const folder of [stale, running, other]) mkdirSync(folder);
    const spill = new SortedSpill(inside);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(running)).toBe(true);
    expect(existsSync(other)).toBe(true);
    spill.close();
  });
});
