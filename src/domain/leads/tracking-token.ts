import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from "node:crypto";

/**
 * The tracking token: the one capability for a lead's status and follow-up messages.
 *
 * Shape `<lead_id>.<mac>`, where mac is base64url(HMAC-SHA256(secret, "abeille-lead-tracking/v1:" +
 * lead_id)) (43 characters, 256 bits). Why this shape:
 * - nothing secret is stored: the token is recomputed from the lead id, so the duplicate answer
 *   (200, deduplicated) and an Idempotency-Key replay can hand the first lead's token back (to the
 *   caller that sent the lead, never another: duplicate-rule.ts), and a copy of the database
 *   alone does not let anyone follow or write on a lead;
 * - the token alone finds its lead (the MCP tools need nothing else), while the lead id it carries
 *   is useless without the mac;
 * - a mac that does not match is refused after a constant-time comparison, before any lookup, and
 *   the answer is the same as for an unknown lead.
 * Rotating the secret (DATA_DIR/secrets/lead-tracking.key) invalidates every token issued before.
 */
export interface TrackingTokens {
  issue(leadId: string): string;
  /** The lead id the token was issued for, or null when this server did not issue it. */
  verify(token: string): string | null;
}

const CONTEXT = "abeille-lead-tracking/v1:";
const LEAD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MAC = /^[A-Za-z0-9_-]{43}$/;

export function createTrackingTokens(secret: () => Buffer): TrackingTokens {
  // A KeyObject made once: handing createHmac the raw bytes imports the key again on every call,
  // which cost five times the HMAC itself (about 22 µs against 4.5 µs).
  let key: KeyObject | undefined;
  const mac = (leadId: string) => {
    key ??= createSecretKey(secret());
    return createHmac("sha256", key)
      .update(CONTEXT + leadId, "utf8")
      .digest();
  };
  return {
    issue(leadId) {
      return `${leadId}.${mac(leadId).toString("base64url")}`;
    },
    verify(token) {
      const dot = token.indexOf(".");
      if (dot < 0) return null;
      const leadId = token.slice(0, dot);
      const given = token.slice(dot + 1);
      if (!LEAD_ID.test(leadId) || !MAC.test(given)) return null;
      // Compare the text (43 ASCII characters each), so only the canonical encoding is accepted.
      const expected = Buffer.from(mac(leadId).toString("base64url"), "ascii");
      const presented = Buffer.from(given, "ascii");
      return presented.length === expected.length && timingSafeEqual(presented, expected) ? leadId : null;
    },
  };
}
