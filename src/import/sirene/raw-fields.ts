import { nafSubclasses } from "../../domain/naf.ts";
import { tradeForNaf, tradeForNaf2025 } from "../../domain/sectors.ts";
import { LA_POSTE_SIREN } from "../../domain/siret.ts";
import type { ScannedRecord } from "../csv.ts";

/*
 * What a few columns of a StockEtablissement row say, read from the row's bytes, before any string
 * or object is made of it: most of INSEE's 43.9 million rows are closed or of a trade the registry
 * does not cover, and are set aside by these alone (import-sirene.ts, docs/decisions.md). Each
 * function here answers only when the bytes say it as the string reading would (the import's
 * row-check.ts, establishments.ts and the domain's naf.ts and sectors.ts): a value with anything
 * but printable ASCII, or in another shape, is "not sure" (null), and the row is read in full.
 */

const SPACE = 32;
const DIGIT_0 = 48;

/** The field's bytes without the spaces around them, if every byte is printable ASCII; else null. */
function plainBounds(record: ScannedRecord, index: number): [start: number, end: number] | null {
  if (index < 0 || index >= record.count) return [0, 0];
  const { bytes } = record;
  let start = record.starts[index] as number;
  let end = record.ends[index] as number;
  for (let at = start; at < end; at++) {
    const byte = bytes[at] as number;
    if (byte < 0x20 || byte > 0x7e) return null;
  }
  while (start < end && bytes[start] === SPACE) start += 1;
  while (end > start && bytes[end - 1] === SPACE) end -= 1;
  return [start, end];
}

/** Whether the field is exactly one character (spaces around it aside): "A" for active, "O" for public. Null: not sure. */
export function fieldIs(record: ScannedRecord, index: number, character: string): boolean | null {
  const bounds = plainBounds(record, index);
  if (!bounds) return null;
  const [start, end] = bounds;
  return end - start === 1 && record.bytes[start] === character.charCodeAt(0);
}

/** The bytes of an INSEE timestamp as processedAtOf keeps them (establishments.ts): YYYY-MM-DDTHH:MM:SS. */
export const TIMESTAMP_BYTES = 19;

/**
 * Where the field's INSEE timestamp starts in the row's bytes, when the field begins with one
 * (spaces around it aside) as processedAtOf reads it: its first TIMESTAMP_BYTES bytes are the
 * instant (the same code units, so they order as its text does); -1 when the field holds none;
 * null when not sure (anything but printable ASCII: the string reading decides).
 */
export function timestampAt(record: ScannedRecord, index: number): number | null {
  const bounds = plainBounds(record, index);
  if (!bounds) return null;
  const [start, end] = bounds;
  if (end - start < TIMESTAMP_BYTES) return -1;
  const { bytes } = record;
  for (let at = 0; at < TIMESTAMP_BYTES; at++) {
    const byte = bytes[start + at] as number;
    const expected = TIMESTAMP_SHAPE.charCodeAt(at);
    if (expected === DIGIT_0 ? !isDigit(byte - DIGIT_0) : byte !== expected) return -1;
  }
  return start;
}

/** A timestamp's shape: 0 for a digit, the other characters as they stand. */
const TIMESTAMP_SHAPE = "0000-00-00T00:00:00";

/** A NAF sub-class code's place in NAF_FLAGS (NN.NNL), or -1 when the bytes are no such code. */
function codeKey(bytes: Buffer, start: number, end: number): number {
  if (end - start !== 6 || bytes[start + 2] !== 46) return -1;
  const d0 = (bytes[start] as number) - DIGIT_0;
  const d1 = (bytes[start + 1] as number) - DIGIT_0;
  const d3 = (bytes[start + 3] as number) - DIGIT_0;
  const d4 = (bytes[start + 4] as number) - DIGIT_0;
  const letter = (bytes[start + 5] as number) - 65;
  if (!isDigit(d0) || !isDigit(d1) || !isDigit(d3) || !isDigit(d4) || letter < 0 || letter > 25) return -1;
  return (((d0 * 10 + d1) * 10 + d3) * 10 + d4) * 26 + letter;
}

function isDigit(value: number): boolean {
  return value >= 0 && value <= 9;
}

const REV2 = 1;
const NAF2025 = 2;
/** tradeForNaf(code) has a trade (NAF rev. 2 table first, then NAF 2025). */
const COVERED = 4;
/** tradeForNaf2025(code) has a trade. */
const COVERED_2025 = 8;

/** Every sub-class code of both nomenclatures, with what the trades table says of it. */
const NAF_FLAGS = (() => {
  const flags = new Uint8Array(10_000 * 26);
  const mark = (code: string, flag: number) => {
    const key = codeKey(Buffer.from(code, "latin1"), 0, code.length);
    if (key < 0) throw new Error(`not a NAF sub-class code: ${code}`);
    flags[key] = (flags[key] as number) | flag;
    if (tradeForNaf(code)) flags[key] = (flags[key] as number) | COVERED;
    if (tradeForNaf2025(code)) flags[key] = (flags[key] as number) | COVERED_2025;
  };
  for (const code of nafSubclasses("rev2")) mark(code, REV2);
  for (const code of nafSubclasses("2025")) mark(code, NAF2025);
  return flags;
})();

/**
 * Whether the establishment's activity is one of a trade the registry covers, as
 * `tradeOf(activityCodes(main, naf2025))` answers (the NAF 2025 code first, when it is one; else
 * the main code), from the two columns' bytes. Null: not sure.
 */
export function coveredActivity(record: ScannedRecord, mainIndex: number, naf2025Index: number): boolean | null {
  const main = plainBounds(record, mainIndex);
  const beside = plainBounds(record, naf2025Index);
  if (!main || !beside) return null;
  const { bytes } = record;
  const besideKey = codeKey(bytes, beside[0], beside[1]);
  const besideFlags = besideKey < 0 ? 0 : (NAF_FLAGS[besideKey] as number);
  if (besideFlags & NAF2025) return (besideFlags & COVERED_2025) !== 0;
  const mainKey = codeKey(bytes, main[0], main[1]);
  const mainFlags = mainKey < 0 ? 0 : (NAF_FLAGS[mainKey] as number);
  if (mainFlags & NAF2025) return (mainFlags & COVERED_2025) !== 0;
  return (mainFlags & COVERED) !== 0;
}

/**
 * The SIRET as a number when the field is 14 digits that pass the SIRET's check (isValidSiret,
 * La Poste's rule included); -1 when they do not; null when the field is not 14 bare digits (not
 * sure: the string reading decides).
 */
export function siretNumber(record: ScannedRecord, index: number): number | null {
  if (index >= record.count) return null;
  const { bytes } = record;
  const start = record.starts[index] as number;
  if ((record.ends[index] as number) - start !== 14) return null;
  let luhn = 0;
  let digitSum = 0;
  let high = 0;
  let low = 0;
  for (let at = 0; at < 14; at++) {
    const digit = (bytes[start + at] as number) - DIGIT_0;
    if (digit < 0 || digit > 9) return null;
    if (at < 7) high = high * 10 + digit;
    else low = low * 10 + digit;
    digitSum += digit;
    // From the right, every second digit doubled: positions 0, 2, ... 12 of 14.
    const doubled = at % 2 === 0 ? digit * 2 : digit;
    luhn += doubled > 9 ? doubled - 9 : doubled;
  }
  const number = high * 10_000_000 + low;
  if (Math.floor(number / 100_000) === LA_POSTE_SIREN_NUMBER) {
    return luhn % 10 === 0 || digitSum % 5 === 0 ? number : -1;
  }
  if (luhn % 10 !== 0) return -1;
  // The SIREN's own check: its 9 digits, every second from the right doubled (positions 1, 3, 5, 7).
  let sirenSum = 0;
  for (let at = 0; at < 9; at++) {
    const digit = (bytes[start + at] as number) - DIGIT_0;
    const doubled = at % 2 === 1 ? digit * 2 : digit;
    sirenSum += doubled > 9 ? doubled - 9 : doubled;
  }
  return sirenSum % 10 === 0 ? number : -1;
}

const LA_POSTE_SIREN_NUMBER = Number(LA_POSTE_SIREN);

/** The field as a number when it is exactly nine digits (a SIREN as written); else -1. */
export function nineDigits(record: ScannedRecord, index: number): number {
  if (index >= record.count) return -1;
  const start = record.starts[index] as number;
  if ((record.ends[index] as number) - start !== 9) return -1;
  let number = 0;
  for (let at = start; at < start + 9; at++) {
    const digit = (record.bytes[at] as number) - DIGIT_0;
    if (digit < 0 || digit > 9) return -1;
    number = number * 10 + digit;
  }
  return number;
}

/** Whether every field of these has at most `max` bytes (so none can have more characters). */
export function allWithin(record: ScannedRecord, indexes: Int32Array, max: number): boolean {
  for (const index of indexes) {
    if (index < record.count && (record.ends[index] as number) - (record.starts[index] as number) > max) return false;
  }
  return true;
}

/**
 * A set of SIRETs (as numbers) that may answer "perhaps" for one it does not hold, never "no" for
 * one it holds (a Bloom filter: 8 bits a SIRET for one in fifty wrong): the registry's SIRETs, read
 * in a few megabytes. "Perhaps" sends the row to the domain, which looks it up.
 */
export class SiretFilter {
  readonly bits: Uint32Array;
  readonly #mask: number;

  constructor(bits: Uint32Array) {
    if (bits.length === 0 || (bits.length & (bits.length - 1)) !== 0) throw new Error("a power of two of words");
    this.bits = bits;
    this.#mask = bits.length * 32 - 1;
  }

  /** A filter sized for about `expected` SIRETs. */
  static forCount(expected: number): SiretFilter {
    let words = 1 << 12;
    while (words * 32 < expected * 8 && words < 1 << 24) words *= 2;
    return new SiretFilter(new Uint32Array(words));
  }

  add(siret: number): void {
    const [first, step] = hashes(siret);
    for (let round = 0; round < ROUNDS; round++) {
      const bit = (first + round * step) & this.#mask;
      this.bits[bit >>> 5] = (this.bits[bit >>> 5] as number) | (1 << (bit & 31));
    }
  }

  mayHold(siret: number): boolean {
    const [first, step] = hashes(siret);
    for (let round = 0; round < ROUNDS; round++) {
      const bit = (first + round * step) & this.#mask;
      if (((this.bits[bit >>> 5] as number) & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

const ROUNDS = 5;

function hashes(siret: number): [number, number] {
  const high = Math.floor(siret / 4294967296) | 0;
  const low = siret >>> 0;
  let first = Math.imul(low ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(high, 0xc2b2ae35);
  first = Math.imul(first ^ (first >>> 16), 0x7feb352d);
  first ^= first >>> 15;
  let step = Math.imul(low + 0x632be5ab, 0x27d4eb2f) ^ Math.imul(high ^ 0x165667b1, 0x9e3779b1);
  step = Math.imul(step ^ (step >>> 15), 0x85ebca6b);
  step ^= step >>> 13;
  return [first >>> 0, (step | 1) >>> 0];
}
