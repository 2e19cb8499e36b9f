import { closeSync, mkdirSync, openSync, readdirSync, readSync, rmSync, writeSync } from "node:fs";
import path from "node:path";
import { threadId } from "node:worker_threads";

/*
 * Records sorted by a number, whatever order they come in, in bounded memory: they are kept in a
 * run of RUN_BYTES at most, each full run is sorted and written to a file of its own, and reading
 * merges the runs (a heap over their heads, each read through a small buffer). Records of equal
 * keys come out in the order they were added. A national stock's wanted rows (five million, a
 * couple of gigabytes) pass through this: applied in SIRET order, a transaction's merchants sit
 * side by side in the SIRET index (and, SIRENs being given out over time, near each other in the
 * companies' creation dates), where rows in no order wrote a page of each index per merchant.
 */

/** Bytes of records a run holds before it is sorted and written out. */
const RUN_BYTES = 32 << 20;
/** Records a run's arrays hold at first (doubled as needed). */
const FIRST_RECORDS = 1 << 14;
/** Bytes each run is read through when the runs are merged. */
const READ_BYTES = 256 << 10;
/** A record's head in a run's file: its length (4 bytes) and its key (8). */
const HEAD_BYTES = 12;
/** The name of the folder a reading sorts in: its process id says whether it is still running. */
const FOLDER_PREFIX = "sirene-sort-";

/** Spills made by this thread so far: two made in the same millisecond get folders of their own. */
let foldersMade = 0;

/**
 * A new folder of the reading's own inside `parent` (made), named after the process (a folder a
 * killed reading left there, its process gone, is removed first): where a spill sorts, or where
 * another thread's spills are made, removed whole by the one that made it.
 */
export function ownFolder(parent: string): string {
  mkdirSync(parent, { recursive: true });
  for (const entry of readdirSync(parent)) {
    if (entry.startsWith(FOLDER_PREFIX) && !running(Number(entry.slice(FOLDER_PREFIX.length).split("-")[0]))) {
      rmSync(path.join(parent, entry), { recursive: true, force: true });
    }
  }
  foldersMade += 1;
  const dir = path.join(parent, `${FOLDER_PREFIX}${process.pid}-${Date.now()}-${threadId}-${foldersMade}`);
  mkdirSync(dir);
  return dir;
}

/** A spill's runs, written out whole (finish): another thread merges them (mergedRuns), the folder removed by whoever owns it. */
export interface SpilledRuns {
  dir: string;
  runs: string[];
  count: number;
}

export class SortedSpill {
  readonly #dir: string;
  #buffer: Buffer;
  #used = 0;
  /**
   * The current run's records: key and where its bytes start (they end where the next one's
   * start), in typed arrays grown as needed and kept from run to run (a run of 32 MB of 40-byte
   * companies is 800,000 records: arrays of numbers cost more than the records did).
   */
  #keys = new Float64Array(FIRST_RECORDS);
  #starts = new Uint32Array(FIRST_RECORDS);
  /** Records in the current run. */
  #inRun = 0;
  readonly #runs: string[] = [];
  #count = 0;
  #bytes = 0;

  /**
   * Sorts in a folder of its own inside `parent` (made, and removed by `close`); a folder a killed
   * reading left there (its process gone) is removed first.
   */
  constructor(parent: string, runBytes = RUN_BYTES) {
    this.#dir = ownFolder(parent);
    this.#buffer = Buffer.allocUnsafe(runBytes);
  }

  /** Records added so far. */
  get count(): number {
    return this.#count;
  }

  /** Bytes of records added so far (their heads included): what the merge reads back. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Adds a record under `key` (its bytes are copied: the caller may reuse them). */
  add(key: number, record: Uint8Array): void {
    if (this.#used + record.length > this.#buffer.length) {
      this.#spill();
      // A record longer than a run has a run of its own.
      if (record.length > this.#buffer.length) this.#buffer = Buffer.allocUnsafe(record.length);
    }
    this.#buffer.set(record, this.#used);
    if (this.#inRun === this.#keys.length) {
      const keys = new Float64Array(this.#keys.length * 2);
      keys.set(this.#keys);
      this.#keys = keys;
      const starts = new Uint32Array(this.#starts.length * 2);
      starts.set(this.#starts);
      this.#starts = starts;
    }
    this.#keys[this.#inRun] = key;
    this.#starts[this.#inRun] = this.#used;
    this.#inRun += 1;
    this.#used += record.length;
    this.#count += 1;
    this.#bytes += HEAD_BYTES + record.length;
  }

  /**
   * The records in key order (equal keys in the order added). The record's bytes are valid until
   * the next step of the iteration. Call once, after the last `add`.
   */
  *sorted(): Generator<{ key: number; record: Buffer }> {
    if (this.#runs.length === 0) {
      // Everything fits in one run: sorted in memory, no file written.
      const keys = this.#keys;
      for (const index of this.#order()) {
        yield {
          key: keys[index] as number,
          record: this.#buffer.subarray(this.#starts[index], this.#end(index)),
        };
      }
      return;
    }
    if (this.#inRun > 0) this.#spill();
    this.#buffer = Buffer.alloc(0);
    yield* mergedRuns(this.#runs);
  }

  /**
   * Every record written to the runs' files and the memory of the runs let go: what another
   * thread merges (mergedRuns). Call once, after the last `add`, instead of `sorted`.
   */
  finish(): SpilledRuns {
    this.#spill();
    this.#buffer = Buffer.alloc(0);
    this.#keys = new Float64Array(0);
    this.#starts = new Uint32Array(0);
    return { dir: this.#dir, runs: [...this.#runs], count: this.#count };
  }

  /** Removes the folder and its runs (after the reading, or when it failed). */
  close(): void {
    rmSync(this.#dir, { recursive: true, force: true });
  }

  /** The current run's records' indexes in key order (stable). */
  #order(): Uint32Array {
    const keys = this.#keys;
    const order = new Uint32Array(this.#inRun);
    for (let index = 0; index < order.length; index++) order[index] = index;
    return order.sort((a, b) => (keys[a] as number) - (keys[b] as number) || a - b);
  }

  /** Where the current run's record at `index` ends: where the next one starts. */
  #end(index: number): number {
    return index + 1 < this.#inRun ? (this.#starts[index + 1] as number) : this.#used;
  }

  /** Sorts the current run and writes it to a file of its own. */
  #spill(): void {
    if (this.#inRun === 0) return;
    const file = path.join(this.#dir, `run-${this.#runs.length}`);
    const out = openSync(file, "w");
    try {
      const chunk = Buffer.allocUnsafe(1 << 20);
      let filled = 0;
      const flush = () => {
        writeSync(out, chunk, 0, filled);
        filled = 0;
      };
      for (const index of this.#order()) {
        const start = this.#starts[index] as number;
        const end = this.#end(index);
        if (filled + HEAD_BYTES > chunk.length) flush();
        chunk.writeUInt32LE(end - start, filled);
        chunk.writeDoubleLE(this.#keys[index] as number, filled + 4);
        filled += HEAD_BYTES;
        if (filled + (end - start) > chunk.length) {
          flush();
          if (end - start > chunk.length) {
            writeSync(out, this.#buffer, start, end - start);
            continue;
          }
        }
        this.#buffer.copy(chunk, filled, start, end);
        filled += end - start;
      }
      flush();
    } finally {
      closeSync(out);
    }
    this.#runs.push(file);
    this.#inRun = 0;
    this.#used = 0;
  }
}

/**
 * The records of sorted runs' files in key order, equal keys in the order of the runs (the order
 * their records were added): a heap over their heads. The record's bytes are valid until the next
 * step. The files stay (they may be merged again).
 */
export function* mergedRuns(runs: readonly string[]): Generator<{ key: number; record: Buffer }> {
  const heads = runs.map((file) => new RunReader(file));
  // A heap of the runs by their head's key; the earlier run first on equal keys (its records were added first).
  const heap: RunHead[] = [];
  heads.forEach((reader, run) => {
    if (reader.next()) heap.push({ reader, run });
  });
  const before = (a: RunHead, b: RunHead) =>
    a.reader.key < b.reader.key || (a.reader.key === b.reader.key && a.run < b.run);
  const down = (at: number) => {
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let least = at;
      if (left < heap.length && before(heap[left] as RunHead, heap[least] as RunHead)) least = left;
      if (right < heap.length && before(heap[right] as RunHead, heap[least] as RunHead)) least = right;
      if (least === at) return;
      [heap[at], heap[least]] = [heap[least] as RunHead, heap[at] as RunHead];
      at = least;
    }
  };
  for (let at = (heap.length >> 1) - 1; at >= 0; at--) down(at);
  try {
    while (heap.length > 0) {
      const top = heap[0] as RunHead;
      yield { key: top.reader.key, record: top.reader.record };
      if (!top.reader.next()) {
        top.reader.close();
        const last = heap.pop() as RunHead;
        if (heap.length === 0) break;
        heap[0] = last;
      }
      down(0);
    }
  } finally {
    for (const reader of heads) reader.close();
  }
}

interface RunHead {
  reader: RunReader;
  /** Its place among the runs: runs were written in the order their records were added. */
  run: number;
}

/** One run's records, read in order through a buffer. */
class RunReader {
  readonly #fd: number;
  #buffer = Buffer.allocUnsafe(READ_BYTES);
  #start = 0;
  #end = 0;
  #position = 0;
  #closed = false;
  key = 0;
  record: Buffer = Buffer.alloc(0);

  constructor(file: string) {
    this.#fd = openSync(file, "r");
  }

  /** Moves to the next record; false at the run's end. */
  next(): boolean {
    if (!this.#have(HEAD_BYTES)) return false;
    const length = this.#buffer.readUInt32LE(this.#start);
    this.key = this.#buffer.readDoubleLE(this.#start + 4);
    if (!this.#have(HEAD_BYTES + length)) throw new Error("a sorted run ends inside a record");
    this.record = this.#buffer.subarray(this.#start + HEAD_BYTES, this.#start + HEAD_BYTES + length);
    this.#start += HEAD_BYTES + length;
    return true;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    closeSync(this.#fd);
  }

  /** Whether `bytes` more are in the buffer, reading on (and growing it for a long record) as needed. */
  #have(bytes: number): boolean {
    if (this.#end - this.#start >= bytes) return true;
    if (bytes > this.#buffer.length) {
      const grown = Buffer.allocUnsafe(bytes);
      this.#buffer.copy(grown, 0, this.#start, this.#end);
      this.#buffer = grown;
    } else this.#buffer.copy(this.#buffer, 0, this.#start, this.#end);
    this.#end -= this.#start;
    this.#start = 0;
    while (this.#end < bytes) {
      const read = readSync(this.#fd, this.#buffer, this.#end, this.#buffer.length - this.#end, this.#position);
      if (read === 0) return false;
      this.#position += read;
      this.#end += read;
    }
    return true;
  }
}

function running(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
