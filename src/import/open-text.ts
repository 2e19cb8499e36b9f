import { closeSync, createReadStream, openSync, type ReadStream, readSync, statSync } from "node:fs";
import type { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { isZipSignature, ZipArchiveError, zipEntryBytes, zipEntryOf } from "./zip.ts";

/**
 * Opens an official file as a stream of UTF-8 text, whichever way it was published: plain CSV,
 * gzipped (the geocoded SIRENE files, `.csv.gz`) or zipped (INSEE's `StockEtablissement_utf8.zip`,
 * one CSV inside: src/import/zip.ts, read from its directory, checked against its CRC-32). The kind
 * is read from the first bytes, not the name; a kind of file the imports do not read (Parquet, a
 * spreadsheet, a PDF, an HTML page where a download failed, another archive) is refused with what
 * it is. Nothing is unpacked on disk, and memory stays bounded whatever the size.
 */
export function openText(file: string, meter?: ReadMeter): AsyncIterable<string> {
  return decode(openBytes(file, meter));
}

/** The same file as a stream of bytes (Buffers): what a reader that parses bytes reads. */
export function openBytes(file: string, meter?: ReadMeter): Readable {
  const read = (options?: { start: number; end?: number }) => {
    const stream = createReadStream(file, { ...options, highWaterMark: 1 << 20 });
    meter?.track(file, stream);
    return stream;
  };
  const head = Buffer.alloc(30);
  const fd = openSync(file, "r");
  let headLength: number;
  try {
    headLength = readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  const first = head.subarray(0, headLength);
  if (headLength >= 2 && first[0] === 0x1f && first[1] === 0x8b) {
    const source = read();
    const gunzip = createGunzip();
    source.on("error", (error) => gunzip.destroy(error));
    return source.pipe(gunzip);
  }
  if (isZipSignature(first)) {
    // An encrypted archive says so in its first header, whatever else is wrong with it.
    if (headLength >= 8 && first.readUInt32LE(0) === 0x04034b50 && first.readUInt16LE(6) & 0x1) {
      throw new OfficialFileError("an encrypted zip archive: not read");
    }
    const entry = zipEntryOf(file);
    return zipEntryBytes(file, entry, (stream) => meter?.track(file, stream));
  }
  const other = otherKind(first);
  if (other) throw new OfficialFileError(other);
  return read();
}

/** Whether the file is compressed with a checksum of its content (zip, gzip): damage in it shows by the end of its reading. */
export function carriesChecksum(file: string): boolean {
  const head = Buffer.alloc(4);
  const fd = openSync(file, "r");
  try {
    const length = readSync(fd, head, 0, 4, 0);
    return (length >= 2 && head[0] === 0x1f && head[1] === 0x8b) || (length === 4 && isZipSignature(head));
  } finally {
    closeSync(fd);
  }
}

/** Kinds of file that are not text the imports read, told by their first bytes. */
function otherKind(head: Buffer): string | null {
  const starts = (text: string) => head.subarray(0, text.length).toString("latin1") === text;
  if (starts("PAR1")) {
    return "a Parquet file: the import reads INSEE's CSV files (StockEtablissement_utf8.zip, StockUniteLegale_utf8.zip)";
  }
  if (starts("%PDF")) return "a PDF document, not a CSV file";
  if (head.subarray(0, 8).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]))) {
    return "an Office document (an old Excel workbook?), not a CSV file: give the file as published";
  }
  if (starts("7z\xbc\xaf\x27\x1c") || starts("Rar!") || starts("BZh") || starts("\xfd7zXZ\x00")) {
    return "an archive of a kind the import does not read (7-Zip, RAR, bzip2 or xz): INSEE publishes zip files";
  }
  const text = head
    .toString("latin1")
    .replace(/^\xef\xbb\xbf/, "")
    .trimStart()
    .toLowerCase();
  if (text.startsWith("<!doctype") || text.startsWith("<html") || text.startsWith("<?xml")) {
    return "an HTML or XML page, not a CSV file (a download that failed? download the file again)";
  }
  return null;
}

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

  /**
   * What a reading elsewhere (another thread's meter) says it has read: the file it reads, its
   * bytes read and total. From then on this meter answers with those.
   */
  tell(current: string | null, bytesRead: number, totalBytes: number): void {
    this.#told = { bytesRead, totalBytes };
    this.#current = current;
  }

  #told: { bytesRead: number; totalBytes: number } | null = null;

  /** Bytes read so far, of every file the run opened. */
  get bytesRead(): number {
    if (this.#told) return this.#told.bytesRead;
    let open = 0;
    for (const stream of this.#open) open += stream.bytesRead;
    return Math.min(this.#total, this.#done + open);
  }

  get totalBytes(): number {
    if (this.#told) return this.#told.totalBytes;
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
  if (error instanceof OfficialFileError || error instanceof ZipArchiveError) return error.message;
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
