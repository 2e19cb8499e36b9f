/**
 * Issue 34: the ab_ids a national import draws for one transaction share a random three-character
 * prefix (src/domain/merchants/build-merchant.ts, abIdsOfOneBatch), so they sit side by side in the
 * indexes keyed by ab_id; they are ab_ids all the same (the contract's pattern), each different,
 * and another transaction's prefix is drawn again.
 */
import { describe, expect, it } from "vitest";
import { abIdsOfOneBatch } from "../../src/domain/merchants/build-merchant.ts";
import { AB_ID_PATTERN } from "../../src/schemas/common.ts";

describe("the ab_ids of one batch", () => {
  it("match the contract's pattern, share one random prefix and are all different", () => {
    const draw = abIdsOfOneBatch();
    // 20,000 draws under one prefix of 60 million: a repeat would come about 96 times in 100
    // without the batch's memory of what it drew.
    const ids = Array.from({ length: 20_000 }, () => draw());
    expect(ids.filter((id) => !AB_ID_PATTERN.test(id))).toEqual([]);
    expect(new Set(ids.map((id) => id.slice(0, 6))).size).toBe(1);
    expect(new Set(ids).size).toBe(ids.length);
    // Forty batches draw (nearly always) forty prefixes: one in 46,656 each.
    const prefixes = new Set(Array.from({ length: 40 }, () => abIdsOfOneBatch()().slice(0, 6)));
    expect(prefixes.size).toBeGreaterThan(35);
  });
});
