/**
 * Issue 34: the CSV reader reads bytes now (CsvScanner, src/import/csv.ts). Here it is held to the
 * reader it replaced, which read text character by character (kept below as the reference, as it
 * was at commit 2e84a72): on random files of quoted and unquoted fields, doubled quotes, commas and
 * line breaks inside quotes, CR, LF and CRLF line ends, a byte-order mark, multi-byte characters,
 * cut into random chunks, both give the same records and the same lines, or both refuse the file.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CsvFormatError, type CsvRecord, type CsvRejected, csvRecords } from "../../src/import/csv.ts";

async function* pieces(bytes: Buffer, cuts: number[]): AsyncGenerator<Buffer> {
  let start = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    if (cut <= start || cut >= bytes.length) continue;
    yield bytes.subarray(start, cut);
    start = cut;
  }
  yield bytes.subarray(start);
}

async function* once(text: string): AsyncGenerator<string> {
  yield text;
}

async function all(records: AsyncIterable<CsvRecord | CsvRejected>): Promise<(CsvRecord | CsvRejected)[] | string> {
  const out: (CsvRecord | CsvRejected)[] = [];
  try {
    for await (const record of records) out.push(record);
  } catch (error) {
    return error instanceof CsvFormatError ? `CsvFormatError at line ${error.line}` : String(error);
  }
  return out;
}

const field = fc.oneof(
  fc.constantFrom("", "A", "75056", "56.10A", "RUE DE LA PAIX", "ÉPICERIE", "l’Étoile", 'x"y'),
  fc.constantFrom('"quoted"', '"with, comma"', '"two ""quotes"""', '"line\nbreak"', '"cr\rinside"', '""'),
  fc.string({ unit: fc.constantFrom("a", ",", '"', "\n", "\r", "é", "€", " "), maxLength: 6 }),
);
const lineEnd = fc.constantFrom("\n", "\r\n", "\r");
const file = fc
  .tuple(
    fc.boolean(),
    fc.array(fc.tuple(fc.array(field, { minLength: 1, maxLength: 5 }), lineEnd), { minLength: 1, maxLength: 12 }),
    fc.boolean(),
  )
  .map(([bom, rows, endsWithLineEnd]) => {
    const text = rows.map(([fields, end]) => `${fields.join(",")}${end}`).join("");
    return `${bom ? "\uFEFF" : ""}${endsWithLineEnd ? text : text.replace(/(\r\n|\r|\n)$/, "")}`;
  });

describe("the byte reader reads what the text reader read", () => {
  it("on random files cut into random chunks", async () => {
    await fc.assert(
      fc.asyncProperty(file, fc.array(fc.nat({ max: 400 }), { maxLength: 8 }), async (text, cuts) => {
        const expected = await all(referenceRecords(once(text)));
        const bytes = Buffer.from(text, "utf8");
        expect(await all(csvRecords(pieces(bytes, cuts)))).toEqual(expected);
      }),
      { numRuns: 3000 },
    );
  });
});

/* ---- The reference: src/import/csv.ts's csvRecords as it was, reading text (no size limit here) ---- */

async function* referenceRecords(chunks: AsyncIterable<string>): AsyncGenerator<CsvRecord | CsvRejected> {
  const maxRecordChars = Number.POSITIVE_INFINITY;
  let field = "";
  let fields: string[] = [];
  let inQuotes = false;
  /** A quote just closed a quoted field (the next character must end the field or the record). */
  let afterQuote = false;
  let line = 1;
  let recordLine = 1;
  let started = false;
  let first = true;
  /** The previous chunk ended on a CR: an LF opening this one is part of the same line end. */
  let pendingCr = false;
  /** Characters of the current record in the chunks before this one. */
  let carried = 0;
  /** Where the current record (or its part in this chunk) starts in the chunk. */
  let segmentStart = 0;
  /** The current record is over the limit: it is read to its end, not kept. */
  let oversized = false;

  const endRecord = (): CsvRecord | CsvRejected => {
    fields.push(field);
    const record = oversized
      ? {
          line: recordLine,
          error: `a record of more than ${maxRecordChars} characters (a damaged file, or not this file's layout): skipped`,
        }
      : { line: recordLine, fields };
    field = "";
    fields = [];
    afterQuote = false;
    started = false;
    carried = 0;
    oversized = false;
    return record;
  };

  for await (let chunk of chunks) {
    if (first) {
      first = false;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    let start = 0;
    if (pendingCr) {
      pendingCr = false;
      if (chunk[0] === "\n") start = 1;
    }
    segmentStart = start;
    for (let index = start; index < chunk.length; index++) {
      const char = chunk[index] as string;
      if (!started) {
        started = true;
        recordLine = line;
        segmentStart = index;
      }
      if (inQuotes) {
        if (char === '"') {
          if (chunk[index + 1] === '"') {
            field += '"';
            index += 1;
          } else {
            // Closed, unless a quote opens the next chunk: then it was doubled (handled below).
            inQuotes = false;
            afterQuote = true;
          }
        } else {
          if (char === "\n") line += 1;
          field += char;
        }
        continue;
      }
      if (afterQuote && char === '"') {
        // A doubled quote split across two chunks.
        field += '"';
        inQuotes = true;
        afterQuote = false;
        continue;
      }
      if (char === ",") {
        fields.push(field);
        field = "";
        afterQuote = false;
      } else if (char === "\n" || char === "\r") {
        if (carried + index - segmentStart > maxRecordChars) oversized = true;
        if (char === "\r") {
          if (index + 1 === chunk.length) pendingCr = true;
          else if (chunk[index + 1] === "\n") index += 1;
        }
        line += 1;
        yield endRecord();
      } else if (char === '"' && field === "" && !afterQuote) {
        inQuotes = true;
      } else {
        if (afterQuote) throw new CsvFormatError("text after the closing quote of a field", line);
        // Unquoted text: the run up to the next delimiter in one slice, not a character at a time.
        let end = index + 1;
        while (end < chunk.length) {
          const code = chunk.charCodeAt(end);
          if (code === COMMA || code === LF || code === CR) break;
          end += 1;
        }
        field += end === index + 1 ? char : chunk.slice(index, end);
        index = end - 1;
      }
    }
    if (started) {
      carried += chunk.length - segmentStart;
      if (carried > maxRecordChars) {
        // Read on to the record's end without keeping it.
        oversized = true;
        field = "";
        fields = [];
      }
    }
  }
  if (inQuotes) throw new CsvFormatError("the file ends inside a quoted field (cut short?)", recordLine);
  if (started) {
    if (carried > maxRecordChars) oversized = true;
    yield endRecord();
  }
}

const COMMA = 44;
const LF = 10;
const CR = 13;
