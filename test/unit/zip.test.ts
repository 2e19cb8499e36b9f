/**
 * Issue 34: INSEE's zip files read as published, streamed from their directory (src/import/zip.ts
 * through src/import/open-text.ts), and what is not one refused in one sentence. The archives come
 * from three writers: Info-ZIP's zip, Python's zipfile (ZIP64 forced) and the tests' own writer
 * (test/helpers/zip-writer.ts: a data descriptor and ZIP64, as a stream writes a 9 GB file), which
 * Info-ZIP's unzip and Python's zipfile are asked to read back first.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fileFault, openBytes, openText } from "../../src/import/open-text.ts";
import { zipEntryOf } from "../../src/import/zip.ts";
import { zipWriter } from "../helpers/zip-writer.ts";

const dir = mkdtempSync(path.join(os.tmpdir(), "abeille-zip-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A CSV of a few thousand rows (a few hundred kilobytes: several chunks of the file and of inflate). */
const CSV = `siren,nic,siret,libelleVoieEtablissement\r\n${Array.from(
  { length: 20_000 },
  (_, index) => `${String(100_000_000 + index)},00012,${String(100_000_000 + index)}00012,"RUE ${index}, BAT É"`,
).join("\r\n")}\r\n`;

async function textOf(file: string): Promise<string> {
  let text = "";
  for await (const chunk of openText(file)) text += chunk;
  return text;
}

/** What reading a file fails with, as the import says it (fileFault), or "read" when it reads. */
async function faultOf(file: string): Promise<string> {
  try {
    for await (const _ of openBytes(file)) {
      // read to the end: a damaged archive fails at its end at the latest
    }
    return "read";
  } catch (error) {
    return fileFault(error) ?? `not the file's: ${String(error)}`;
  }
}

function written(name: string, content: string | Buffer): string {
  const file = path.join(dir, name);
  writeFileSync(file, content);
  return file;
}

async function ownZip(name: string, text: string): Promise<string> {
  const file = path.join(dir, name);
  const writer = zipWriter(file, "StockEtablissement_utf8.csv");
  // Written in pieces, as a stream of millions of rows is.
  for (let at = 0; at < text.length; at += 50_000) await writer.write(text.slice(at, at + 50_000));
  await writer.end();
  return file;
}

describe("a zip archive of one CSV", () => {
  it("is what Info-ZIP and Python read back when the tests' writer wrote it (ZIP64, data descriptor)", async () => {
    const file = await ownZip("own.zip", CSV);
    expect(execFileSync("unzip", ["-t", file]).toString()).toContain("No errors detected");
    const python = execFileSync("python3", [
      "-c",
      "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(z.testzip(), len(z.read('StockEtablissement_utf8.csv')))",
      file,
    ]).toString();
    expect(python).toBe(`None ${Buffer.byteLength(CSV)}\n`);
    expect(await textOf(file)).toBe(CSV);
    expect(zipEntryOf(file)).toMatchObject({
      name: "StockEtablissement_utf8.csv",
      method: 8,
      uncompressedSize: Buffer.byteLength(CSV),
    });
  });

  it("reads what Info-ZIP writes, deflated or stored, and what Python writes in ZIP64 form", async () => {
    const csv = written("StockUniteLegale_utf8.csv", CSV);
    const deflated = path.join(dir, "infozip.zip");
    const stored = path.join(dir, "infozip-stored.zip");
    execFileSync("zip", ["-q", "-j", deflated, csv]);
    execFileSync("zip", ["-q", "-j", "-0", stored, csv]);
    const python = path.join(dir, "python.zip");
    execFileSync("python3", [
      "-c",
      "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n  with open(sys.argv[2], 'rb') as f, z.open('StockUniteLegale_utf8.csv', 'w', force_zip64=True) as out: out.write(f.read())",
      python,
      csv,
    ]);
    expect(await textOf(deflated)).toBe(CSV);
    expect(await textOf(stored)).toBe(CSV);
    expect(zipEntryOf(stored).method).toBe(0);
    expect(await textOf(python)).toBe(CSV);
  });

  it("refuses an archive cut short before reading any of it, wherever it was cut", async () => {
    const whole = readFileSync(await ownZip("whole.zip", CSV));
    for (const length of [10, 200, Math.floor(whole.length / 2), whole.length - 30]) {
      const cut = written(`cut-${length}.zip`, whole.subarray(0, length));
      expect(() => zipEntryOf(cut)).toThrow(
        "a zip archive cut short: the directory that ends a zip archive is missing (a download interrupted? download the file again)",
      );
      expect(await faultOf(cut)).toBe(
        "a zip archive cut short: the directory that ends a zip archive is missing (a download interrupted? download the file again)",
      );
    }
  });

  it("fails on damaged data, at the latest when its checksum is checked at the end", async () => {
    const whole = readFileSync(await ownZip("damaged-source.zip", CSV));
    const start = zipEntryOf(path.join(dir, "damaged-source.zip")).dataStart;
    // A byte changed in the middle of the deflated data: inflate refuses it, or inflates other
    // bytes whose CRC-32 is not the directory's.
    const damaged = Buffer.from(whole);
    const at = start + 40_000;
    damaged[at] = (damaged[at] as number) ^ 0x5a;
    const fault = await faultOf(written("damaged.zip", damaged));
    expect([
      "a damaged zip archive: its file's bytes do not match their checksum (CRC-32): download the file again",
      expect.stringMatching(/^damaged or cut short \(/),
      expect.stringMatching(/^a damaged zip archive: its file inflates to \d+ bytes where its directory says \d+$/),
    ]).toContainEqual(fault);
    // A CRC-32 that does not match, the data whole: the end of the reading says so.
    const wrongCrc = Buffer.from(whole);
    const directoryEntry = wrongCrc.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    wrongCrc.writeUInt32LE((wrongCrc.readUInt32LE(directoryEntry + 16) ^ 1) >>> 0, directoryEntry + 16);
    expect(await faultOf(written("wrong-crc.zip", wrongCrc))).toBe(
      "a damaged zip archive: its file's bytes do not match their checksum (CRC-32): download the file again",
    );
  });

  it("refuses an archive of several files, a workbook, and the other kinds of file, saying what they are", async () => {
    const csv = written("a.csv", "siren\n1\n");
    const other = written("b.csv", "siren\n2\n");
    const several = path.join(dir, "several.zip");
    execFileSync("zip", ["-q", "-j", several, csv, other]);
    expect(await faultOf(several)).toBe(
      "a zip archive of 2 files (a.csv, b.csv): INSEE's holds one CSV; give the file as published",
    );
    const types = written("[Content_Types].xml", "<Types/>");
    const workbook = path.join(dir, "book.xlsx");
    execFileSync("zip", ["-q", "-j", workbook, types, csv]);
    expect(await faultOf(workbook)).toBe(
      "an Office document (a spreadsheet?), not INSEE's zip of one CSV: give the file as published",
    );
    expect(await faultOf(written("stock.parquet", Buffer.concat([Buffer.from("PAR1"), Buffer.alloc(64)])))).toBe(
      "a Parquet file: the import reads INSEE's CSV files (StockEtablissement_utf8.zip, StockUniteLegale_utf8.zip)",
    );
    expect(await faultOf(written("error.html", "\n<!DOCTYPE html><html><body>502</body></html>"))).toBe(
      "an HTML or XML page, not a CSV file (a download that failed? download the file again)",
    );
    expect(await faultOf(written("notice.pdf", "%PDF-1.7\n"))).toBe("a PDF document, not a CSV file");
    expect(await faultOf(written("plain.csv", CSV))).toBe("read");
  });
});
