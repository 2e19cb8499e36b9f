import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createTrackingTokens } from "../../src/domain/leads/tracking-token.ts";
import { loadOrCreateSecret } from "../../src/store/lead-repository.ts";

const tokens = createTrackingTokens(() => Buffer.alloc(32, 7));

describe("lead tracking tokens", () => {
  it("embeds the lead id and a 256-bit HMAC, and verifies back to the lead id", () => {
    const leadId = randomUUID();
    const token = tokens.issue(leadId);
    expect(token).toMatch(new RegExp(`^${leadId}\\.[A-Za-z0-9_-]{43}$`));
    expect(tokens.verify(token)).toBe(leadId);
    expect(tokens.issue(leadId)).toBe(token);
  });

  it("refuses tampered, foreign, truncated, non-canonical and malformed tokens", () => {
    const leadId = randomUUID();
    const token = tokens.issue(leadId);
    const mac = token.split(".")[1] as string;
    const otherLead = randomUUID();
    const lastChar = mac.at(-1) as string;
    // The last base64url character carries 2 unused bits: another character can decode to the same bytes.
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const sameBytes = alphabet[(alphabet.indexOf(lastChar) & ~3) + ((alphabet.indexOf(lastChar) + 1) & 3)] as string;
    for (const bad of [
      `${otherLead}.${mac}`,
      `${leadId}.${mac.slice(0, -1)}${alphabet[(alphabet.indexOf(lastChar) + 32) % 64]}`,
      `${leadId}.${mac.slice(0, -1)}${sameBytes}`,
      `${leadId}.${mac.slice(0, 42)}`,
      `${leadId}.${mac}A`,
      `${leadId.toUpperCase()}.${mac}`,
      leadId,
      mac,
      "",
      ".",
      `${leadId}.${"A".repeat(43)}`,
    ]) {
      expect(tokens.verify(bad)).toBeNull();
    }
    const otherSecret = createTrackingTokens(() => Buffer.alloc(32, 8));
    expect(otherSecret.verify(token)).toBeNull();
  });

  it("finds no valid token in a million random guesses' worth of structure (sampled)", () => {
    const leadId = randomUUID();
    for (let guess = 0; guess < 2000; guess++) {
      expect(tokens.verify(`${leadId}.${randomBytes(32).toString("base64url")}`)).toBeNull();
    }
  });

  it("keeps its secret in a 0600 file that is created once and then reused", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "abeille-secret-"));
    try {
      const file = path.join(dir, "secrets", "lead-tracking.key");
      const first = loadOrCreateSecret(file);
      expect(first.length).toBe(32);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(loadOrCreateSecret(file).equals(first)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
