import { randomUUID } from "node:crypto";
import type { LetterClaimForLink, SignInLinkRecord, SignInLinkStore } from "../domain/merchant-space/sign-in-links.ts";
import type { StoreConnection } from "./connection.ts";
import { secretFile } from "./secret-files.ts";

export interface LinkRow {
  link_id: string;
  claim_id: string;
  email: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** The sign-in links of the letter path (src/domain/merchant-space/sign-in-links.ts) and their outbox rows. */
export function createSignInLinkRepository(db: StoreConnection): SignInLinkStore {
  const sqlite = db.$client;
  const claimsOfEmail = sqlite.prepare<[string], LetterClaimForLink>(
    `SELECT c.claim_id AS claimId, c.ab_id AS abId, m.business_name AS businessName
     FROM merchant_claims c JOIN merchants m ON m.ab_id = c.ab_id
     WHERE c.via = 'letter' AND c.revoked_at IS NULL AND lower(c.email) = lower(?)
     ORDER BY c.created_at`,
  );
  const insertLink = sqlite.prepare(
    `INSERT INTO space_sign_in_links (link_id, claim_id, email, created_at, expires_at)
     VALUES (@linkId, @claimId, @email, @createdAt, @expiresAt)`,
  );
  const insertOutbox = sqlite.prepare(
    `INSERT INTO outbox (message_id, kind, subject_id, status, attempts, next_attempt_at, created_at)
     VALUES (?, 'space_sign_in_link', ?, 'pending', 0, ?, ?)`,
  );
  const byId = sqlite.prepare<[string], LinkRow>("SELECT * FROM space_sign_in_links WHERE link_id = ?");
  const withName = sqlite.prepare<[string], LinkRow & { business_name: string }>(
    `SELECT l.*, m.business_name FROM space_sign_in_links l
     JOIN merchant_claims c ON c.claim_id = l.claim_id JOIN merchants m ON m.ab_id = c.ab_id
     WHERE l.link_id = ?`,
  );
  const take = sqlite.prepare(
    `UPDATE space_sign_in_links SET used_at = @at
     WHERE link_id = @linkId AND used_at IS NULL AND expires_at > @at
       AND claim_id IN (SELECT claim_id FROM merchant_claims WHERE revoked_at IS NULL)`,
  );
  const insertTx = sqlite.transaction((links: readonly SignInLinkRecord[], at: string) => {
    for (const link of links) {
      insertLink.run(link);
      insertOutbox.run(randomUUID(), link.linkId, at, at);
    }
  });
  const takeTx = sqlite.transaction((linkId: string, at: string) => {
    if (take.run({ linkId, at }).changes === 0) return null;
    const row = byId.get(linkId);
    return row ? linkOf(row) : null;
  });
  return {
    liveLetterClaimsOf: async (email) => claimsOfEmail.all(email),
    insertLinks: async (links, at) => insertTx.immediate(links, at),
    takeLink: async (linkId, at) => takeTx.immediate(linkId, at),
    async findLink(linkId) {
      const row = withName.get(linkId);
      return row ? { ...linkOf(row), businessName: row.business_name } : null;
    },
  };
}

export function linkOf(row: LinkRow): SignInLinkRecord {
  return {
    linkId: row.link_id,
    claimId: row.claim_id,
    email: row.email,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    usedAt: row.used_at,
  };
}

/** The key of the sign-in links' tokens (created on first use, like the other secrets). */
export function signInLinkKeyFile(dataDir: string): string {
  return secretFile(dataDir, "signInLink");
}
