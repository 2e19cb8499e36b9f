/**
 * The records of a BODACC open-data file, read as a stream of text. DILA publishes the dataset
 * `annonces-commerciales` on its Opendatasoft portal (bodacc-datadila.opendatasoft.com, Explore
 * API v2.1) in these JSON layouts, all read here:
 *
 * - JSON Lines (`/exports/jsonl`): one record a line. Read line by line: a line that is not a
 *   JSON object is rejected with its number and the reading goes on.
 * - a JSON array (`/exports/json`): `[{...},{...}]`, possibly very large (the whole dataset is
 *   tens of millions of announcements). Streamed: each element is cut out at its top-level comma,
 *   following strings and escapes, and parsed alone, so memory holds one record at a time; an
 *   element that does not parse is rejected with its position and the line it starts on; a file
 *   that ends inside an element stops the reading (BodaccFileError).
 * - a page of the records endpoint: `{"total_count": N, "results": [...]}` (API v2.1, at most 100
 *   records by the API's limit), and the pages of the older APIs public consumers still call (the
 *   annuaire-entreprises site reads both): v1 `/api/records/1.0/search/?dataset=...`,
 *   `{"nhits": N, "records": [{"datasetid", "recordid", "fields": {...}, ...}]}`, and Explore v2.0,
 *   `{"total_count": N, "records": [{"record": {"id", "timestamp", "fields": {...}}}]}`. Read
 *   whole, up to PAGE_LIMIT characters.
 *
 * A record wrapped as v1 and v2.0 wrap it (`{"fields": {...}}`, `{"record": {"fields": {...}}}`)
 * is read for its fields in any of the layouts (the v1 JSON download is an array of them). A
 * record longer than RECORD_LIMIT (a line, an element) is rejected with its line and not kept:
 * the reading goes on after it. The CSV export (`/exports/csv`) is refused with the export to take
 * instead: its JSON subfields are the same text, and the JSON exports name every field's type.
 *
 * The layout is told by the first character: `[` an array; `{` JSON Lines when the first line is
 * a record on its own, a page otherwise. `layout: "jsonl"` forces JSON Lines (the import does so
 * for .jsonl and .ndjson files, so that a broken first line is reported rather than misread).
 * Pure: no files, no database.
 */
export type RawRecord = Record<string, unknown>;

/** One record, or why it could not be read: its position in the file, and its line when known. */
export type RecordItem =
  | { record: RawRecord; number: number; line: number | null }
  | { error: string; number: number; line: number | null };

/** The file cannot be read further (cut inside a record, not one of the layouts). */
export class BodaccFileError extends Error {
  readonly line: number | null;
  constructor(message: string, line: number | null) {
    super(message);
    this.name = "BodaccFileError";
    this.line = line;
  }
}

/** A page of the records endpoint holds 100 records at most; more than this is not a page. */
export const PAGE_LIMIT = 64 * 1024 * 1024;
/** One announcement is a few kilobytes; a "record" this long means the file is not what it claims. */
export const RECORD_LIMIT = 16 * 1024 * 1024;
const TOO_LONG = `longer than ${RECORD_LIMIT} characters (not an announcement): skipped`;

const isPlainObject = (value: unknown): value is RawRecord =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A record as the dataset writes it, out of the wrapping of the v1 and v2.0 layouts. */
function unwrapped(value: RawRecord): RawRecord {
  if (isPlainObject(value.record) && isPlainObject(value.record.fields)) return value.record.fields;
  if (isPlainObject(value.fields) && value.dateparution === undefined) return value.fields;
  return value;
}

function recordItem(value: unknown, number: number, line: number | null): RecordItem {
  return isPlainObject(value)
    ? { record: unwrapped(value), number, line }
    : { error: "not a JSON object", number, line };
}

function parseRecord(text: string, number: number, line: number | null): RecordItem {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `not valid JSON (${(error as Error).message})`, number, line };
  }
  return recordItem(value, number, line);
}

/** A page of the records endpoint: the records of API v2.1 (`results`), or of v1 and v2.0 (`records`). */
const pageRecords = (value: unknown): unknown[] | null =>
  !isPlainObject(value)
    ? null
    : Array.isArray(value.results)
      ? value.results
      : Array.isArray(value.records)
        ? value.records
        : null;

export async function* bodaccRecords(
  chunks: AsyncIterable<string>,
  options: { layout?: "jsonl" } = {},
): AsyncGenerator<RecordItem> {
  const iterator = chunks[Symbol.asyncIterator]();
  // Read ahead until the first significant character (and, for `{`, the end of the first line).
  let head = "";
  let done = false;
  const more = async () => {
    const next = await iterator.next();
    if (next.done) done = true;
    else head += next.value;
  };
  const firstSignificant = () => head.replace(/^[\uFEFF\s]+/, "");
  while (!done && firstSignificant() === "") await more();
  const start = firstSignificant()[0];
  if (start === undefined) return;
  if (options.layout !== "jsonl" && start === "{") {
    while (!done && !firstSignificant().includes("\n") && head.length <= PAGE_LIMIT) await more();
  }
  const rest = async function* () {
    yield head;
    while (true) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  };

  if (options.layout === "jsonl") return yield* jsonLines(rest());
  if (start === "[") return yield* arrayElements(rest());
  if (start === "{") {
    const firstLine = firstSignificant().split("\n", 1)[0] ?? "";
    let first: unknown;
    try {
      first = JSON.parse(firstLine);
    } catch {
      first = undefined;
    }
    if (isPlainObject(first) && pageRecords(first) === null) return yield* jsonLines(rest());
    return yield* page(rest());
  }
  const firstLine = firstSignificant().split("\n", 1)[0] ?? "";
  if (/^"?id"?;/.test(firstLine) || /;"?dateparution"?[;\r]/.test(firstLine)) {
    throw new BodaccFileError(
      "this is the CSV export (/exports/csv): the import reads the JSON exports, /exports/jsonl or /exports/json of the same dataset",
      1,
    );
  }
  throw new BodaccFileError(
    "neither JSON Lines, a JSON array nor a records page (the file should start with { or [)",
    1,
  );
}

async function* jsonLines(chunks: AsyncIterable<string>): AsyncGenerator<RecordItem> {
  let pending = "";
  let line = 0;
  let number = 0;
  /** The current line is over RECORD_LIMIT: the text up to its end is dropped. */
  let skipping = false;
  const one = (raw: string): RecordItem | null => {
    line += 1;
    const text = (line === 1 ? raw.replace(/^\uFEFF/, "") : raw).replace(/\r$/, "");
    if (text.trim() === "") return null;
    number += 1;
    return parseRecord(text, number, line);
  };
  const tooLong = (): RecordItem => {
    line += 1;
    number += 1;
    return { error: TOO_LONG, number, line };
  };
  for await (const chunk of chunks) {
    const ready: RecordItem[] = [];
    let text = chunk;
    if (skipping) {
      const newline = text.indexOf("\n");
      if (newline < 0) continue;
      ready.push(tooLong());
      skipping = false;
      text = text.slice(newline + 1);
    }
    pending += text;
    let from = 0;
    let newline = pending.indexOf("\n", from);
    while (newline >= 0) {
      const item = one(pending.slice(from, newline));
      if (item) ready.push(item);
      from = newline + 1;
      newline = pending.indexOf("\n", from);
    }
    pending = pending.slice(from);
    if (pending.length > RECORD_LIMIT) {
      skipping = true;
      pending = "";
    }
    yield* ready;
  }
  if (skipping) yield tooLong();
  const last = pending === "" ? null : one(pending);
  if (last) yield last;
}

const isSpace = (code: number) => code === 32 || code === 9 || code === 10 || code === 13 || code === 0xfeff;

/** Elements of a top-level array, cut at the commas outside strings and nested values. */
async function* arrayElements(chunks: AsyncIterable<string>): AsyncGenerator<RecordItem> {
  let started = false;
  let closed = false;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let capturing = false;
  let pieces: string[] = [];
  let captured = 0;
  /** The element being read is over RECORD_LIMIT: it is read to its end, not kept. */
  let oversized = false;
  let elementLine = 0;
  let line = 1;
  let number = 0;

  for await (const chunk of chunks) {
    const ready: RecordItem[] = [];
    let from = 0;
    const finish = (end: number) => {
      number += 1;
      ready.push(
        oversized || captured + end - from > RECORD_LIMIT
          ? { error: TOO_LONG, number, line: elementLine }
          : parseRecord(pieces.join("") + chunk.slice(from, end), number, elementLine),
      );
      pieces = [];
      captured = 0;
      capturing = false;
      oversized = false;
    };
    for (let index = 0; index < chunk.length; index++) {
      const code = chunk.charCodeAt(index);
      if (code === 10) line += 1;
      if (inString) {
        if (escaped) escaped = false;
        else if (code === 92) escaped = true;
        else if (code === 34) inString = false;
        continue;
      }
      if (closed) {
        if (!isSpace(code)) throw new BodaccFileError("text after the end of the array", line);
        continue;
      }
      if (!started) {
        if (isSpace(code)) continue;
        if (code !== 91) throw new BodaccFileError("the file should start with [", line);
        started = true;
        depth = 1;
        continue;
      }
      if (depth === 1 && !capturing) {
        if (isSpace(code)) continue;
        if (code === 93) {
          closed = true;
          continue;
        }
        if (code === 44) {
          number += 1;
          ready.push({ error: "empty record", number, line });
          continue;
        }
        capturing = true;
        from = index;
        elementLine = line;
      }
      // Inside an element.
      if (code === 34) inString = true;
      else if (code === 123 || code === 91) depth += 1;
      else if (code === 125 || (code === 93 && depth > 1)) depth = Math.max(1, depth - 1);
      else if (depth === 1 && (code === 44 || code === 93)) {
        finish(index);
        if (code === 93) closed = true;
      }
    }
    if (capturing && !oversized) {
      const piece = chunk.slice(from);
      pieces.push(piece);
      captured += piece.length;
      if (captured > RECORD_LIMIT) {
        oversized = true;
        pieces = [];
      }
    }
    yield* ready;
  }
  if (!started) return;
  if (!closed) {
    throw capturing
      ? new BodaccFileError(`the file ends inside record ${number + 1}, begun on line ${elementLine}`, elementLine)
      : new BodaccFileError("the file ends before the array is closed", line);
  }
}

/** A page of the records endpoint, read whole (see above for its three layouts). */
async function* page(chunks: AsyncIterable<string>): AsyncGenerator<RecordItem> {
  let text = "";
  for await (const chunk of chunks) {
    text += chunk;
    if (text.length > PAGE_LIMIT) {
      throw new BodaccFileError(
        `a records page larger than ${PAGE_LIMIT} characters: use the /exports/jsonl or /exports/json files`,
        null,
      );
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    throw new BodaccFileError(`not valid JSON (${(error as Error).message})`, null);
  }
  const records = pageRecords(value);
  if (records === null) {
    throw new BodaccFileError(
      'a JSON object without a "results" array (API v2.1) or a "records" array (v1, v2.0): not a records page',
      null,
    );
  }
  let number = 0;
  for (const element of records) {
    number += 1;
    yield recordItem(element, number, null);
  }
}
