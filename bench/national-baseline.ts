/**
 * The national bench's baseline (bench/national.ts): INSEE's two stock files read as the import
 * reads them, unzipped (src/import/zip.ts, its CRC-32 checked) and split into fields by the same
 * reader (src/import/csv.ts, CsvScanner), nothing else: no field becomes a string. Prints the
 * records read of each as JSON.
 *
 *   node bench/national-baseline.ts StockEtablissement_utf8.zip StockUniteLegale_utf8.zip
 */
import { CsvScanner, type ScannedRecord } from "../src/import/csv.ts";
import { openBytes } from "../src/import/open-text.ts";

async function records(file: string): Promise<number> {
  const scanner = new CsvScanner();
  let count = 0;
  const each = (record: ScannedRecord) => {
    if (record.count > 0) count += 1;
  };
  for await (const chunk of openBytes(file) as AsyncIterable<Buffer>) scanner.feed(chunk, each);
  scanner.end(each);
  return count - 1;
}

const [establishments = "", legalUnits = ""] = process.argv.slice(2);
process.stdout.write(
  `${JSON.stringify({ establishments: await records(establishments), legalUnits: await records(legalUnits) })}\n`,
);
