/**
 * The CSV reader the official-file importers stream through (src/import/csv.ts): RFC 4180 as the
 * INSEE stock files write it, whatever the chunk boundaries.
 */
import { describe, expect, it } from "vitest";
import { CsvFormatError, csvRecords, csvRows } from "../../src/import/csv.ts";

async function* chunked(text: string, size: number): AsyncGenerator<string> {
  for (let start = 0; start < text.length; start += size) yield text.slice(start, start + size);
}

async function records(text: string, size = text.length || 1) {
  const out: { line: number; fields: string[] }[] = [];
  for await (const record of csvRecords(chunked(text, size))) out.push(record);
  return out;
}

const SAMPLE =
  "\uFEFFsiren,nic,enseigne1Etablissement\r\n" +
  '123456789,00012,"BOULANGERIE ""CHEZ PAUL"", PAINS"\r\n' +
  '987654321,00045,"LIGNE 1\nLIGNE 2"\n' +
  "111111111,00001,\n" +
  "222222222,00002,SANS GUILLEMETS";

const EXPECTED = [
  { line: 1, fields: ["siren", "nic", "enseigne1Etablissement"] },
  { line: 2, fields: ["123456789", "00012", 'BOULANGERIE "CHEZ PAUL", PAINS'] },
  { line: 3, fields: ["987654321", "00045", "LIGNE 1\nLIGNE 2"] },
  { line: 5, fields: ["111111111", "00001", ""] },
  { line: 6, fields: ["222222222", "00002", "SANS GUILLEMETS"] },
];

describe("csvRecords", () => {
  it("reads quotes, doubled quotes, commas and line breaks inside fields, CRLF and LF, and a BOM", async () => {
    expect(await records(SAMPLE)).toEqual(EXPECTED);
  });

  it("gives the same records whatever the chunk boundaries fall on", async () => {
    for (let size = 1; size <= 12; size++) expect(await records(SAMPLE, size), `chunks of ${size}`).toEqual(EXPECTED);
  });

  it("refuses a file cut inside a quoted field, naming the line the record started on", async () => {
    await expect(records('a,b\n1,"pas fini\nsuite')).rejects.toMatchObject({
      name: "CsvFormatError",
      line: 2,
      message: "the file ends inside a quoted field (cut short?)",
    });
    await expect(records('a\n"x"y\n')).rejects.toBeInstanceOf(CsvFormatError);
  });
});

describe("csvRows", () => {
  it("keys rows by the header, allows extra columns, reports a row of the wrong width and goes on", async () => {
    const text = "siren,nic,colonneNouvelle\n123456789,00012,x\n123,4\n987654321,00045,y\n";
    const out = [];
    for await (const row of csvRows(chunked(text, 5), ["siren", "nic"])) out.push(row);
    expect(out).toEqual([
      { line: 2, row: { siren: "123456789", nic: "00012", colonneNouvelle: "x" } },
      { line: 3, error: "2 fields where the header has 3" },
      { line: 4, row: { siren: "987654321", nic: "00045", colonneNouvelle: "y" } },
    ]);
  });

  it("refuses a header without the columns the import needs", async () => {
    const rows = csvRows(chunked("siren,nom\n1,2\n", 64), ["siren", "nic", "siret"]);
    await expect(rows.next()).rejects.toMatchObject({ message: "the header lacks the columns nic, siret", line: 1 });
  });
});
