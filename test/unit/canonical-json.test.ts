import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  canonicalJson,
  canonicalJsonWith,
  canonicalObjectOf,
  contentHash,
  sha256Hex,
} from "../../src/domain/canonical-json.ts";

describe("canonicalJson", () => {
  it("sorts object keys at every depth and prints no whitespace", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 0, y: 1 }], c: "x" } })).toBe(
      '{"a":{"c":"x","d":[3,{"y":1,"z":0}]},"b":1}',
    );
  });

  it("orders keys by UTF-16 code units, not by code points (RFC 8785 sorting example)", () => {
    const value = {
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis",
    };
    const keys = Object.keys(JSON.parse(canonicalJson(value)) as Record<string, string>);
    // Object.keys puts integer-like keys first, so read the order from the text instead.
    const order = [...canonicalJson(value).matchAll(/"((?:[^"\\]|\\.)*)":/g)].map((match) =>
      JSON.parse(`"${match[1]}"`),
    );
    expect(order).toEqual(["\r", "1", "\u0080", "\u00f6", "\u20ac", "\ud83d\ude00", "\ufb33"]);
    expect(keys).toHaveLength(7);
  });

  it("prints numbers in their shortest ECMAScript form", () => {
    expect(
      canonicalJson([
        Number("333333333.33333329"),
        1e30,
        4.5,
        2e-3,
        1e-27,
        1e21,
        1e-7,
        0.000001,
        100,
        -0,
        9007199254740991,
      ]),
    ).toBe("[333333333.3333333,1e+30,4.5,0.002,1e-27,1e+21,1e-7,0.000001,100,0,9007199254740991]");
  });

  it("reproduces the RFC 8785 sample output byte for byte", () => {
    const input = JSON.parse(
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],' +
        '"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
    ) as unknown;
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it("keeps non-ASCII text as UTF-8 and escapes only control characters, quotes and backslashes", () => {
    expect(canonicalJson({ ville: "Besançon €", tab: "a\tb", ctl: "\u0001", q: 'say "hi" \\' })).toBe(
      '{"ctl":"\\u0001","q":"say \\"hi\\" \\\\","tab":"a\\tb","ville":"Besançon €"}',
    );
  });

  it("drops undefined members and prints undefined array items as null, like JSON.stringify", () => {
    expect(canonicalJson({ a: undefined, b: [undefined, 1], c: null })).toBe('{"b":[null,1],"c":null}');
  });

  it("prints a member named __proto__ as a member, in its sorted place", () => {
    const value = JSON.parse('{"z":1,"__proto__":{"b":2,"a":1},"a":[{"y":0,"x":1}]}') as unknown;
    expect(canonicalJson(value)).toBe('{"__proto__":{"a":1,"b":2},"a":[{"x":1,"y":0}],"z":1}');
  });

  it("sorts integer-like keys as strings too, at any depth", () => {
    expect(canonicalJson({ list: [{ "10": "b", "9": "a", x: 0 }], "2": true })).toBe(
      '{"2":true,"list":[{"10":"b","9":"a","x":0}]}',
    );
  });

  it("uses toJSON, so a Date prints as its ISO string", () => {
    expect(canonicalJson({ at: new Date("2026-04-01T10:00:00.000Z") })).toBe('{"at":"2026-04-01T10:00:00.000Z"}');
    const wrapped = { toJSON: () => ({ b: [new Date(0)], a: { "2": 1 } }) };
    expect(canonicalJson([wrapped])).toBe('[{"a":{"2":1},"b":["1970-01-01T00:00:00.000Z"]}]');
    expect(canonicalJson({ z: wrapped, y: 0 })).toBe('{"y":0,"z":{"a":{"2":1},"b":["1970-01-01T00:00:00.000Z"]}}');
  });

  it("refuses values JSON cannot carry: NaN, Infinity, bigint, functions, cycles", () => {
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson([Number.POSITIVE_INFINITY])).toThrow(TypeError);
    expect(() => canonicalJson({ n: 1n })).toThrow(TypeError);
    expect(() => canonicalJson({ f: () => 1 })).toThrow(TypeError);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cycle/);
  });

  it("accepts a value shared twice without being a cycle", () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });

  it("gives the same text whatever the key insertion order", () => {
    expect(canonicalJson({ a: 1, b: { c: 2, d: 3 } })).toBe(canonicalJson({ b: { d: 3, c: 2 }, a: 1 }));
  });
});

describe("contentHash", () => {
  it("is sha256: followed by 64 hex digits of the canonical form", () => {
    expect(contentHash({})).toBe("sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
    const value = { b: "é", a: [1, 2.5] };
    const expected = createHash("sha256").update('{"a":[1,2.5],"b":"é"}', "utf8").digest("hex");
    expect(contentHash(value)).toBe(`sha256:${expected}`);
    expect(contentHash(value)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("changes when any value changes and not when only key order does", () => {
    expect(contentHash({ a: 1, b: 2 })).toBe(contentHash({ b: 2, a: 1 }));
    expect(contentHash({ a: 1, b: 2 })).not.toBe(contentHash({ a: 1, b: 3 }));
  });

  it("sha256Hex hashes the UTF-8 bytes of a string", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });
});

describe("canonical JSON from the members' texts", () => {
  const value = { "10": "ten", b: { y: [1, { q: null, p: "é" }], x: true }, a: "’", "2": 2, skipped: undefined };

  it("canonicalObjectOf prints the members' texts in key order, as canonicalJson prints the object", () => {
    const texts = Object.fromEntries(
      Object.entries(value).map(([key, member]) => [key, member === undefined ? undefined : canonicalJson(member)]),
    );
    expect(canonicalObjectOf(texts)).toBe('{"10":"ten","2":2,"a":"’","b":{"x":true,"y":[1,{"p":"é","q":null}]}}');
    expect(canonicalObjectOf(texts)).toBe(canonicalJson(value));
    expect(canonicalObjectOf({})).toBe("{}");
  });

  it("canonicalJsonWith takes a member's text from the known objects and computes the others", () => {
    const known = new Map<object, string>([[value.b, '{"known":1}']]);
    expect(canonicalJsonWith(value, known)).toBe('{"10":"ten","2":2,"a":"’","b":{"known":1}}');
    expect(canonicalJsonWith(value, new Map([[value.b, canonicalJson(value.b)]]))).toBe(canonicalJson(value));
    // Only the very object is known: an equal copy is computed.
    expect(canonicalJsonWith({ ...value, b: { ...value.b } }, known)).toBe(canonicalJson(value));
  });
});
