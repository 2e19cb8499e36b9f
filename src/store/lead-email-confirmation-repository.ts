import type { LeadEmailConfirmation, LeadEmailConfirmationStore } from "../domain/merchant-space/lead-email-store.ts";
import { createLeadEmailTokens, type LeadEmailTokens } from "../domain/merchant-space/lead-email-token.ts";
import type { MerchantRegistryView } from "../domain/merchants/merchant-registry.ts";
import type { StoreConnection } from "./connection.ts";
import type { Db } from "./db.ts";
import { drizzle } from "./drizzle.ts";
import { loadOrCreateSecret } from "./lead-repository.ts";
import { createMerchantRegistryView } from "./merchant-registry-repository.ts";
import * as schema from "./schema.ts";
import { secretFile } from "./secret-files.ts";

/** The lead email links' tokens, keyed by DATA_DIR/secrets/lead-email.key (the server and the outbox thread). */
export function leadEmailTokensOf(dataDir: string): LeadEmailTokens {
  return createLeadEmailTokens(() => loadOrCreateSecret(secretFile(dataDir, "leadEmail")));
}

export interface ConfirmationRow {
  confirmation_id: string;
  ab_id: string;
  email: string;
  token_hash: string;
  requested_by: string;
  created_at: string;
  expires_at: string;
  sent_at: string | null;
  confirmed_at: string | null;
  withdrawn_at: string | null;
}

/** The lead email confirmations of the merchant space (port: src/domain/merchant-space/lead-email-store.ts). */
export function createLeadEmailConfirmationRepository(db: StoreConnection): LeadEmailConfirmationStore {
  const sqlite = db.$client;
  const withdrawWaiting = sqlite.prepare<{ abId: string; at: string }>(
    `UPDATE lead_email_confirmations SET withdrawn_at = @at
     WHERE ab_id = @abId AND confirmed_at IS NULL AND withdrawn_at IS NULL`,
  );
  const insert = sqlite.prepare(
    `INSERT INTO lead_email_confirmations
       (confirmation_id, ab_id, email, token_hash, requested_by, created_at, expires_at)
     VALUES (@confirmationId, @abId, @email, @tokenHash, @requestedBy, @createdAt, @expiresAt)`,
  );
  const insertOutbox = sqlite.prepare(
    `INSERT INTO outbox (message_id, kind, subject_id, status, attempts, next_attempt_at, created_at)
     VALUES (?, 'lead_email_confirmation', ?, 'pending', 0, ?, ?)`,
  );
  const byId = sqlite.prepare<[string], ConfirmationRow>(
    "SELECT * FROM lead_email_confirmations WHERE confirmation_id = ?",
  );
  const forDelivery = sqlite.prepare<[string], ConfirmationRow & { business_name: string }>(
    `SELECT c.*, m.business_name FROM lead_email_confirmations c JOIN merchants m ON m.ab_id = c.ab_id
     WHERE c.confirmation_id = ?`,
  );
  const byToken = sqlite.prepare<[string], ConfirmationRow>(
    "SELECT * FROM lead_email_confirmations WHERE token_hash = ?",
  );
  const pending = sqlite.prepare<{ abId: string; now: string }, ConfirmationRow>(
    `SELECT * FROM lead_email_confirmations
     WHERE ab_id = @abId AND confirmed_at IS NULL AND withdrawn_at IS NULL AND expires_at > @now
     ORDER BY created_at DESC LIMIT 1`,
  );
  const confirm = sqlite.prepare<{ id: string; at: string }>(
    `UPDATE lead_email_confirmations SET confirmed_at = @at
     WHERE confirmation_id = @id AND confirmed_at IS NULL AND withdrawn_at IS NULL`,
  );
  // The registry over the same connection, made when first needed (the outbox thread never confirms).
  let registry: ReturnType<typeof createMerchantRegistryView> | null = null;
  const confirmTx = sqlite.transaction(
    (confirmationId: string, at: string, decide: (view: ReturnType<typeof createMerchantRegistryView>) => unknown) => {
      if (confirm.run({ id: confirmationId, at }).changes !== 1) return { confirmed: false as const };
      registry ??= createMerchantRegistryView(drizzle(sqlite, { schema }) as Db);
      return { confirmed: true as const, result: decide(registry) };
    },
  );
  const requestTx = sqlite.transaction(
    (confirmation: Parameters<LeadEmailConfirmationStore["request"]>[0], outboxMessageId: string) => {
      withdrawWaiting.run({ abId: confirmation.abId, at: confirmation.createdAt });
      insert.run(confirmation);
      insertOutbox.run(outboxMessageId, confirmation.confirmationId, confirmation.createdAt, confirmation.createdAt);
    },
  );
  const found = (row: ConfirmationRow | undefined) => (row ? toConfirmation(row) : null);
  return {
    request: async (confirmation, outboxMessageId) => requestTx.immediate(confirmation, outboxMessageId),
    find: async (confirmationId) => found(byId.get(confirmationId)),
    async findForDelivery(confirmationId) {
      const row = forDelivery.get(confirmationId);
      return row ? { ...toConfirmation(row), businessName: row.business_name } : null;
    },
    findByTokenHash: async (tokenHash) => found(byToken.get(tokenHash)),
    pendingOf: async (abId, now) => found(pending.get({ abId, now })),
    async confirm<T>(confirmationId: string, at: string, decide: (view: MerchantRegistryView) => T) {
      return confirmTx.immediate(confirmationId, at, decide) as { confirmed: true; result: T } | { confirmed: false };
    },
  };
}

export function toConfirmation(row: ConfirmationRow): LeadEmailConfirmation {
  return {
    confirmationId: row.confirmation_id,
    abId: row.ab_id,
    email: row.email,
    tokenHash: row.token_hash,
    requestedBy: row.requested_by,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    sentAt: row.sent_at,
    confirmedAt: row.confirmed_at,
    withdrawnAt: row.withdrawn_at,
  };
}
