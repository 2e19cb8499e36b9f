import { closeSync, createReadStream, openSync, type ReadStream, readSync, statSync } from "node:fs";
import type { Readable } from "node:stream";
import { createGunzip, createInflateRaw } from "node:zlib";

/**
 * Opens an official file as a stream of UTF-8 text, whichever way it was published: plain CSV,
 * gzipped (the geocoded SIRENE files, `.csv.gz`) or zipped (INSEE's `StockEtablissement_utf8.zip`,
 * one CSV inside). The kind is read from the first bytes, not the name. A zip is read from its
 * first entry's local header on, streamed through inflate: nothing is unpacked on disk, and memory
 * stays bounded whatever the size (the sizes in the header are not needed, so ZIP64 archives and
 * archives written with a data descriptor read the same way).
 */
export function openText(file: string, meter?: ReadMeter): AsyncIterable<string> {
  const read = (options?: { start: number; end?: number }) => {
    const stream = createReadStream(file, options);
    meter?.track(file, stream);
    return stream;
  };
  const head = Buffer.alloc(30);
  const fd = openSync(file, "r");
  let headLength: number;
  try {
    headLength = readSync(fd, head, 0, 30, 0);
  } finally {
    closeSync(fd);
  }
  if (headLength >= 2 && head[0] === 0x1f && head[1] === 0x8b) {
    return decode(read().pipe(createGunzip()));
  }
  if (headLength >= 4 && head.readUInt32LE(0) === ZIP_LOCAL_HEADER) {
    if (headLength < 30) throw new OfficialFileError("a zip archive cut short");
    const method = head.readUInt16LE(8);
    const flags = head.readUInt16LE(6);
    const nameLength = head.readUInt16LE(26);
    const extraLength = head.readUInt16LE(28);
    if (flags & 0x1) throw new OfficialFileError("an encrypted zip archive: not read");
    const start = 30 + nameLength + extraLength;
    if (method === 8) return decode(read({ start }).pipe(createInflateRaw()));
    if (method === 0) {
      const size = head.readUInt32LE(18);
      if (flags & 0x8 || size === 0xffffffff) {
        throw new OfficialFileError("a zip archive whose stored (uncompressed) entry does not give its size: not read");
      }
      return decode(read({ start, end: start + size - 1 }));
    }
    throw new OfficialFileError(`a zip archive compressed by method ${method}: not read (deflate or stored)`);
  }
  return decode(read());
}

const ZIP_LOCAL_HEADER = 0x04034b50;

/**
 * How far a run has read through its files, in bytes of the files as they are on disk (compressed
 * or not), against the sum of their sizes: a long import's progress. The import tells it the files
 * it will read, in order (a file read twice counts twice); openText reports each file it opens.
 */
export class ReadMeter {
  #total = 0;
  #done = 0;
  readonly #open = new Set<ReadStream>();
  #current: string | null = null;

  /** The files the run will read, in order; one that cannot be found counts for nothing (its reading says why). */
  plan(files: readonly string[]): void {
    this.#total = files.reduce((sum, file) => {
      try {
        return sum + statSync(file).size;
      } catch {
        return sum;
      }
    }, 0);
  }

  track(file: string, stream: ReadStream): void {
    this.#current = file;
    this.#open.add(stream);
    stream.once("close", () => {
      this.#open.delete(stream);
      this.#done += stream.bytesRead;
    });
  }

  /** Bytes read so far, of every file the run opened. */
  get bytesRead(): number {
    let open = 0;
    for (const stream of this.#open) open += stream.bytesRead;
    return Math.min(this.#total, this.#done + open);
  }

  get totalBytes(): number {
    return this.#total;
  }

  /** The file read last (null before the first). */
  get current(): string | null {
    return this.#current;
  }
}

/** An official file the import cannot open (its message says what the file is, not which). */
export class OfficialFileError extends Error {
  override name = "OfficialFileError";
}

/**
 * Why reading a file failed, when the failure is the file's: missing or unreadable, damaged or cut
 * short (gzip, zip), an archive not read here. Null for any other failure (not the file's: a bug).
 */
export function fileFault(error: unknown): string | null {
  if (error instanceof OfficialFileError) return error.message;
  const unreadable = unreadableFile(error);
  if (unreadable !== null) return unreadable;
  const code = String((error as NodeJS.ErrnoException | null)?.code);
  if (["Z_DATA_ERROR", "Z_BUF_ERROR"].includes(code)) return `damaged or cut short (${(error as Error).message})`;
  return null;
}

/** Why the system could not open or read a file, in words ("no such file"); null for another failure. */
export function unreadableFile(error: unknown): string | null {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const reasons: Record<string, string> = {
    ENOENT: "no such file",
    EACCES: "not allowed to read it (permissions)",
    EPERM: "not allowed to read it (permissions)",
    EISDIR: "a directory, not a file",
    ENOTDIR: "no such file (a part of the path is not a directory)",
    ENAMETOOLONG: "the path is too long",
    ELOOP: "the path loops through symbolic links",
  };
  return code !== undefined && code in reasons ? `${reasons[code]} (${code})` : null;
}

/** Bytes to text: a multi-byte character split between two chunks is decoded whole. */
function decode(stream: Readable): AsyncIterable<string> {
  stream.setEncoding("utf8");
  return stream as AsyncIterable<string>;
}

/**
 * The same text, after `check` has seen its first line (up to `limit` characters, without its line
 * end): a file's layout is told by its header before a reader tries to parse it. When `check`
 * throws, the file is closed and the error is the reading's.
 */
export async function* afterFirstLineCheck(
  chunks: AsyncIterable<string>,
  check: (firstLine: string) => void,
  limit: number,
): AsyncGenerator<string> {
  const iterator = chunks[Symbol.asyncIterator]();
  let head = "";
  let done = false;
  try {
    while (!done && !head.includes("\n") && head.length < limit) {
      const next = await iterator.next();
      if (next.done) done = true;
      else head += next.value;
    }
    check(
      (head.split("\n", 1)[0] ?? "")
        .slice(0, limit)
        .replace(/^\uFEFF/, "")
        .replace(/\r$/, ""),
    );
    if (head !== "") yield head;
    while (!done) {
      const next = await iterator.next();
      if (next.done) done = true;
      else yield next.value;
    }
  } finally {
    if (!done) await iterator.return?.();
  }
}
