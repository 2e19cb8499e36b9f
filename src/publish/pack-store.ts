import { rmSync } from "node:fs";
import {
  type DocumentLocation,
  openPackIndexWriter,
  type PackIndexWriter,
  type PackRecord,
  type StagedDocument,
  type StagedServe,
} from "../store/pack-index.ts";
import { bodyHash } from "./document.ts";
import { buildDictionary } from "./pack-dictionary.ts";
import { type PackDictionary, PackReader, PackWriter, packFileOf, packFilesOnDisk } from "./pack-files.ts";
import { packedForm } from "./snapshot-packing.ts";
import { createFrameEncoder, type FrameEncoder } from "./zstd-frames.ts";

/**
 * A machine's published documents as packs (issue 35; decisions.md "Issue 35 item 1"): the pack
 * files (pack-files.ts) and their index (src/store/pack-index.ts), written by one writer at a
 * time under the publish folder's lock (the refresh, or on PostgreSQL the machine's mirror), a
 * generation at a time: what a run writes is seen by the server only once the run commits.
 */
export interface PackStage {
  readonly generation: number;
  /** Whether packs the index names were missing at the start (their documents were withdrawn: render them again). */
  readonly damaged: boolean;
  /** The committed generation's publish key and run (the refresh index's generatedAt that made it). */
  committedRun(): { publishKey: string | null; run: string | null };
  /** Whether a dictionary for this publish key exists (otherwise `dictionary` needs samples). */
  hasDictionary(publishKey: string): boolean;
  /** The dictionary new frames use under `publishKey`, made from `samples` when there is none yet. */
  dictionary(publishKey: string, samples: () => Buffer[]): PackDictionary;
  /** A new pack id (never reused: a killed run's ids are skipped). */
  nextPack(): number;
  stageDocuments(rows: readonly StagedDocument[]): void;
  stageServe(rows: readonly StagedServe[]): void;
  /** Packs written by this stage (with their live bytes). */
  recordPack(record: PackRecord | null): void;
  /** A document as this stage leaves it (staged over committed), decoded; null when absent. */
  read(relative: string): Buffer | null;
  locations(paths: readonly string[]): Map<string, DocumentLocation>;
  /** Every merchant the committed generation serves, in ab_id order, a page at a time. */
  servedMerchants(): Iterable<string>;
  /**
   * Copies the live frames of packs mostly dead into new packs, then makes the stage the one
   * readers see; the rows it superseded and the packs left without a live frame go after.
   */
  commit(made: { publishKey: string; run: string }): void;
}

export interface PackStore {
  /** The publish folder's state folder (`.abeille`), where the packs and their index live. */
  readonly stateDir: string;
  begin(): PackStage;
  /** The committed documents, for reading (export, a mirror's comparison). */
  readCommitted(relative: string): Buffer | null;
  index: PackIndexWriter;
  close(): void;
}

/** A pack is compacted when less than this share of its bytes is live. */
const COMPACT_BELOW = 0.5;
/** Bytes copied by compaction in one run at most (the rest waits for the next runs). */
const COMPACT_BYTES_PER_RUN = 256 * 1024 * 1024;
/** Frames per compacted pack, about a full run's pack. */
const COMPACT_PACK_BYTES = 4 * 1024 * 1024;

export function openPackStore(stateDir: string): PackStore {
  const index = openPackIndexWriter(stateDir);
  const reader = new PackReader(stateDir, (id) => index.dictionary(id));
  const readAt = (location: DocumentLocation | null) => (location ? reader.read(location) : null);

  return {
    stateDir,
    index,
    readCommitted: (relative) => readAt(index.document(relative)),
    close() {
      reader.close();
      index.close();
    },
    begin() {
      const { generation, nextPack } = index.begin();
      // Packs no row has pointed to since an earlier run: nobody reads them any more.
      const dead = index.deadPacks(generation - 1);
      for (const id of dead) rmSync(packFileOf(stateDir, id), { force: true });
      index.forgetPacks(dead);
      // What a killed writer left: packs the index does not name, temporary files.
      const registered = new Set(index.packs().map((pack) => pack.id));
      const onDisk = packFilesOnDisk(stateDir);
      for (const file of onDisk.temporary) rmSync(file, { force: true });
      let next = nextPack;
      for (const id of onDisk.ids) {
        if (!registered.has(id)) rmSync(packFileOf(stateDir, id), { force: true });
        next = Math.max(next, id + 1);
      }
      // Packs the index names but the disk lost: their documents are withdrawn at this generation.
      const present = new Set(onDisk.ids);
      const lost = [...registered].filter((id) => !present.has(id));
      if (lost.length > 0) {
        index.stageDocuments(
          generation,
          index.documentsIn(lost).map(([relative]) => ({ path: relative, location: null, replaces: true })),
        );
        index.forgetPacks(lost);
      }
      const written: PackRecord[] = [];
      let dictionary: PackDictionary | null = null;
      const stage: PackStage = {
        generation,
        damaged: lost.length > 0,
        committedRun() {
          const { publishKey, run } = index.committed();
          return { publishKey, run };
        },
        hasDictionary: (publishKey) => dictionary !== null || index.currentDictionary(publishKey) !== null,
        *servedMerchants() {
          let after = "";
          for (;;) {
            const page = index.serveRecords(after, 1000);
            for (const [abId] of page) yield abId;
            const last = page[page.length - 1];
            if (!last) return;
            after = last[0];
          }
        },
        dictionary(publishKey, samples) {
          if (dictionary) return dictionary;
          const current = index.currentDictionary(publishKey);
          if (current) dictionary = current;
          else {
            const body = buildDictionary(samples().map(packedForm));
            dictionary = { id: index.addDictionary(publishKey, body), body };
          }
          return dictionary;
        },
        nextPack: () => next++,
        stageDocuments: (rows) => index.stageDocuments(generation, rows),
        stageServe: (rows) => index.stageServe(generation, rows),
        recordPack(record) {
          if (record) written.push(record);
        },
        read: (relative) => readAt(index.documentsAt(generation, [relative]).get(relative) ?? null),
        locations: (paths) => index.documentsAt(generation, paths),
        commit(made) {
          compact(stateDir, index, reader, generation, written, () => next++);
          index.commit(generation, made, written);
          index.prune();
          // Packs no committed row points to any more go at once (a snapshot pack the daily run
          // superseded whole): the server keeps the descriptors it has open, and a read that finds
          // a pack gone falls back to the route.
          const dead = index.deadPacks(generation + 1);
          for (const id of dead) rmSync(packFileOf(stateDir, id), { force: true });
          index.forgetPacks(dead);
        },
      };
      return stage;
    },
  };
}

/**
 * Copies the live frames of packs less than half live into new packs (the frames as they are:
 * no document is decoded), staged at the run's generation. Bounded per run; what is left waits.
 */
function compact(
  stateDir: string,
  index: PackIndexWriter,
  reader: PackReader,
  generation: number,
  written: PackRecord[],
  nextPack: () => number,
): void {
  const fresh = new Set(written.map((pack) => pack.id));
  const sparse = index
    .packs()
    .filter((pack) => !fresh.has(pack.id) && pack.live > 0 && pack.live < pack.bytes * COMPACT_BELOW);
  if (sparse.length === 0) return;
  let budget = COMPACT_BYTES_PER_RUN;
  let writer: PackWriter | null = null;
  const rows: StagedDocument[] = [];
  const flush = () => {
    if (!writer) return;
    const pending = rows.splice(0);
    const record = writer.finish();
    writer = null;
    if (record) written.push(record);
    index.stageDocuments(generation, pending);
  };
  try {
    copyLiveFrames();
  } catch (error) {
    // A compaction that cannot write (a full disk) leaves the frames where they are: the run's own
    // publication does not depend on it, the next run tries again.
    rows.length = 0;
    process.emitWarning(`refresh: packs not compacted: ${error instanceof Error ? error.message : String(error)}`);
  }
  function copyLiveFrames(): void {
    // Rows this stage already moved keep their new place.
    for (const pack of sparse) {
      if (budget <= 0) break;
      const live = index.documentsIn([pack.id]);
      const staged = index.documentsAt(
        generation,
        live.map(([relative]) => relative),
      );
      for (const [relative, location] of live) {
        if (staged.get(relative)?.pack !== location.pack) continue;
        const frame = reader.frame(location);
        if (!frame) continue;
        writer ??= new PackWriter(stateDir, nextPack(), rawFrames, location.dictionary);
        const moved = writer.addFrame(frame, location);
        rows.push({ path: relative, location: moved, replaces: true });
        budget -= frame.length;
        if (writer.bytes >= COMPACT_PACK_BYTES) flush();
      }
    }
    flush();
  }
}

/** Compaction copies frames already encoded. */
const rawFrames: FrameEncoder = {
  encode: () => {
    throw new Error("compaction copies frames, it encodes none");
  },
  encodeInto: () => {
    throw new Error("compaction copies frames, it encodes none");
  },
  close: () => undefined,
};

/** About one full run's pack (500 merchants of the national stock) before a writer starts the next. */
const WRITER_PACK_BYTES = 4 * 1024 * 1024;

/**
 * Writes documents given as bytes into a stage (a mirror applying the shared table, tests): frames
 * into packs of about WRITER_PACK_BYTES, rows staged as each pack is written. `flush` before the
 * stage commits.
 */
export class StageWriter {
  private readonly stage: PackStage;
  private readonly stateDir: string;
  private readonly dictionary: PackDictionary;
  private readonly encoder: FrameEncoder;
  private writer: PackWriter | null = null;
  private readonly rows: StagedDocument[] = [];

  constructor(stage: PackStage, stateDir: string, dictionary: PackDictionary) {
    this.stage = stage;
    this.stateDir = stateDir;
    this.dictionary = dictionary;
    this.encoder = createFrameEncoder(dictionary.body);
  }

  put(relative: string, body: Buffer, sha256: string = bodyHash(body)): void {
    this.writer ??= new PackWriter(this.stateDir, this.stage.nextPack(), this.encoder, this.dictionary.id);
    this.rows.push({ path: relative, location: this.writer.add(body, sha256), replaces: true });
    if (this.writer.bytes >= WRITER_PACK_BYTES) this.flush();
  }

  remove(relative: string): void {
    this.rows.push({ path: relative, location: null, replaces: true });
  }

  flush(): void {
    const record = this.writer?.finish() ?? null;
    this.writer = null;
    this.stage.recordPack(record);
    this.stage.stageDocuments(this.rows.splice(0));
  }

  close(): void {
    this.encoder.close();
  }
}
