/**
 * The CSV reader the official-file importers stream through (src/import/csv.ts): RFC 4180 as the
 * INSEE stock files write it, whatever the chunk boundaries.
 */
import { describe, expect, it } from "vitest";
import {
  CsvFormatError,
  type CsvRecord,
  type CsvRejected,
  csvRecords,
  csvRows,
  MAX_RECORD_BYTES,
} from "../../src/import/csv.ts";

async function* chunked(text: string, size: number): AsyncGenerator<string> {
  for (let start = 0; start < text.length; start += size) yield text.slice(start, start + size);
}

async function records(text: string, size = text.length || 1) {
  const out: (CsvRecord | CsvRejected)[] = [];
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

/** Text that is never held whole: `count` chunks of `piece`, as a file of gigabytes would stream. */
async function* repeated(head: string, piece: string, count: number, tail: string): AsyncGenerator<string> {
  yield head;
  for (let index = 0; index < count; index++) yield piece;
  yield tail;
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe("the record size limit", () => {
  const HEADER = "siren,nic,enseigne1Etablissement\n";
  const SKIPPED = `a record of more than ${MAX_RECORD_BYTES} bytes (a damaged file, or not this file's layout): skipped`;

  it("sets aside a line of hundreds of megabytes with its number and reads the rows after it", async () => {
    // 64 MB of one line without a line break, never held (a 2 GiB line ended the reader with a
    // RangeError; past the limit, the length makes no difference but time).
    const chunk = "A".repeat(64 * 1024);
    const rows = await all(
      csvRows(
        repeated(`${HEADER}123456789,00012,AU PAIN\n987654321,00045,`, chunk, 1024, "\n111111111,00001,FIN\n"),
        ["siren", "nic"],
        ["enseigne1Etablissement"],
      ),
    );
    expect(rows).toEqual([
      { line: 2, row: { siren: "123456789", nic: "00012", enseigne1Etablissement: "AU PAIN" } },
      { line: 3, error: SKIPPED },
      { line: 4, row: { siren: "111111111", nic: "00001", enseigne1Etablissement: "FIN" } },
    ]);
  });

  it("sets aside a record whose quoted field runs over the limit across lines, and counts its lines", async () => {
    const lines = Math.ceil(MAX_RECORD_BYTES / 6) + 10;
    const long = `"${"ligne\n".repeat(lines)}"`;
    const text = `${HEADER}1,2,${long}\n3,4,apres\n`;
    for (const size of [7, 1000, text.length]) {
      const rows = await all(csvRows(chunked(text, size), ["siren", "nic"], ["enseigne1Etablissement"]));
      expect(rows, `chunks of ${size}`).toEqual([
        { line: 2, error: SKIPPED },
        { line: 3 + lines, row: { siren: "3", nic: "4", enseigne1Etablissement: "apres" } },
      ]);
    }
  });

  it("keeps a record of exactly the limit, whatever the chunks", async () => {
    const name = "B".repeat(MAX_RECORD_BYTES - "1,2,".length);
    for (const size of [1024, 65_536, 100_000]) {
      const rows = await all(
        csvRows(chunked(`${HEADER}1,2,${name}\r\n`, size), ["siren", "nic"], ["enseigne1Etablissement"]),
      );
      expect(rows, `chunks of ${size}`).toEqual([
        { line: 2, row: { siren: "1", nic: "2", enseigne1Etablissement: name } },
      ]);
    }
  });

  it("refuses a header over the limit (not a file of this layout)", async () => {
    const rows = csvRows(repeated("siren,", "x".repeat(65_536), 2, "\n1\n"), ["siren"], []);
    await expect(rows.next()).rejects.toMatchObject({
      name: "CsvFormatError",
      line: 1,
      message: `the header: ${SKIPPED}`,
    });
  });
});

describe("columns found by name", () => {
  it("reads a header re-exported in lower case or in another order, keyed as the import names the columns", async () => {
    // The real legal units header as a database export wrote it, in lower case (etalab/sirene_as_api's
    // spec/fixtures/sample_unites_legales_OK.csv for the row, of StockUniteLegale's 2019 layout).
    const text =
      "siren,statutdiffusionunitelegale,unitepurgeeunitelegale,datecreationunitelegale,sigleunitelegale,sexeunitelegale,prenom1unitelegale,prenom2unitelegale,prenom3unitelegale,prenom4unitelegale,prenomusuelunitelegale,pseudonymeunitelegale,identifiantassociationunitelegale,trancheeffectifsunitelegale,anneeeffectifsunitelegale,datederniertraitementunitelegale,nombreperiodesunitelegale,categorieentreprise,anneecategorieentreprise,datedebut,etatadministratifunitelegale,nomunitelegale,nomusageunitelegale,denominationunitelegale,denominationusuelle1unitelegale,denominationusuelle2unitelegale,denominationusuelle3unitelegale,categoriejuridiqueunitelegale,activiteprincipaleunitelegale,nomenclatureactiviteprincipaleunitelegale,nicsiegeunitelegale,economiesocialesolidaireunitelegale,caractereemployeurunitelegale\n" +
      "000325175,O,,2000-09-26,,M,THIERRY,,,,THIERRY,,,,,2018-07-10T14:17:15,6,PME,2016,2018-02-07,A,JANOYER,,,,,,1000,32.12Z,NAFRev2,00065,,N\n";
    const rows = await all(
      csvRows(
        chunked(text, 50),
        ["siren", "statutDiffusionUniteLegale", "nomUniteLegale", "prenomUsuelUniteLegale"],
        [],
      ),
    );
    expect(rows).toEqual([
      {
        line: 2,
        row: {
          siren: "000325175",
          statutDiffusionUniteLegale: "O",
          nomUniteLegale: "JANOYER",
          prenomUsuelUniteLegale: "THIERRY",
        },
      },
    ]);
    const shuffled = await all(csvRows(chunked("NIC,Siren\n00012,123456789\n", 4), ["siren", "nic"], []));
    expect(shuffled).toEqual([{ line: 2, row: { siren: "123456789", nic: "00012" } }]);
  });

  it("refuses a header that names a column it reads twice (whatever the case)", async () => {
    const rows = csvRows(chunked("siren,nic,SIREN\n1,2,3\n", 64), ["siren", "nic"], []);
    await expect(rows.next()).rejects.toMatchObject({
      line: 1,
      message: "the header names the column siren 2 times (columns 1, 3)",
    });
  });
});
