import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import type { ImportLine } from "../domain/merchants/import-json-lines.ts";

/** The lines of a text file with their numbers (from 1), streamed: a bulk file is never read whole. */
export async function* numberedLines(file: string): AsyncGenerator<ImportLine> {
  let number = 0;
  for await (const text of createInterface({ input: createReadStream(file, "utf8"), crlfDelay: Infinity })) {
    number += 1;
    yield { number, text };
  }
}
