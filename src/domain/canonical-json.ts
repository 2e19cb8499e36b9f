import { hash } from "node:crypto";
import { utf8Bytes } from "./utf8.ts";

/**
 * Canonical JSON in the style of RFC 8785 (JSON Canonicalization Scheme): object members sorted
 * by their keys' UTF-16 code units, no insignificant whitespace, numbers in the shortest
 * ECMAScript form (what `Number.prototype.toString` and `JSON.stringify` print, with -0 as 0),
 * strings escaped as `JSON.stringify` escapes them. As in `JSON.stringify`, object members whose
 * value is undefined are dropped, undefined array items print as null and `toJSON` (a Date) is
 * honoured. Values JSON cannot carry (NaN, Infinity, bigint, functions, symbols, cycles) throw,
 * so two equal documents always give the same bytes and the same hash.
 */
export function canonicalJson(value: unknown): string {
  // Usually: a copy with sorted keys, printed by the engine's JSON.stringify (flat output, about
  // twice as fast as concatenating a rope, and the hash that follows does not flatten one).
  // An object with integer-like keys cannot be copied in order (the engine lists those first),
  // so such a value takes the member-by-member printer.
  let copy: unknown;
  try {
    copy = sortedCopy(value, 0);
  } catch (error) {
    if (error !== INTEGER_LIKE_KEY) throw error;
    const out = serialize(value, 0);
    if (out === undefined) throw new TypeError("canonicalJson: the value has no JSON form");
    return out;
  }
  if (copy === undefined) throw new TypeError("canonicalJson: the value has no JSON form");
  return JSON.stringify(copy);
}

/**
 * The canonical JSON of an object whose members' canonical texts are known already: the members
 * in key order, each text as given. For a plain object `o`, `canonicalObjectOf(texts)` equals
 * `canonicalJson(o)` when each `texts[k]` is `canonicalJson(o[k])` (RFC 8785 is compositional),
 * so a text computed once serves every document that embeds the member. An undefined text leaves
 * its member out, as undefined does.
 */
export function canonicalObjectOf(texts: Readonly<Record<string, string | undefined>>): string {
  const keys = Object.keys(texts).sort();
  let out = "{";
  for (const key of keys) {
    const text = texts[key];
    if (text === undefined) continue;
    out += `${out.length > 1 ? "," : ""}${JSON.stringify(key)}:${text}`;
  }
  return `${out}}`;
}

/**
 * The canonical JSON of a plain object, taking a member's text from `known` when the member's
 * value is one of its objects (see canonicalObjectOf), computing the others.
 */
export function canonicalJsonWith(
  object: Readonly<Record<string, unknown>>,
  known: ReadonlyMap<object, string>,
): string {
  const texts: Record<string, string | undefined> = {};
  for (const key of Object.keys(object)) {
    const value = object[key];
    if (value === undefined) continue;
    texts[key] = (typeof value === "object" && value !== null ? known.get(value) : undefined) ?? canonicalJson(value);
  }
  return canonicalObjectOf(texts);
}

/** `sha256:` followed by the 64 lowercase hex digits of the SHA-256 of the canonical form (UTF-8). */
export function contentHash(value: unknown): string {
  return `sha256:${sha256Hex(canonicalJson(value))}`;
}

/** Lowercase hex SHA-256 of a string's UTF-8 bytes. */
export function sha256Hex(text: string): string {
  return hash("sha256", utf8Bytes(text), "hex");
}

/**
 * Nesting past this depth is taken for a cycle. Counting levels costs nothing, where keeping the
 * ancestors in a Set cost a third of the time (a decision card is hashed on every render).
 */
const MAX_DEPTH = 1_000;

/** Thrown inside sortedCopy when an object has a key the engine would not keep in sorted order. */
const INTEGER_LIKE_KEY = Symbol("integer-like key");
const INTEGER_LIKE = /^(?:0|[1-9][0-9]*)$/;

/** What `leaf` answers for an object or an array: its members are walked. */
const BRANCH = Symbol("branch");

/**
 * A value JSON prints as it is (null, boolean, string, finite number, undefined: dropped) or
 * BRANCH for an object; throws for what JSON cannot carry and for nesting past MAX_DEPTH.
 */
function leaf(value: unknown, depth: number): unknown {
  if (value === null) return null;
  switch (typeof value) {
    case "boolean":
    case "string":
    case "undefined":
      return value;
    case "number":
      // JSON.stringify prints the shortest round-trip form (ECMA-262 Number::toString) and -0 as 0.
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: ${value} has no JSON form`);
      return value;
    case "function":
    case "symbol":
    case "bigint":
      throw new TypeError(`canonicalJson: a ${typeof value} has no JSON form`);
    default:
      break;
  }
  if (depth >= MAX_DEPTH) {
    throw new TypeError(`canonicalJson: the value contains a cycle (or nests deeper than ${MAX_DEPTH} levels)`);
  }
  return BRANCH;
}

/** What an object stands for in JSON: its toJSON() answer (a Date's ISO string), or itself. */
function jsonForm(object: object): unknown {
  const withToJson = object as { toJSON?: unknown };
  return typeof withToJson.toJSON === "function" ? (withToJson.toJSON as () => unknown).call(object) : object;
}

/** The value with every object's keys sorted, checked by `leaf` as `serialize` checks it. */
function sortedCopy(value: unknown, depth: number): unknown {
  const simple = leaf(value, depth);
  if (simple !== BRANCH) return simple;
  const object = value as object;
  const form = jsonForm(object);
  if (form !== object) return sortedCopy(form, depth);
  if (Array.isArray(object)) {
    const items = new Array<unknown>(object.length);
    for (let index = 0; index < object.length; index++) items[index] = sortedCopy(object[index], depth + 1);
    return items;
  }
  const record = object as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  const copy: Record<string, unknown> = {};
  for (const key of keys) {
    if (INTEGER_LIKE.test(key)) throw INTEGER_LIKE_KEY;
    const member = sortedCopy(record[key], depth + 1);
    if (member === undefined) continue;
    // `__proto__` assigned would set the prototype, not a member.
    if (key === "__proto__") Object.defineProperty(copy, key, { value: member, enumerable: true, writable: true });
    else copy[key] = member;
  }
  return copy;
}

function serialize(value: unknown, depth: number): string | undefined {
  const simple = leaf(value, depth);
  if (simple !== BRANCH) return simple === undefined ? undefined : JSON.stringify(simple);
  const object = value as object;
  const form = jsonForm(object);
  if (form !== object) return serialize(form, depth);
  if (Array.isArray(object)) {
    let out = "[";
    for (let index = 0; index < object.length; index++) {
      if (index > 0) out += ",";
      out += serialize(object[index], depth + 1) ?? "null";
    }
    return `${out}]`;
  }
  const record = object as Record<string, unknown>;
  // Default string comparison orders by UTF-16 code units, which is what RFC 8785 asks for.
  const keys = Object.keys(record).sort();
  let out = "{";
  let first = true;
  for (const key of keys) {
    const member = serialize(record[key], depth + 1);
    if (member === undefined) continue;
    out += first ? "" : ",";
    out += `${JSON.stringify(key)}:${member}`;
    first = false;
  }
  return `${out}}`;
}
