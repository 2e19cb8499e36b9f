import { createHash, createHmac, createSecretKey, type KeyObject } from "node:crypto";

/**
 * The token of a lead email's confirmation link: base64url(HMAC-SHA256(secret,
 * "abeille-lead-email/v1:" + confirmation id)), 43 characters, keyed by
 * DATA_DIR/secrets/lead-email.key. The store keeps only its SHA-256, and the outbox writes the link
 * again from the id when it sends (nothing stored can open the link). Rotating the key voids every
 * link not yet used.
 */
export interface LeadEmailTokens {
  issue(confirmationId: string): string;
  /** What the store keeps and looks a token up by. */
  hash(token: string): string;
}

const CONTEXT = "abeille-lead-email/v1:";
export const LEAD_EMAIL_TOKEN = /^[A-Za-z0-9_-]{43}$/;

export function createLeadEmailTokens(secret: () => Buffer): LeadEmailTokens {
  let key: KeyObject | undefined;
  return {
    issue(confirmationId) {
      key ??= createSecretKey(secret());
      return createHmac("sha256", key)
        .update(CONTEXT + confirmationId, "utf8")
        .digest("base64url");
    },
    hash: (token) => createHash("sha256").update(token, "utf8").digest("hex"),
  };
}
