import { applyWaitingLeadEmail } from "../domain/merchant-space/lead-email.ts";
import type {
  ConfirmationDecision,
  LeadEmailConfirmation,
  LeadEmailConfirmationStore,
} from "../domain/merchant-space/lead-email-store.ts";
import { createLeadEmailTokens, type LeadEmailTokens } from "../domain/merchant-space/lead-email-token.ts";
import { claimIdOfActor } from "../domain/merchant-space/space-notices.ts";
import type { StoreConnection } from "./connection.ts";
import type { Db } from "./db.ts";
import { drizzle } from "./drizzle.ts";
import { loadOrCreateSecret } from "./lead-repository.ts";
import { createMerchantRegistryView } from "./merchant-registry-repository.ts";
import * as schema from "./schema.ts";
import { secretFile } from "./secret-files.ts";
import { noticeWriter } from "./space-notice-repository.ts";

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
  waiting_notice_id: string | null;
}

type SqliteClient = StoreConnection["$client"];
type RegistryView = ReturnType<typeof createMerchantRegistryView>;

// The registry over a connection, made when first needed and shared by what needs it there (a
// confirmation with no address in force, a change applied when its notice settles): the outbox
// thread's connection carries no drizzle schema until a change waits on one of its notices.
const registryViews = new WeakMap<SqliteClient, RegistryView>();
function registryViewOf(sqlite: SqliteClient): RegistryView {
  let view = registryViews.get(sqlite);
  if (!view) {
    view = createMerchantRegistryView(drizzle(sqlite, { schema }) as Db);
    registryViews.set(sqlite, view);
  }
  return view;
}

/** The listing's requests still waiting for their link (only the latest link works). */
export const WITHDRAW_WAITING_LINKS = `UPDATE lead_email_confirmations SET withdrawn_at = @at
  WHERE ab_id = @abId AND confirmed_at IS NULL AND withdrawn_at IS NULL`;
/** The listing's other confirmed changes still waiting for their notice (the latest confirmed one wins). */
export const WITHDRAW_WAITING_CHANGES = `UPDATE lead_email_confirmations SET withdrawn_at = @at, waiting_notice_id = NULL
  WHERE ab_id = @abId AND waiting_notice_id IS NOT NULL AND confirmation_id <> @id`;
export const MARK_CONFIRMED = `UPDATE lead_email_confirmations SET confirmed_at = @at, waiting_notice_id = @waitingNoticeId
  WHERE confirmation_id = @id`;
/** The change a notice is the awaited notice of, still waiting, with the address it told. */
export const CHANGE_WAITING_ON = `SELECT c.*, n.from_email AS told_address
  FROM space_notices n JOIN lead_email_confirmations c ON c.confirmation_id = n.confirmation_id
  WHERE n.notice_id = @noticeId AND c.waiting_notice_id = n.notice_id`;
/** A waiting change settled: applied, or withdrawn (not applied). */
export const SETTLE_WAITING_CHANGE = `UPDATE lead_email_confirmations
  SET waiting_notice_id = NULL, withdrawn_at = CASE WHEN @applied = 1 THEN withdrawn_at ELSE @at END
  WHERE confirmation_id = @id`;
export const WAITING_CHANGE_OF = `SELECT * FROM lead_email_confirmations
  WHERE ab_id = @abId AND waiting_notice_id IS NOT NULL ORDER BY confirmed_at DESC LIMIT 1`;

/** Whether a merchant actor's claim (`merchant:<claimId>`) is live. */
function claimLiveReader(sqlite: SqliteClient): (actor: string) => boolean {
  const liveClaim = sqlite.prepare<[string], { n: number }>(
    "SELECT count(*) AS n FROM merchant_claims WHERE claim_id = ? AND revoked_at IS NULL AND lapsed_at IS NULL",
  );
  return (actor) => {
    const claimId = claimIdOfActor(actor);
    return claimId !== null && (liveClaim.get(claimId)?.n ?? 0) > 0;
  };
}

/**
 * Applies, inside the outbox's settling transaction, the lead email change that waited for this
 * notice, if one does (the rule: applyWaitingLeadEmail); nothing for any other notice.
 */
export function waitingChangeSettler(
  sqlite: SqliteClient,
): (noticeId: string, delivery: "sent" | "failed", at: string) => void {
  const waitingOn = sqlite.prepare<{ noticeId: string }, ConfirmationRow & { told_address: string }>(CHANGE_WAITING_ON);
  const settle = sqlite.prepare<{ id: string; at: string; applied: number }>(SETTLE_WAITING_CHANGE);
  const claimLive = claimLiveReader(sqlite);
  return (noticeId, delivery, at) => {
    const row = waitingOn.get({ noticeId });
    if (!row) return;
    const confirmation = toConfirmation(row);
    const applied = applyWaitingLeadEmail(
      registryViewOf(sqlite),
      { confirmation, claimLive: claimLive(confirmation.requestedBy), toldAddress: row.told_address },
      delivery,
      at,
    );
    settle.run({ id: confirmation.confirmationId, at, applied: applied ? 1 : 0 });
  };
}

/** The lead email confirmations of the merchant space (port: src/domain/merchant-space/lead-email-store.ts). */
export function createLeadEmailConfirmationRepository(db: StoreConnection): LeadEmailConfirmationStore {
  const sqlite = db.$client;
  const withdrawWaiting = sqlite.prepare<{ abId: string; at: string }>(WITHDRAW_WAITING_LINKS);
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
  const waiting = sqlite.prepare<{ abId: string }, ConfirmationRow>(WAITING_CHANGE_OF);
  const withdrawChanges = sqlite.prepare<{ abId: string; at: string; id: string }>(WITHDRAW_WAITING_CHANGES);
  const markConfirmed = sqlite.prepare<{ id: string; at: string; waitingNoticeId: string | null }>(MARK_CONFIRMED);
  const claimLive = claimLiveReader(sqlite);
  // Made when first needed: the outbox thread's connection writes no notice but those of settling.
  let writeNotice: ReturnType<typeof noticeWriter> | null = null;
  const confirmTx = sqlite.transaction(
    <T>(confirmationId: string, at: string, decide: Parameters<LeadEmailConfirmationStore["confirm"]>[2]): T => {
      const row = byId.get(confirmationId);
      const found = row ? { confirmation: toConfirmation(row), claimLive: claimLive(row.requested_by) } : null;
      const { result, waitFor } = decide(found, registryViewOf(sqlite));
      if (!row) return result as T;
      withdrawChanges.run({ abId: row.ab_id, at, id: confirmationId });
      writeNotice ??= noticeWriter(sqlite);
      const waitingNoticeId = waitFor ? writeNotice(waitFor) : null;
      markConfirmed.run({ id: confirmationId, at, waitingNoticeId });
      return result as T;
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
    waitingOf: async (abId) => found(waiting.get({ abId })),
    async confirm<T>(
      confirmationId: string,
      at: string,
      decide: (...args: Parameters<Parameters<LeadEmailConfirmationStore["confirm"]>[2]>) => ConfirmationDecision<T>,
    ): Promise<T> {
      return confirmTx.immediate(confirmationId, at, decide) as T;
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
    waitingNoticeId: row.waiting_notice_id,
  };
}
