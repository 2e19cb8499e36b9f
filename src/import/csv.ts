/**
 * CSV records streamed from text chunks, as the official files publish them (RFC 4180: comma
 * separated, fields optionally in double quotes, a doubled quote inside quotes, line breaks inside
 * quoted fields, CRLF or LF line ends; UTF-8, an optional byte-order mark). Memory stays bounded
 * by one record, whatever the file's size: the INSEE stock of establishments is millions of rows.
 */

export interface CsvRecord {
  /** The line the record starts on (1 is the header). */
  line: number;
  fields: string[];
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

const COMMA = 44;
const LF = 10;
const CR = 13;

export async function* csvRecords(chunks: AsyncIterable<string>): AsyncGenerator<CsvRecord> {
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

  const endRecord = (): CsvRecord => {
    fields.push(field);
    const record = { line: recordLine, fields };
    field = "";
    fields = [];
    afterQuote = false;
    started = false;
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
    for (let index = start; index < chunk.length; index++) {
      const char = chunk[index] as string;
      if (!started) {
        started = true;
        recordLine = line;
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
  }
  if (inQuotes) throw new CsvFormatError("the file ends inside a quoted field (cut short?)", recordLine);
  if (started) yield endRecord();
}

/**
 * Records as objects keyed by the header's names, after checking that the header holds every
 * column `required` names (extra columns, as newer formats add, are allowed). A record with a
 * different number of fields than the header is reported rather than guessed at. With `optional`,
 * a row holds only the required columns and those optional ones the header has: the official
 * files have fifty columns of which an import reads a third, and a million rows of fifty-key
 * objects was most of what the garbage collector had to do.
 */
export async function* csvRows(
  chunks: AsyncIterable<string>,
  required: readonly string[],
  optional?: readonly string[],
): AsyncGenerator<{ line: number; row: Record<string, string> } | { line: number; error: string }> {
  let header: string[] | null = null;
  let kept: [name: string, index: number][] = [];
  for await (const record of csvRecords(chunks)) {
    if (header === null) {
      header = record.fields.map((name) => name.trim());
      const missing = required.filter((name) => !header?.includes(name));
      if (missing.length > 0) {
        throw new CsvFormatError(`the header lacks the columns ${missing.join(", ")}`, record.line);
      }
      const wanted = optional ? new Set([...required, ...optional]) : null;
      kept = header
        .map((name, index): [string, number] => [name, index])
        .filter(([name]) => wanted === null || wanted.has(name));
      continue;
    }
    if (record.fields.length === 1 && record.fields[0] === "") continue; // an empty line
    if (record.fields.length !== header.length) {
      yield { line: record.line, error: `${record.fields.length} fields where the header has ${header.length}` };
      continue;
    }
    const row: Record<string, string> = {};
    for (const [name, index] of kept) row[name] = record.fields[index] ?? "";
    yield { line: record.line, row };
  }
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
