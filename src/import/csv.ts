/**
 * CSV records streamed from chunks of a file, as the official files publish them (RFC 4180: comma
 * separated, fields optionally in double quotes, a doubled quote inside quotes, line breaks inside
 * quoted fields, CRLF, LF or CR line ends; UTF-8, an optional byte-order mark). The reading is done
 * on the file's bytes (CsvScanner): a record is where its fields are in the bytes, and only the
 * fields a reader asks for become strings, which is what lets an import filter INSEE's 43.9 million
 * rows by three columns without building an object for each. Memory stays bounded by one record,
 * whatever the file's size: a record longer than MAX_RECORD_BYTES is not kept (it is reported with
 * its line, and the reading goes on after it), so neither a damaged file nor a line of gigabytes
 * can exhaust memory.
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
 * The longest record read, in bytes, line breaks and delimiters included. A row of INSEE's stock
 * files, geocoding columns included, is under 2,000 bytes; 64 KiB leaves room for any real row and
 * bounds what one record may cost.
 */
export const MAX_RECORD_BYTES = 64 * 1024;

/** Where a record over the limit is in its reading (it is read on, not kept). */
interface SkipState {
  inQuotes: boolean;
  /** A quote was just read inside quotes: doubled, or the closing one. */
  quoteSeen: boolean;
  fieldStart: boolean;
  line: number;
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const COMMA = 44;
const LF = 10;
const CR = 13;
const QUOTE = 34;

/**
 * A record as the scanner read it: where each of its `count` fields is in `bytes` (a quoted field's
 * quotes outside it). Valid during the call that receives it only: the scanner reuses it.
 */
export interface ScannedRecord {
  /** The line the record starts on (1 is the header's). */
  line: number;
  bytes: Buffer;
  count: number;
  starts: Int32Array;
  ends: Int32Array;
  /** 1 for a quoted field holding doubled quotes (each stands for one: fieldText undoes them). */
  escaped: Uint8Array;
  /** Longer than the limit: its fields are not kept (count is 0). */
  oversized: boolean;
}

/** A field's text (UTF-8), its doubled quotes undone. */
export function fieldText(record: ScannedRecord, index: number): string {
  if (index >= record.count) return "";
  const text = record.bytes.toString("utf8", record.starts[index], record.ends[index]);
  return record.escaped[index] ? text.replaceAll('""', '"') : text;
}

/** A field's length in bytes (0 for a field the record does not have). */
export function fieldLength(record: ScannedRecord, index: number): number {
  return index < record.count ? (record.ends[index] as number) - (record.starts[index] as number) : 0;
}

/**
 * Reads a CSV file's records from its bytes, chunk after chunk. A record cut by a chunk's end is
 * carried over and read whole with the next chunk, so records come out the same wherever the
 * chunks end. `feed` calls `each` for every record it completes, in order; `end` reads the last
 * record when the file does not end with a line break, and throws a CsvFormatError when the file
 * ends inside a quoted field. The records are the same the RFC 4180 reading gives character by
 * character: a quote opens a quoted field only as its first character, a quote elsewhere in an
 * unquoted field is text, a quoted field's closing quote must be followed by a comma or a line
 * end, and a CR, an LF or a CRLF ends a record (inside quotes, line breaks are text; an LF there
 * still counts a line).
 */
export class CsvScanner {
  readonly #maxRecordBytes: number;
  #line = 1;
  #first = true;
  /** Bytes of a record a chunk ended in. */
  #carry: Buffer | null = null;
  /** The previous chunk ended on a CR that ended a record: an LF opening this one belongs to it. */
  #pendingCr = false;
  /** Skipping a record over the limit: the state of its reading, and the line it started on. */
  #skipping: SkipState | null = null;
  readonly #record: ScannedRecord;

  constructor(maxRecordBytes = MAX_RECORD_BYTES) {
    this.#maxRecordBytes = maxRecordBytes;
    this.#record = {
      line: 1,
      bytes: Buffer.alloc(0),
      count: 0,
      starts: new Int32Array(64),
      ends: new Int32Array(64),
      escaped: new Uint8Array(64),
      oversized: false,
    };
  }

  feed(chunk: Buffer, each: (record: ScannedRecord) => void): void {
    let bytes = chunk;
    if (this.#first) {
      // A byte-order mark opens the file (its three bytes may come in more than one chunk).
      if (this.#carry) {
        bytes = Buffer.concat([this.#carry, bytes]);
        this.#carry = null;
      }
      if (bytes.length < 3 && BOM.subarray(0, bytes.length).equals(bytes)) {
        this.#carry = Buffer.from(bytes);
        return;
      }
      this.#first = false;
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
    }
    let position = 0;
    if (this.#pendingCr) {
      this.#pendingCr = false;
      if (bytes[0] === LF) position = 1;
    }
    if (this.#skipping) {
      position = this.#skip(bytes, position, each);
      if (position < 0) return;
    }
    if (this.#carry) {
      bytes = Buffer.concat([this.#carry, bytes.subarray(position)]);
      position = 0;
      this.#carry = null;
    }
    const length = bytes.length;
    while (position < length) {
      const next = this.#scan(bytes, position, false);
      if (next < 0) {
        // The chunk ends inside this record: carried over, unless it is over the limit already.
        if (length - position > this.#maxRecordBytes) {
          this.#skipping = { inQuotes: false, quoteSeen: false, fieldStart: true, line: this.#line };
          const after = this.#skip(bytes, position, each);
          if (after < 0) return;
          position = after;
          continue;
        }
        this.#carry = Buffer.from(bytes.subarray(position));
        return;
      }
      each(this.#record);
      position = next;
    }
  }

  end(each: (record: ScannedRecord) => void): void {
    if (this.#skipping) {
      if (this.#skipping.inQuotes && !this.#skipping.quoteSeen) {
        throw new CsvFormatError("the file ends inside a quoted field (cut short?)", this.#skipping.line);
      }
      this.#emitOversized(this.#skipping.line, each);
      this.#skipping = null;
      return;
    }
    const carry = this.#carry;
    this.#carry = null;
    if (!carry || carry.length === 0) return;
    if (this.#scan(carry, 0, true) < 0) {
      throw new CsvFormatError("the file ends inside a quoted field (cut short?)", this.#line);
    }
    each(this.#record);
  }

  /**
   * Reads the record at `from` into this.#record; answers where the next one starts, or -1 when
   * the bytes end inside it (at the file's end, `last`: the record ends there unless inside quotes).
   */
  #scan(bytes: Buffer, from: number, last: boolean): number {
    const record = this.#record;
    const length = bytes.length;
    let count = 0;
    let position = from;
    let newlinesInQuotes = 0;
    for (;;) {
      if (count === record.starts.length) this.#grow();
      if (position < length && bytes[position] === QUOTE) {
        // A quoted field: to its closing quote (a doubled quote is one quote of its text).
        const start = position + 1;
        let escaped = 0;
        let at = start;
        for (;;) {
          const quote = bytes.indexOf(QUOTE, at);
          if (quote < 0 || (quote + 1 >= length && !last)) return -1;
          if (bytes[quote + 1] === QUOTE) {
            escaped = 1;
            at = quote + 2;
            continue;
          }
          for (
            let index = bytes.indexOf(LF, start);
            index >= 0 && index < quote;
            index = bytes.indexOf(LF, index + 1)
          ) {
            newlinesInQuotes += 1;
          }
          record.starts[count] = start;
          record.ends[count] = quote;
          record.escaped[count] = escaped;
          count += 1;
          position = quote + 1;
          break;
        }
        if (position >= length) return last ? this.#ended(bytes, from, count, length, newlinesInQuotes) : -1;
        const after = bytes[position] as number;
        if (after === COMMA) {
          position += 1;
          continue;
        }
        if (after === LF || after === CR) return this.#lineEnd(bytes, from, count, position, newlinesInQuotes, last);
        throw new CsvFormatError("text after the closing quote of a field", this.#line + newlinesInQuotes);
      }
      // An unquoted field: to the next comma or line end.
      const start = position;
      while (position < length) {
        const byte = bytes[position] as number;
        if (byte === COMMA || byte === LF || byte === CR) break;
        position += 1;
      }
      record.starts[count] = start;
      record.ends[count] = position;
      record.escaped[count] = 0;
      count += 1;
      if (position >= length) return last ? this.#ended(bytes, from, count, length, newlinesInQuotes) : -1;
      if (bytes[position] === COMMA) {
        position += 1;
        continue;
      }
      return this.#lineEnd(bytes, from, count, position, newlinesInQuotes, last);
    }
  }

  /** The record's line end at `at` (CR, LF or CRLF): the record is complete; where the next starts. */
  #lineEnd(bytes: Buffer, from: number, count: number, at: number, newlinesInQuotes: number, last: boolean): number {
    let next = at + 1;
    if (bytes[at] === CR) {
      if (next < bytes.length) {
        if (bytes[next] === LF) next += 1;
      } else if (!last) this.#pendingCr = true;
    }
    if (at - from > this.#maxRecordBytes) {
      this.#emitOversizedAt(bytes, count, newlinesInQuotes);
      return next;
    }
    this.#complete(bytes, count, newlinesInQuotes);
    return next;
  }

  /** The file's last record, without a line end. */
  #ended(bytes: Buffer, from: number, count: number, end: number, newlinesInQuotes: number): number {
    if (end - from > this.#maxRecordBytes) this.#emitOversizedAt(bytes, count, newlinesInQuotes);
    else this.#complete(bytes, count, newlinesInQuotes);
    return end;
  }

  #complete(bytes: Buffer, count: number, newlinesInQuotes: number): void {
    const record = this.#record;
    record.line = this.#line;
    record.bytes = bytes;
    record.count = count;
    record.oversized = false;
    this.#line += 1 + newlinesInQuotes;
  }

  #emitOversizedAt(bytes: Buffer, _count: number, newlinesInQuotes: number): void {
    const record = this.#record;
    record.line = this.#line;
    record.bytes = bytes;
    record.count = 0;
    record.oversized = true;
    this.#line += 1 + newlinesInQuotes;
  }

  #emitOversized(line: number, each: (record: ScannedRecord) => void): void {
    const record = this.#record;
    record.line = line;
    record.count = 0;
    record.oversized = true;
    each(record);
  }

  /**
   * Reads on through a record over the limit without keeping it, character by character as RFC
   * 4180 reads; answers where the next record starts, or -1 when the chunk ends inside it.
   */
  #skip(bytes: Buffer, from: number, each: (record: ScannedRecord) => void): number {
    const state = this.#skipping as SkipState;
    for (let position = from; position < bytes.length; position++) {
      const byte = bytes[position] as number;
      if (state.inQuotes) {
        if (!state.quoteSeen) {
          if (byte === QUOTE) state.quoteSeen = true;
          else if (byte === LF) this.#line += 1;
          continue;
        }
        state.quoteSeen = false;
        if (byte === QUOTE) continue;
        state.inQuotes = false;
      }
      if (byte === QUOTE && state.fieldStart) {
        state.inQuotes = true;
        state.fieldStart = false;
        continue;
      }
      state.fieldStart = byte === COMMA;
      if (byte === LF || byte === CR) {
        let next = position + 1;
        if (byte === CR) {
          if (next < bytes.length) {
            if (bytes[next] === LF) next += 1;
          } else this.#pendingCr = true;
        }
        this.#skipping = null;
        this.#line += 1;
        this.#emitOversized(state.line, each);
        return next;
      }
    }
    return -1;
  }

  #grow(): void {
    const record = this.#record;
    const size = record.starts.length * 2;
    const starts = new Int32Array(size);
    starts.set(record.starts);
    const ends = new Int32Array(size);
    ends.set(record.ends);
    const escaped = new Uint8Array(size);
    escaped.set(record.escaped);
    record.starts = starts;
    record.ends = ends;
    record.escaped = escaped;
  }
}

/** The records of a file given as text or bytes, each with its fields as strings (or a record set aside as too long). */
export async function* csvRecords(
  chunks: AsyncIterable<string | Buffer>,
  maxRecordBytes = MAX_RECORD_BYTES,
): AsyncGenerator<CsvRecord | CsvRejected> {
  const scanner = new CsvScanner(maxRecordBytes);
  let ready: (CsvRecord | CsvRejected)[] = [];
  const take = (record: ScannedRecord) => {
    if (record.oversized) {
      ready.push({
        line: record.line,
        error: `a record of more than ${maxRecordBytes} bytes (a damaged file, or not this file's layout): skipped`,
      });
      return;
    }
    const fields: string[] = new Array(record.count);
    for (let index = 0; index < record.count; index++) fields[index] = fieldText(record, index);
    ready.push({ line: record.line, fields });
  };
  for await (const chunk of chunks) {
    scanner.feed(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk, take);
    if (ready.length > 0) {
      const out = ready;
      ready = [];
      yield* out;
    }
  }
  scanner.end(take);
  yield* ready;
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
      kept = headerColumns(record.fields, required, optional, record.line);
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
export function headerColumns(
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
