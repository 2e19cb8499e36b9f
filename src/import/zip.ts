import { closeSync, createReadStream, fstatSync, openSync, type ReadStream, readSync } from "node:fs";
import { type Readable, Transform, type TransformCallback } from "node:stream";
import { crc32, createInflateRaw } from "node:zlib";

/**
 * The one file of a zip archive as published (INSEE's `StockEtablissement_utf8.zip` holds one CSV,
 * deflated, 1.2 GB for 9 GB of text), streamed: never unpacked to disk, memory bounded whatever its
 * size. The archive is read from its directory, at its end (APPNOTE.TXT 6.3: the end of central
 * directory record, its ZIP64 form for archives past 4 GiB, the central directory entry), so an
 * archive cut short (a download interrupted: its directory is missing) is refused before a byte of
 * its data is read; the sizes and CRC-32 the directory gives are checked against the bytes
 * inflated, so damage anywhere in the data is found by the end of the reading at the latest.
 */

/** What the directory says of the archive's file. */
export interface ZipEntry {
  name: string;
  /** 8: deflate; 0: stored. */
  method: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  /** Where its data starts in the archive (after its local header). */
  dataStart: number;
}

/** An archive the import cannot read: what it is and why, in one sentence (without the file's path). */
export class ZipArchiveError extends Error {
  override name = "ZipArchiveError";
}

const END_OF_DIRECTORY = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_END_OF_DIRECTORY = 0x06064b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
/** The end record is 22 bytes and may be followed by a comment of up to 65,535. */
const END_SEARCH = 22 + 0xffff;
const CUT_SHORT =
  "a zip archive cut short: the directory that ends a zip archive is missing (a download interrupted? download the file again)";

/** Whether a file's first bytes are a zip archive's (a local header, or the end record of an empty one). */
export function isZipSignature(head: Buffer): boolean {
  return head.length >= 4 && (head.readUInt32LE(0) === LOCAL_HEADER || head.readUInt32LE(0) === END_OF_DIRECTORY);
}

/** Reads the archive's directory and answers its one file; a ZipArchiveError says why it cannot. */
export function zipEntryOf(file: string): ZipEntry {
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    const read = (position: number, length: number): Buffer => {
      if (position < 0 || position + length > size) throw new ZipArchiveError(CUT_SHORT);
      const buffer = Buffer.alloc(length);
      const got = readSync(fd, buffer, 0, length, position);
      if (got !== length) throw new ZipArchiveError(CUT_SHORT);
      return buffer;
    };
    const tailLength = Math.min(size, END_SEARCH);
    const tail = read(size - tailLength, tailLength);
    let at = -1;
    for (let index = tail.length - 22; index >= 0; index--) {
      // The record's comment length must reach the end of the file exactly (a signature inside
      // compressed data does not).
      if (tail.readUInt32LE(index) === END_OF_DIRECTORY && index + 22 + tail.readUInt16LE(index + 20) === tail.length) {
        at = index;
        break;
      }
    }
    if (at < 0) throw new ZipArchiveError(CUT_SHORT);
    const end = tail.subarray(at);
    let entries = end.readUInt16LE(10);
    let directorySize = end.readUInt32LE(12);
    let directoryStart = end.readUInt32LE(16);
    const endPosition = size - tailLength + at;
    if (entries === 0xffff || directorySize === 0xffffffff || directoryStart === 0xffffffff) {
      const locator = read(endPosition - 20, 20);
      if (locator.readUInt32LE(0) !== ZIP64_LOCATOR) {
        throw new ZipArchiveError("a damaged zip archive: its ZIP64 end record is missing");
      }
      const zip64 = read(Number(locator.readBigUInt64LE(8)), 56);
      if (zip64.readUInt32LE(0) !== ZIP64_END_OF_DIRECTORY) {
        throw new ZipArchiveError("a damaged zip archive: its ZIP64 end record is not where its locator says");
      }
      entries = Number(zip64.readBigUInt64LE(32));
      directorySize = Number(zip64.readBigUInt64LE(40));
      directoryStart = Number(zip64.readBigUInt64LE(48));
    }
    if (entries === 0) throw new ZipArchiveError("an empty zip archive: it holds no file");
    const directory = read(directoryStart, directorySize);
    const files: (ZipEntry & { flags: number; localHeader: number })[] = [];
    let position = 0;
    for (let index = 0; index < entries; index++) {
      if (position + 46 > directory.length || directory.readUInt32LE(position) !== DIRECTORY_ENTRY) {
        throw new ZipArchiveError("a damaged zip archive: its directory is not where its end record says");
      }
      const nameLength = directory.readUInt16LE(position + 28);
      const extraLength = directory.readUInt16LE(position + 30);
      const commentLength = directory.readUInt16LE(position + 32);
      const name = directory.toString("utf8", position + 46, position + 46 + nameLength);
      let uncompressedSize = directory.readUInt32LE(position + 24);
      let compressedSize = directory.readUInt32LE(position + 20);
      let localHeader = directory.readUInt32LE(position + 42);
      // The ZIP64 extra field holds, in this order, the values the entry marks 0xFFFFFFFF.
      const extraStart = position + 46 + nameLength;
      for (let extra = extraStart; extra + 4 <= extraStart + extraLength; ) {
        const id = directory.readUInt16LE(extra);
        const length = directory.readUInt16LE(extra + 2);
        if (id === 0x0001) {
          let field = extra + 4;
          const next = () => {
            const value = Number(directory.readBigUInt64LE(field));
            field += 8;
            return value;
          };
          if (uncompressedSize === 0xffffffff) uncompressedSize = next();
          if (compressedSize === 0xffffffff) compressedSize = next();
          if (localHeader === 0xffffffff) localHeader = next();
        }
        extra += 4 + length;
      }
      if (!name.endsWith("/")) {
        files.push({
          name,
          flags: directory.readUInt16LE(position + 8),
          method: directory.readUInt16LE(position + 10),
          crc32: directory.readUInt32LE(position + 16),
          compressedSize,
          uncompressedSize,
          localHeader,
          dataStart: 0,
        });
      }
      position += 46 + nameLength + extraLength + commentLength;
    }
    const [entry, ...others] = files;
    if (!entry) throw new ZipArchiveError("an empty zip archive: it holds no file");
    if (others.length > 0) {
      const names = files.map((each) => each.name);
      const workbook = names.includes("[Content_Types].xml");
      throw new ZipArchiveError(
        workbook
          ? "an Office document (a spreadsheet?), not INSEE's zip of one CSV: give the file as published"
          : `a zip archive of ${files.length} files (${names.slice(0, 3).join(", ")}${files.length > 3 ? ", ..." : ""}): INSEE's holds one CSV; give the file as published`,
      );
    }
    if (entry.flags & 0x1) throw new ZipArchiveError("an encrypted zip archive: not read");
    if (entry.method !== 8 && entry.method !== 0) {
      throw new ZipArchiveError(
        `a zip archive compressed by method ${entry.method}: not read (deflate or stored, as INSEE publishes)`,
      );
    }
    const local = read(entry.localHeader, 30);
    if (local.readUInt32LE(0) !== LOCAL_HEADER) {
      throw new ZipArchiveError("a damaged zip archive: its file's header is not where its directory says");
    }
    const dataStart = entry.localHeader + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
    if (dataStart + entry.compressedSize > size) throw new ZipArchiveError(CUT_SHORT);
    return {
      name: entry.name,
      method: entry.method,
      crc32: entry.crc32,
      compressedSize: entry.compressedSize,
      uncompressedSize: entry.uncompressedSize,
      dataStart,
    };
  } finally {
    closeSync(fd);
  }
}

/**
 * The archive's file as a stream of bytes, inflated as it is read; it fails with a ZipArchiveError
 * when what was read does not match the directory's size and CRC-32 (a damaged archive), and with
 * zlib's error when the deflated data is not deflate (Z_DATA_ERROR) or ends too soon (Z_BUF_ERROR).
 * `opened` is told of the file's read stream (to meter the bytes read).
 */
export function zipEntryBytes(file: string, entry: ZipEntry, opened?: (stream: ReadStream) => void): Readable {
  const raw = createReadStream(file, {
    start: entry.dataStart,
    end: entry.dataStart + entry.compressedSize - 1,
    highWaterMark: 1 << 20,
  });
  opened?.(raw);
  const checked = checkedAgainst(entry);
  const source: Readable = entry.method === 8 ? raw.pipe(createInflateRaw({ chunkSize: 1 << 18 })) : raw;
  // Errors of the file and of inflate end the stream the reader holds; a reader that stops early
  // (a header refused) closes the file.
  raw.on("error", (error) => checked.destroy(error));
  if (source !== raw) source.on("error", (error: Error) => checked.destroy(error));
  checked.on("close", () => {
    raw.destroy();
    if (source !== raw) source.destroy();
  });
  return source.pipe(checked);
}

/** Passes bytes through, counting them and their CRC-32; at the end, checks both against the entry's. */
function checkedAgainst(entry: ZipEntry): Transform {
  let crc = 0;
  let length = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      crc = crc32(chunk, crc);
      length += chunk.length;
      done(null, chunk);
    },
    flush(done: TransformCallback) {
      if (length !== entry.uncompressedSize) {
        done(
          new ZipArchiveError(
            `a damaged zip archive: its file inflates to ${length} bytes where its directory says ${entry.uncompressedSize}`,
          ),
        );
      } else if (crc >>> 0 !== entry.crc32 >>> 0) {
        done(
          new ZipArchiveError(
            "a damaged zip archive: its file's bytes do not match their checksum (CRC-32): download the file again",
          ),
        );
      } else done();
    },
  });
}
