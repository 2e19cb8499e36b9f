/**
 * The national bench's baseline (bench/national.ts): INSEE's two stock files read as the import
 * reads them, unzipped and split into fields, nothing else. Prints the records read of each as JSON.
 *
 *   node bench/national-baseline.ts StockEtablissement_utf8.zip StockUniteLegale_utf8.zip
 */
import { csvRecords } from "../src/import/csv.ts";
import { openText } from "../src/import/open-text.ts";

async function records(file: string): Promise<number> {
  let count = 0;
  for await (const record of csvRecords(openText(file))) if ("fields" in record) count += 1;
  return count - 1;
}

const [establishments = "", legalUnits = ""] = process.argv.slice(2);
process.stdout.write(
  `${JSON.stringify({ establishments: await records(establishments), legalUnits: await records(legalUnits) })}\n`,
);
