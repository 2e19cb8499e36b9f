/**
 * CSV records streamed from text chunks, as the official files publish them (RFC 4180: comma
 * separated, fields optionally in double quotes, a doubled quote inside quotes, line breaks inside
 * quoted fields, CRLF or LF line ends; UTF-8, an optional byte-order mark). Memory stays bounded
 * by one record, whatever the file's size: the INSEE stock of establishments is millions of rows,
 * and a record longer than MAX_RECORD_CHARS is not kept (it is reported with its line, and the
 * reading goes on after it), so neither a damaged file nor a line of gigabytes can exhaust memory.
 */

export interface CsvRecord {
  /** The line the record starts on (1 is the header). */
  line: number;
  fields: string[];
}

/** A record set aside (too long), with the line it starts on. */
export interface CsvRejected {
  line: number;
  error: string;
}

/** A file that ends inside a quoted field: cut short, or not CSV. */
export class CsvFormatError extends Error {
  override name = "CsvFormatError";
  readonly line: number;
  constructor(message: string, line: number) {
    super(message);
    this.line = line;
  }
}

/**
 * The longest record read, in characters, line breaks and delimiters included. A row of INSEE's
 * stock files, geocoding columns included, is under 2,000 characters; 64 KiB leaves room for any
 * real row and bounds what one record may cost.
 */
export const MAX_RECORD_CHARS = 64 * 1024;

const COMMA = 44;
const LF = 10;
const CR = 13;

export async function* csvRecords(
  chunks: AsyncIterable<string>,
  maxRecordChars = MAX_RECORD_CHARS,
): AsyncGenerator<CsvRecord | CsvRejected> {
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

/**
 * Records as objects keyed by the names `required` and `optional` give, after checking that the
 * header holds every column `required` names. Columns are found by name, whatever their case and
 * order (a stock file re-exported by a spreadsheet or a database keeps its names but not always
 * their case); extra columns, as newer formats add, are allowed. A record with a different number
 * of fields than the header, or over the record size, is reported rather than guessed at. With
 * `optional`, a row holds only the required columns and those optional ones the header has: the
 * official files have fifty columns of which an import reads a third, and a million rows of
 * fifty-key objects was most of what the garbage collector had to do. Without it, a row holds
 * every column, keyed as the header writes it.
 */
export async function* csvRows(
  chunks: AsyncIterable<string>,
  required: readonly string[],
  optional?: readonly string[],
): AsyncGenerator<{ line: number; row: Record<string, string> } | { line: number; error: string }> {
  let width = -1;
  let kept: [name: string, index: number][] = [];
  for await (const record of csvRecords(chunks)) {
    if (width < 0) {
      if ("error" in record) throw new CsvFormatError(`the header: ${record.error}`, record.line);
      kept = columnsOf(record.fields, required, optional, record.line);
      width = record.fields.length;
      continue;
    }
    if ("error" in record) {
      yield record;
      continue;
    }
    if (record.fields.length === 1 && record.fields[0] === "") continue; // an empty line
    if (record.fields.length !== width) {
      yield { line: record.line, error: `${record.fields.length} fields where the header has ${width}` };
      continue;
    }
    const row: Record<string, string> = {};
    for (const [name, index] of kept) row[name] = record.fields[index] ?? "";
    yield { line: record.line, row };
  }
}

/**
 * The columns a row keeps, each with the header's index for it: the wanted names found whatever
 * their case (and keyed as `required` and `optional` spell them); without `optional`, the other
 * columns too, keyed as the header writes them.
 */
function columnsOf(
  fields: readonly string[],
  required: readonly string[],
  optional: readonly string[] | undefined,
  line: number,
): [name: string, index: number][] {
  const wanted = new Map([...required, ...(optional ?? [])].map((name) => [name.toLowerCase(), name]));
  const found = new Map<string, number[]>();
  const kept: [string, number][] = [];
  fields.forEach((written, index) => {
    const name = wanted.get(written.trim().toLowerCase());
    if (name !== undefined) found.set(name, [...(found.get(name) ?? []), index]);
    else if (!optional) kept.push([written.trim(), index]);
  });
  const missing = required.filter((name) => !found.has(name));
  if (missing.length > 0) throw new CsvFormatError(`the header lacks the columns ${missing.join(", ")}`, line);
  for (const [name, indexes] of found) {
    if (indexes.length > 1) {
      throw new CsvFormatError(
        `the header names the column ${name} ${indexes.length} times (columns ${indexes.map((index) => index + 1).join(", ")})`,
        line,
      );
    }
    kept.push([name, indexes[0] as number]);
  }
  return kept;
}

/** A CSV line in the header's order (RFC 4180 quoting); the columns not given are empty. */
export function csvLine(header: readonly string[], values: Record<string, string>): string {
  return header
    .map((name) => {
      const value = values[name] ?? "";
      return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
    })
    .join(",");
}

/**
 * The text of a field as a string of its own. A field is cut from the chunk of the file it was read
 * in, and V8 keeps a long cut (13 characters or more) as a view of that chunk: a value kept for a
 * whole run (a company's name, a geocoded address) would keep its megabyte of the file alive, and a
 * run keeping values from across a file would hold the file.
 */
export function detached(text: string): string {
  return text.length < 13 ? text : Buffer.from(text, "utf8").toString("utf8");
}
