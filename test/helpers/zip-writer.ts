/**
 * A zip archive of one file, written as a stream (the way INSEE publishes its stock files: one
 * CSV, deflated, in `StockEtablissement_utf8.zip`), for the import's tests and benches. The entry
 * is written with a data descriptor (its sizes and CRC-32 are known only at the end) and in ZIP64
 * form (sizes past 4 GiB: the national CSV is 9 GB), as APPNOTE.TXT 6.3 describes them: a local
 * header with a ZIP64 extra field, the deflated data, a ZIP64 data descriptor, the central
 * directory, the ZIP64 end of central directory record and its locator, the end of central
 * directory record. test/unit/zip.test.ts checks with Python's zipfile and Info-ZIP's unzip that
 * what it writes is a zip they read.
 */
import { once } from "node:events";
import { createWriteStream, type WriteStream } from "node:fs";
import { crc32, createDeflateRaw } from "node:zlib";

const LOCAL_HEADER = 0x04034b50;
const DATA_DESCRIPTOR = 0x08074b50;
const CENTRAL_HEADER = 0x02014b50;
const ZIP64_END = 0x06064b50;
const ZIP64_LOCATOR = 0x07064b50;
const END = 0x06054b50;
/** Bit 3: sizes and CRC in the data descriptor; bit 11: the name is UTF-8. */
const FLAGS = 0x0008 | 0x0800;
const DEFLATE = 8;
/** Version 4.5: ZIP64. */
const VERSION = 45;
/** 2026-11-01 00:00, as MS-DOS writes a date and time. */
const DOS_TIME = 0;
const DOS_DATE = ((2026 - 1980) << 9) | (11 << 5) | 1;

export interface ZipWriter {
  /** Writes text (UTF-8) or bytes into the entry, waiting while the file catches up. */
  write(data: string | Buffer): Promise<void>;
  /** Ends the entry and the archive; resolves once the file is closed. */
  end(): Promise<{ compressedBytes: number; uncompressedBytes: number }>;
}

/** Starts `file`, a zip archive holding one entry named `entryName`, deflated at `level`. */
export function zipWriter(file: string, entryName: string, level = 6): ZipWriter {
  const out = createWriteStream(file);
  const name = Buffer.from(entryName, "utf8");
  const deflate = createDeflateRaw({ level });
  let crc = 0;
  let uncompressed = 0;
  let compressed = 0;
  let failure: Error | null = null;
  out.on("error", (error) => {
    failure = error;
    deflate.destroy(error);
  });
  deflate.on("data", (chunk: Buffer) => {
    compressed += chunk.length;
    if (!out.write(chunk)) {
      deflate.pause();
      out.once("drain", () => deflate.resume());
    }
  });
  const deflated = new Promise<void>((resolve, reject) => {
    deflate.on("end", resolve);
    deflate.on("error", reject);
  });

  // The local header: sizes and CRC zero (they follow the data), a ZIP64 extra field of zeros.
  const localExtra = Buffer.alloc(20);
  localExtra.writeUInt16LE(0x0001, 0);
  localExtra.writeUInt16LE(16, 2);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(LOCAL_HEADER, 0);
  local.writeUInt16LE(VERSION, 4);
  local.writeUInt16LE(FLAGS, 6);
  local.writeUInt16LE(DEFLATE, 8);
  local.writeUInt16LE(DOS_TIME, 10);
  local.writeUInt16LE(DOS_DATE, 12);
  local.writeUInt32LE(0, 14);
  local.writeUInt32LE(0xffffffff, 18);
  local.writeUInt32LE(0xffffffff, 22);
  local.writeUInt16LE(name.length, 26);
  local.writeUInt16LE(localExtra.length, 28);
  out.write(Buffer.concat([local, name, localExtra]));
  const dataStart = local.length + name.length + localExtra.length;

  return {
    async write(data) {
      if (failure) throw failure;
      const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
      crc = crc32(bytes, crc);
      uncompressed += bytes.length;
      if (!deflate.write(bytes)) await once(deflate, "drain");
    },
    async end() {
      deflate.end();
      await deflated;
      const descriptor = Buffer.alloc(24);
      descriptor.writeUInt32LE(DATA_DESCRIPTOR, 0);
      descriptor.writeUInt32LE(crc, 4);
      descriptor.writeBigUInt64LE(BigInt(compressed), 8);
      descriptor.writeBigUInt64LE(BigInt(uncompressed), 16);

      const centralStart = dataStart + compressed + descriptor.length;
      const centralExtra = Buffer.alloc(28);
      centralExtra.writeUInt16LE(0x0001, 0);
      centralExtra.writeUInt16LE(24, 2);
      centralExtra.writeBigUInt64LE(BigInt(uncompressed), 4);
      centralExtra.writeBigUInt64LE(BigInt(compressed), 12);
      centralExtra.writeBigUInt64LE(0n, 20);
      const central = Buffer.alloc(46);
      central.writeUInt32LE(CENTRAL_HEADER, 0);
      central.writeUInt16LE((3 << 8) | VERSION, 4);
      central.writeUInt16LE(VERSION, 6);
      central.writeUInt16LE(FLAGS, 8);
      central.writeUInt16LE(DEFLATE, 10);
      central.writeUInt16LE(DOS_TIME, 12);
      central.writeUInt16LE(DOS_DATE, 14);
      central.writeUInt32LE(crc, 16);
      central.writeUInt32LE(0xffffffff, 20);
      central.writeUInt32LE(0xffffffff, 24);
      central.writeUInt16LE(name.length, 28);
      central.writeUInt16LE(centralExtra.length, 30);
      // Unix permissions rw-r--r-- (external attributes, upper half).
      central.writeUInt32LE((0o100644 << 16) >>> 0, 38);
      central.writeUInt32LE(0xffffffff, 42);
      const centralSize = central.length + name.length + centralExtra.length;

      const zip64End = Buffer.alloc(56);
      zip64End.writeUInt32LE(ZIP64_END, 0);
      zip64End.writeBigUInt64LE(44n, 4);
      zip64End.writeUInt16LE((3 << 8) | VERSION, 12);
      zip64End.writeUInt16LE(VERSION, 14);
      zip64End.writeBigUInt64LE(1n, 24);
      zip64End.writeBigUInt64LE(1n, 32);
      zip64End.writeBigUInt64LE(BigInt(centralSize), 40);
      zip64End.writeBigUInt64LE(BigInt(centralStart), 48);
      const locator = Buffer.alloc(20);
      locator.writeUInt32LE(ZIP64_LOCATOR, 0);
      locator.writeBigUInt64LE(BigInt(centralStart + centralSize), 8);
      locator.writeUInt32LE(1, 16);
      const end = Buffer.alloc(22);
      end.writeUInt32LE(END, 0);
      end.writeUInt16LE(1, 8);
      end.writeUInt16LE(1, 10);
      end.writeUInt32LE(0xffffffff, 12);
      end.writeUInt32LE(0xffffffff, 16);

      await closed(out, Buffer.concat([descriptor, central, name, centralExtra, zip64End, locator, end]));
      if (failure) throw failure;
      return { compressedBytes: compressed, uncompressedBytes: uncompressed };
    },
  };
}

function closed(out: WriteStream, last: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    out.end(last, (error?: Error | null) => (error ? reject(error) : resolve()));
  });
}
