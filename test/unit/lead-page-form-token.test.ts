import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createPageFormTokens, leadChannelOf } from "../../src/domain/leads/page-form-token.ts";

const SECRET = Buffer.alloc(32, 9);
const tokens = createPageFormTokens(() => SECRET);

describe("the page form token (what makes a lead `page`)", () => {
  it("is the HMAC of the merchant's ab_id under the page-form secret, the same on every rendering", () => {
    const expected = createHmac("sha256", SECRET).update("abeille-page-form/v1:ab_7tq2k9xa").digest("base64url");
    expect(tokens.issue("ab_7tq2k9xa")).toBe(expected);
    expect(tokens.issue("ab_7tq2k9xa")).toBe(expected);
    expect(expected).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("makes a lead `page` only with its own merchant's token", () => {
    const token = tokens.issue("ab_7tq2k9xa");
    expect(leadChannelOf(tokens, token, "ab_7tq2k9xa")).toBe("page");
    expect(leadChannelOf(tokens, ` ${token} `, "ab_7tq2k9xa")).toBe("page");
    // Another merchant's page, another server's secret, a made-up or mangled value, or nothing: api.
    expect(leadChannelOf(tokens, token, "ab_00000000")).toBe("api");
    expect(
      leadChannelOf(
        createPageFormTokens(() => Buffer.alloc(32, 1)),
        token,
        "ab_7tq2k9xa",
      ),
    ).toBe("api");
    for (const other of ["A".repeat(43), token.slice(0, 42), `${token}A`, "", "http://abeille.test", null, undefined]) {
      expect(leadChannelOf(tokens, other, "ab_7tq2k9xa")).toBe("api");
    }
  });
});
