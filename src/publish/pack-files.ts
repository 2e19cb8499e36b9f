import {
  closeSync,
  fdatasyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import type { DocumentLocation, PackRecord } from "../store/pack-index.ts";
import { documentForm, packedForm } from "./snapshot-packing.ts";
import {
  createFrameDecoder,
  createFrameEncoder,
  type FrameDecoder,
  type FrameEncoder,
  withRoom,
} from "./zstd-frames.ts";

/**
 * Pack files (issue 35): a batch of merchants' documents, each a zstd frame (zstd-frames.ts),
 * one after the other in one file, `.abeille/packs/<id>.pack`; where each frame lies is in the
 * pack index (src/store/pack-index.ts). A pack is written whole beside its name, synced, then
 * renamed: a pack the index names is always complete, and a pack of a run killed midway is a file
 * the index does not name (swept by the next run).
 */
export const PACKS_DIRNAME = "packs";
const PACK_SUFFIX = ".pack";
const TEMP_MARK = ".tmp-";

export const packsDirOf = (stateDir: string): string => path.join(stateDir, PACKS_DIRNAME);
export const packFileOf = (stateDir: string, id: number): string =>
  path.join(packsDirOf(stateDir), `${id}${PACK_SUFFIX}`);

export interface PackDictionary {
  id: number;
  body: Buffer;
}

/** The file-system calls a pack write makes: a test puts a full disk or a kill between any two. */
export interface PackWritePort {
  open(file: string): number;
  write(fd: number, data: Uint8Array): void;
  sync(fd: number): void;
  close(fd: number): void;
  rename(from: string, to: string): void;
  remove(file: string): void;
}

export const nodePackWrites: PackWritePort = {
  open: (file) => openSync(file, "w"),
  write(fd, data) {
    let written = 0;
    while (written < data.length) written += writeSync(fd, data, written, data.length - written);
  },
  sync: (fd) => fdatasyncSync(fd),
  close: (fd) => closeSync(fd),
  rename: (from, to) => renameSync(from, to),
  remove: (file) => rmSync(file, { force: true }),
};

let writePort: PackWritePort = nodePackWrites;

/** Replaces the pack writes' file-system calls (fault-injection tests); answers the previous ones. */
export function usePackWrites(port: PackWritePort): PackWritePort {
  const previous = writePort;
  writePort = port;
  return previous;
}

/**
 * The buffers a thread's pack writers fill, kept from one pack to the next: a pack's frames are
 * encoded straight into one buffer (zstd-frames.ts encodeInto), which goes back here once the
 * pack is written, so a run allocates a few buffers, not one for every frame.
 */
export class PackBuffers {
  private readonly spare: Buffer[] = [];

  take(): Buffer {
    return this.spare.pop() ?? Buffer.allocUnsafeSlow(256 * 1024);
  }

  give(buffer: Buffer): void {
    // Two packs a batch are written at once (documents, snapshots): a few spares are enough.
    if (this.spare.length < 4) this.spare.push(buffer);
  }
}

/** One pack being written: frames appended in memory, the file written at `finish`. */
export class PackWriter {
  readonly id: number;
  private readonly stateDir: string;
  private readonly encoder: FrameEncoder;
  private readonly dictionary: number;
  private readonly buffers: PackBuffers;
  /** The frames one after the other, `offset` bytes of it; taken from `buffers` at the first frame. */
  private buffer: Buffer | null = null;
  private offset = 0;
  private live = 0;

  constructor(stateDir: string, id: number, encoder: FrameEncoder, dictionary: number, buffers = new PackBuffers()) {
    this.stateDir = stateDir;
    this.id = id;
    this.encoder = encoder;
    this.dictionary = dictionary;
    this.buffers = buffers;
  }

  /**
   * Appends a document; answers where it will lie once the pack is written. `mayCarryJws`: false
   * when the caller knows the document is no snapshot manifest (its form is looked for otherwise).
   * `body` is read here and not kept (a caller may reuse its bytes).
   */
  add(body: Uint8Array, sha256: string, mayCarryJws = true): DocumentLocation {
    const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    // A snapshot manifest without the JWS payload its manifest gives back (snapshot-packing.ts).
    const packed = mayCarryJws ? packedForm(bytes) : bytes;
    const { target, length } = this.encoder.encodeInto(packed, this.buffer ?? this.buffers.take(), this.offset);
    this.buffer = target;
    return this.placed(length, { size: packed.length, sha256, dictionary: this.dictionary });
  }

  /** Appends a frame already encoded (compaction), with its document's size, hash and dictionary. */
  addFrame(frame: Buffer, from: DocumentLocation): DocumentLocation {
    const target = withRoom(this.buffer ?? this.buffers.take(), this.offset, frame.length);
    frame.copy(target, this.offset);
    this.buffer = target;
    return this.placed(frame.length, from);
  }

  /** Records a frame of `length` bytes just put at the end of the buffer. */
  private placed(length: number, of: Pick<DocumentLocation, "size" | "sha256" | "dictionary">): DocumentLocation {
    const location: DocumentLocation = {
      pack: this.id,
      offset: this.offset,
      length,
      size: of.size,
      sha256: of.sha256,
      dictionary: of.dictionary,
    };
    this.offset += length;
    this.live += length;
    return location;
  }

  get bytes(): number {
    return this.offset;
  }

  /** A frame added but not to be recorded (its merchant failed): dead bytes from the start. */
  forget(location: DocumentLocation): void {
    this.live -= location.length;
  }

  /** Writes the pack (nothing when no frame was added); answers its record for the index. */
  finish(): PackRecord | null {
    const buffer = this.buffer;
    if (buffer === null || this.offset === 0) return null;
    const dir = packsDirOf(this.stateDir);
    mkdirSync(dir, { recursive: true });
    const target = packFileOf(this.stateDir, this.id);
    const temp = path.join(dir, `.${this.id}${TEMP_MARK}${process.pid}`);
    const port = writePort;
    try {
      const fd = port.open(temp);
      try {
        port.write(fd, buffer.subarray(0, this.offset));
        port.sync(fd);
      } finally {
        port.close(fd);
      }
      port.rename(temp, target);
    } catch (error) {
      port.remove(temp);
      throw error;
    } finally {
      this.buffer = null;
      this.buffers.give(buffer);
    }
    return { id: this.id, bytes: this.offset, live: this.live };
  }
}

/** Makes pack writers for a run's batches (one frame encoder and its buffers, kept for the thread's batches). */
export function packWriters(stateDir: string, dictionary: PackDictionary): (id: number) => PackWriter {
  const encoder = createFrameEncoder(dictionary.body);
  const buffers = new PackBuffers();
  return (id) => new PackWriter(stateDir, id, encoder, dictionary.id, buffers);
}

/** Pack files on disk (ids), and temporary files left by a killed writer. */
export function packFilesOnDisk(stateDir: string): { ids: number[]; temporary: string[] } {
  const ids: number[] = [];
  const temporary: string[] = [];
  let names: string[];
  try {
    names = readdirSync(packsDirOf(stateDir));
  } catch {
    return { ids, temporary };
  }
  for (const name of names) {
    if (name.includes(TEMP_MARK)) temporary.push(path.join(packsDirOf(stateDir), name));
    else if (name.endsWith(PACK_SUFFIX)) {
      const id = Number(name.slice(0, -PACK_SUFFIX.length));
      if (Number.isSafeInteger(id) && id > 0) ids.push(id);
    }
  }
  return { ids, temporary };
}

const MAX_OPEN_PACKS = 64;

/**
 * Reads documents out of the packs: the frame at its place (one `pread` on a descriptor kept
 * open), decoded with its dictionary (one decoder kept per dictionary). Null when the pack is gone
 * (removed since the row was read: the caller falls back to rendering).
 */
export class PackReader {
  private readonly stateDir: string;
  private readonly dictionaryOf: (id: number) => Buffer | null;
  private readonly descriptors = new Map<number, number>();
  private readonly decoders = new Map<number, FrameDecoder>();

  constructor(stateDir: string, dictionaryOf: (id: number) => Buffer | null) {
    this.stateDir = stateDir;
    this.dictionaryOf = dictionaryOf;
  }

  read(location: DocumentLocation): Buffer | null {
    const frame = this.frame(location);
    if (!frame) return null;
    if (location.dictionary === 0) return documentForm(frame);
    let decoder = this.decoders.get(location.dictionary);
    if (!decoder) {
      const body = this.dictionaryOf(location.dictionary);
      if (!body) return null;
      decoder = createFrameDecoder(body);
      this.decoders.set(location.dictionary, decoder);
    }
    return documentForm(decoder.decode(frame, location.size));
  }

  /** The frame's bytes as stored (compaction copies frames without decoding them). */
  frame(location: DocumentLocation): Buffer | null {
    const fd = this.descriptor(location.pack);
    if (fd === null) return null;
    const frame = Buffer.allocUnsafe(location.length);
    let read = 0;
    while (read < frame.length) {
      const got = readSync(fd, frame, read, frame.length - read, location.offset + read);
      if (got === 0) return null;
      read += got;
    }
    return frame;
  }

  private descriptor(pack: number): number | null {
    const kept = this.descriptors.get(pack);
    if (kept !== undefined) {
      this.descriptors.delete(pack);
      this.descriptors.set(pack, kept);
      return kept;
    }
    let fd: number;
    try {
      fd = openSync(packFileOf(this.stateDir, pack), "r");
    } catch {
      return null;
    }
    this.descriptors.set(pack, fd);
    if (this.descriptors.size > MAX_OPEN_PACKS) {
      for (const [oldest, oldFd] of this.descriptors) {
        this.descriptors.delete(oldest);
        closeSync(oldFd);
        break;
      }
    }
    return fd;
  }

  /** Closes the descriptors (a pack deleted since stays readable through an open one until then). */
  close(): void {
    for (const fd of this.descriptors.values()) closeSync(fd);
    this.descriptors.clear();
    for (const decoder of this.decoders.values()) decoder.close();
    this.decoders.clear();
  }
}
