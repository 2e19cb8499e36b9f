import { createReadStream } from "node:fs";
import type { ImportLine } from "../domain/merchants/import-json-lines.ts";

/**
 * The longest line kept, in characters: a declaration or an observation is one JSON object of a
 * few kilobytes. A longer line is not held in memory (a file without line breaks would otherwise
 * be read whole): it is given as `overLimit`, without its text, and the import rejects it by its
 * number while it goes on.
 */
export const LINE_LIMIT = 1024 * 1024;

/**
 * The lines of a text file with their numbers (from 1), streamed: a bulk file is never read whole.
 * Lines end at "\n" (a "\r" before it is dropped, as Windows files write them).
 */
export async function* numberedLines(file: string, limit = LINE_LIMIT): AsyncGenerator<ImportLine> {
  let number = 0;
  let pending = "";
  let overLimit = false;
  const line = (): ImportLine => {
    number += 1;
    const text = pending.endsWith("\r") ? pending.slice(0, -1) : pending;
    pending = "";
    const ended = overLimit || text.length > limit;
    overLimit = false;
    return ended ? { number, text: "", overLimit: true } : { number, text };
  };
  for await (const chunk of createReadStream(file, "utf8") as AsyncIterable<string>) {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf("\n", start);
      if (!overLimit) {
        pending += newline < 0 ? chunk.slice(start) : chunk.slice(start, newline);
        // One "\r" may still be dropped when the line ends: a limit is past only beyond it.
        if (pending.length > limit + 1) {
          overLimit = true;
          pending = "";
        }
      }
      if (newline < 0) break;
      yield line();
      start = newline + 1;
    }
  }
  if (pending !== "" || overLimit) yield line();
}
