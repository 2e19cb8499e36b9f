/**
 * A small seeded pseudo-random generator (sfc32, seeded through splitmix32) for the demo seed.
 * Nothing here reads the clock or Math.random: the same seed and stream give the same sequence on
 * every machine.
 */
const HEX = Array.from({ length: 256 }, (_, value) => value.toString(16).padStart(2, "0"));
const ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789";

function splitmix32(state: number): [next: number, output: number] {
  const next = (state + 0x9e3779b9) | 0;
  let z = next;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return [next, (z ^ (z >>> 16)) >>> 0];
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  private constructor(a: number, b: number, c: number, d: number) {
    this.a = a | 0;
    this.b = b | 0;
    this.c = c | 0;
    this.d = d | 0;
    for (let round = 0; round < 12; round++) this.uint32();
  }

  /** A generator for `seed`; distinct `stream` numbers give independent sequences. */
  static create(seed: number, stream = 0): Rng {
    let state = (seed | 0) ^ Math.imul(stream + 1, 0x632be5ab);
    [state] = splitmix32(state ^ Math.imul(Math.floor(seed / 0x100000000) | 0, 0x27d4eb2f));
    const words: number[] = [];
    for (let index = 0; index < 4; index++) {
      const [next, output] = splitmix32(state);
      state = next;
      words.push(output);
    }
    return new Rng(words[0] ?? 0, words[1] ?? 0, words[2] ?? 0, words[3] ?? 0);
  }

  uint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    return this.uint32() / 4294967296;
  }

  /** An integer in [0, max). */
  int(max: number): number {
    return Math.floor(this.next() * max);
  }

  /** An integer in [min, max], both included. */
  between(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** A float in [min, max). */
  float(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new RangeError("pick from an empty list");
    return item;
  }

  /** An index drawn with the weights whose running totals are `cumulative` (ascending). */
  weighted(cumulative: ArrayLike<number>): number {
    const total = cumulative[cumulative.length - 1] ?? 0;
    const target = this.next() * total;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((cumulative[middle] ?? 0) > target) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  /** `count` distinct items in random order (all of them when count >= length). */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = items.slice();
    const size = Math.min(count, pool.length);
    for (let index = 0; index < size; index++) {
      const swap = index + Math.floor(this.next() * (pool.length - index));
      const chosen = pool[swap] as T;
      pool[swap] = pool[index] as T;
      pool[index] = chosen;
    }
    return pool.slice(0, size);
  }

  /** `length` characters from [a-z0-9]. */
  alnum(length: number): string {
    let out = "";
    for (let index = 0; index < length; index++) out += ALNUM[this.int(36)];
    return out;
  }

  /** `length` decimal digits. */
  digits(length: number): string {
    let out = "";
    for (let index = 0; index < length; index++) out += String(this.int(10));
    return out;
  }

  /**
   * An RFC 9562 version-7 UUID for the instant `timestampMs`, its random bits from this
   * generator. Increasing instants give increasing ids, so rows keyed by them insert in order.
   */
  uuidAt(timestampMs: number): string {
    const ms = Math.floor(timestampMs);
    const high = Math.floor(ms / 4294967296) & 0xffff;
    const low = ms >>> 0;
    const w1 = this.uint32();
    const w2 = this.uint32();
    const w3 = this.uint32();
    const b6 = ((w1 >>> 8) & 0x0f) | 0x70;
    const b8 = ((w2 >>> 24) & 0x3f) | 0x80;
    return (
      `${HEX[high >>> 8]}${HEX[high & 255]}${HEX[low >>> 24]}${HEX[(low >>> 16) & 255]}-` +
      `${HEX[(low >>> 8) & 255]}${HEX[low & 255]}-${HEX[b6]}${HEX[w1 & 255]}-` +
      `${HEX[b8]}${HEX[(w2 >>> 16) & 255]}-` +
      `${HEX[(w2 >>> 8) & 255]}${HEX[w2 & 255]}${HEX[w3 >>> 24]}${HEX[(w3 >>> 16) & 255]}` +
      `${HEX[(w3 >>> 8) & 255]}${HEX[w3 & 255]}`
    );
  }

  /** An RFC 9562 version-4 UUID whose random bits come from this generator. */
  uuid(): string {
    const w0 = this.uint32();
    const w1 = this.uint32();
    const w2 = this.uint32();
    const w3 = this.uint32();
    const b6 = ((w1 >>> 8) & 0x0f) | 0x40;
    const b8 = ((w2 >>> 24) & 0x3f) | 0x80;
    return (
      `${HEX[w0 >>> 24]}${HEX[(w0 >>> 16) & 255]}${HEX[(w0 >>> 8) & 255]}${HEX[w0 & 255]}-` +
      `${HEX[w1 >>> 24]}${HEX[(w1 >>> 16) & 255]}-${HEX[b6]}${HEX[w1 & 255]}-` +
      `${HEX[b8]}${HEX[(w2 >>> 16) & 255]}-` +
      `${HEX[(w2 >>> 8) & 255]}${HEX[w2 & 255]}${HEX[w3 >>> 24]}${HEX[(w3 >>> 16) & 255]}` +
      `${HEX[(w3 >>> 8) & 255]}${HEX[w3 & 255]}`
    );
  }
}

const DAY_MS = 86_400_000;
const datePrefixes = new Map<number, string>();
const TWO_DIGITS = Array.from({ length: 100 }, (_, value) => String(value).padStart(2, "0"));

/**
 * `new Date(ms).toISOString()` without the Date: the seed formats millions of timestamps, and
 * the day part ("2026-11-22T") repeats, so it is computed once per day.
 */
export function isoString(ms: number): string {
  const day = Math.floor(ms / DAY_MS);
  let prefix = datePrefixes.get(day);
  if (prefix === undefined) {
    prefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
    datePrefixes.set(day, prefix);
  }
  let rest = Math.floor(ms) - day * DAY_MS;
  const millis = rest % 1000;
  rest = (rest - millis) / 1000;
  const seconds = rest % 60;
  rest = (rest - seconds) / 60;
  const minutes = rest % 60;
  const hours = (rest - minutes) / 60;
  const milliText = millis < 10 ? `00${millis}` : millis < 100 ? `0${millis}` : String(millis);
  return `${prefix}${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${milliText}Z`;
}
