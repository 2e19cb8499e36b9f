/**
 * The records of a BODACC open-data file, read as a stream of text. DILA publishes the dataset
 * `annonces-commerciales` on its Opendatasoft portal (bodacc-datadila.opendatasoft.com, Explore
 * API v2.1) in three JSON layouts, all read here:
 *
 * - JSON Lines (`/exports/jsonl`): one record a line. Read line by line: a line that is not a
 *   JSON object is rejected with its number and the reading goes on.
 * - a JSON array (`/exports/json`): `[{...},{...}]`, possibly very large (the whole dataset is
 *   tens of millions of announcements). Streamed: each element is cut out at its top-level comma,
 *   following strings and escapes, and parsed alone, so memory holds one record at a time; an
 *   element that does not parse is rejected with its position and the line it starts on; a file
 *   that ends inside an element stops the reading (BodaccFileError).
 * - a page of the records endpoint (`/records`): `{"total_count": N, "results": [...]}`, at most
 *   100 records by the API's limit. Read whole, up to PAGE_LIMIT characters.
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

const isPlainObject = (value: unknown): value is RawRecord =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function parseRecord(text: string, number: number, line: number | null): RecordItem {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `not valid JSON (${(error as Error).message})`, number, line };
  }
  return isPlainObject(value) ? { record: value, number, line } : { error: "not a JSON object", number, line };
}

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
    if (isPlainObject(first) && !Array.isArray(first.results)) return yield* jsonLines(rest());
    return yield* page(rest());
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
  const one = (raw: string): RecordItem | null => {
    line += 1;
    const text = (line === 1 ? raw.replace(/^\uFEFF/, "") : raw).replace(/\r$/, "");
    if (text.trim() === "") return null;
    number += 1;
    return parseRecord(text, number, line);
  };
  for await (const chunk of chunks) {
    pending += chunk;
    let from = 0;
    let newline = pending.indexOf("\n", from);
    const ready: RecordItem[] = [];
    while (newline >= 0) {
      const item = one(pending.slice(from, newline));
      if (item) ready.push(item);
      from = newline + 1;
      newline = pending.indexOf("\n", from);
    }
    pending = pending.slice(from);
    if (pending.length > RECORD_LIMIT) {
      throw new BodaccFileError(`line ${line + 1} is longer than ${RECORD_LIMIT} characters`, line + 1);
    }
    yield* ready;
  }
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
  let elementLine = 0;
  let line = 1;
  let number = 0;

  for await (const chunk of chunks) {
    const ready: RecordItem[] = [];
    let from = 0;
    const finish = (end: number) => {
      const text = pieces.join("") + chunk.slice(from, end);
      pieces = [];
      captured = 0;
      capturing = false;
      number += 1;
      ready.push(parseRecord(text, number, elementLine));
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
    if (capturing) {
      const piece = chunk.slice(from);
      pieces.push(piece);
      captured += piece.length;
      if (captured > RECORD_LIMIT) {
        throw new BodaccFileError(
          `record ${number + 1}, begun on line ${elementLine}, is longer than ${RECORD_LIMIT} characters`,
          elementLine,
        );
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

/** A page of the records endpoint: `{"total_count": N, "results": [...]}`. */
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
  if (!isPlainObject(value) || !Array.isArray(value.results)) {
    throw new BodaccFileError('a JSON object without a "results" array (not a records page)', null);
  }
  let number = 0;
  for (const element of value.results as unknown[]) {
    number += 1;
    yield isPlainObject(element)
      ? { record: element, number, line: null }
      : { error: "not a JSON object", number, line: null };
  }
}
