/**
 * Where a listing's leads go changes in nobody's silence, on both engines: a claim is told to the
 * lead address and the other claimants in the claim's transaction; a confirmed lead email waits
 * for the notice to the address in force and takes effect when the outbox settles it (sent, or
 * failed for good), not when its claim was revoked meanwhile; the confirmation checks its link and
 * claim inside its transaction (a revocation or a later request landing between the page's read
 * and the write changes nothing); two requests at once leave one live link.
 */
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { confirmLeadEmail, type LeadEmailDeps, requestLeadEmail } from "../../src/domain/merchant-space/lead-email.ts";
import type { LeadEmailConfirmationStore } from "../../src/domain/merchant-space/lead-email-store.ts";
import { createLeadEmailTokens } from "../../src/domain/merchant-space/lead-email-token.ts";
import { claimNotice } from "../../src/domain/merchant-space/space-notices.ts";
import type { ClaimRecord, SpaceStore } from "../../src/domain/merchant-space/space-store.ts";
import { addMerchant } from "../../src/domain/merchants/add-merchant.ts";
import { decideInRegistry, type MerchantRegistryStore } from "../../src/domain/merchants/merchant-registry.ts";
import type { OutboxRepository } from "../../src/domain/outbox-store.ts";
import { isServiceError } from "../../src/errors/service-error.ts";
import { createCommuneLookup } from "../../src/seed/communes.ts";
import { createLeadEmailConfirmationRepository } from "../../src/store/lead-email-confirmation-repository.ts";
import { createMerchantRegistryRepository } from "../../src/store/merchant-registry-repository.ts";
import { createMerchantSpaceRepository } from "../../src/store/merchant-space-repository.ts";
import { createOutboxRepository, sqliteOutboxClaims } from "../../src/store/outbox-repository.ts";
import { createPostgresMerchantRegistryRepository } from "../../src/store/postgres/merchant-registry-repository.ts";
import { createPostgresOutboxRepository } from "../../src/store/postgres/outbox-repository.ts";
import { createPostgresLeadEmailConfirmationRepository } from "../../src/store/postgres/space-link-repositories.ts";
import { type OpenedStore, storeEngines } from "../helpers/store-engines.ts";
import { waitFor } from "../helpers/wait-for.ts";

const T0 = "2026-11-26T10:00:00.000Z";
const SIRET = "12345678200010";
const OLD = "ancien@boulangerie-martin.fr";
const secret = Buffer.alloc(32, 9);

interface Ports {
  registry: MerchantRegistryStore;
  confirmations: LeadEmailConfirmationStore;
  space: SpaceStore;
  outbox: OutboxRepository;
}

function portsOf(store: OpenedStore): Ports {
  if (store.sqlite) {
    return {
      registry: createMerchantRegistryRepository(store.sqlite),
      confirmations: createLeadEmailConfirmationRepository(store.sqlite),
      space: createMerchantSpaceRepository(store.sqlite),
      outbox: createOutboxRepository(store.sqlite, sqliteOutboxClaims(store.sqlite)),
    };
  }
  if (!store.postgres) throw new Error("no store");
  const { pool } = store.postgres;
  return {
    registry: createPostgresMerchantRegistryRepository(store.postgres),
    confirmations: createPostgresLeadEmailConfirmationRepository(pool),
    space: createMerchantSpaceRepository(store.postgres.storeDb),
    outbox: createPostgresOutboxRepository(store.postgres),
  };
}

function depsOf(ports: Ports, now = () => new Date(T0)): LeadEmailDeps {
  return {
    registry: ports.registry,
    communes: createCommuneLookup(),
    now,
    confirmations: ports.confirmations,
    tokens: createLeadEmailTokens(() => secret),
  };
}

const claimOf = (claimId: string, abId: string, email: string | null): ClaimRecord => ({
  claimId,
  abId,
  siren: SIRET.slice(0, 9),
  subject: `sub-${claimId}`,
  email,
  via: "proconnect",
  basis: "siret",
  acr: "eidas1",
  amr: null,
  idpId: null,
  lapsedAt: null,
  createdAt: T0,
  revokedAt: null,
  revokedBy: null,
  revokedReason: null,
});

/** A listing with a lead email in force and a live claim `c-1` (its notice written too). */
async function listing(store: OpenedStore): Promise<{ abId: string; ports: Ports }> {
  const ports = portsOf(store);
  const { abId } = await decideInRegistry(depsOf(ports), { sirets: [SIRET] }, (decision) =>
    addMerchant(
      { ...decision, randomId: () => "ab_notice01" },
      {
        siret: SIRET,
        legal_name: "SARL Boulangerie Martin",
        business_name: "Boulangerie Martin",
        naf_code: "10.71C",
        address: { street: "12 rue de la République", postal_code: "69002", city: "Lyon" },
        founded_on: "2015-03-02",
        email: OLD,
      },
      "operator:test",
    ),
  );
  await claim(ports, claimOf("c-1", abId, "gerante@boulangerie-martin.fr"));
  return { abId, ports };
}

function claim(ports: Ports, record: ClaimRecord): Promise<ClaimRecord> {
  return ports.space.insertClaim(
    record,
    { at: record.createdAt, actor: `merchant:${record.claimId}`, action: "claimed", reason: "via proconnect" },
    claimNotice(record),
  );
}

const noticesOf = (store: OpenedStore) =>
  store.rows<{ what: string; recipient: string; recipient_role: string; by_claim_id: string | null }>(
    `SELECT n.what, n.recipient, n.recipient_role, n.by_claim_id FROM space_notices n
     JOIN outbox o ON o.subject_id = n.notice_id AND o.kind = 'space_notice'
     ORDER BY n.at, n.by_claim_id, n.recipient_role DESC, n.recipient`,
  );

const emailOf = async (store: OpenedStore, abId: string) =>
  (await store.rows<{ email: string | null }>("SELECT email FROM merchants WHERE ab_id = $1", [abId]))[0]?.email;

/** Asks for a lead email and answers the link's token (the outbox writes it again from the id). */
async function asked(deps: LeadEmailDeps, abId: string, email: string, actor = "merchant:c-1"): Promise<string> {
  await requestLeadEmail(deps, { abId, actor }, email);
  const pending = await deps.confirmations.pendingOf(abId, T0);
  if (!pending) throw new Error("no request");
  return deps.tokens.issue(pending.confirmationId);
}

async function refusal(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    if (isServiceError(error)) return `${error.code}: ${error.message}`;
    throw error;
  }
  return "accepted";
}

/** Settles every due notice to `recipient` as the outbox would after delivering it (or failing for good). */
async function settleNoticesTo(ports: Ports, store: OpenedStore, recipient: string, outcome: "sent" | "failed") {
  const due = await ports.outbox.claimDue({
    now: "2999-01-01T00:00:00.000Z",
    leaseUntil: "2999-01-01T00:05:00.000Z",
    limit: 50,
  });
  const toRecipient = new Set(
    (
      await store.rows<{ notice_id: string }>("SELECT notice_id FROM space_notices WHERE recipient = $1", [recipient])
    ).map((row) => row.notice_id),
  );
  const at = "2026-11-26T10:05:00.000Z";
  const results = due.map((message) =>
    toRecipient.has(message.subjectId)
      ? outcome === "sent"
        ? { messageId: message.messageId, attempts: message.attempts, outcome, at }
        : { messageId: message.messageId, attempts: message.attempts, outcome, at, error: "550 no such user" }
      : // The other rows go back to the queue (a retry), untouched otherwise.
        {
          messageId: message.messageId,
          attempts: message.attempts,
          outcome: "retry" as const,
          nextAttemptAt: T0,
          error: "later",
        },
  );
  await ports.outbox.settle(results);
}

for (const engine of storeEngines()) {
  describe(`notices of claims and lead email changes on ${engine.name}`, () => {
    it("tells a claim to the lead address and the other claimants, in the claim's transaction, once", async () => {
      const store = await engine.open();
      const { abId, ports } = await listing(store);
      // A claimant whose address is the lead address is told once, as the lead address.
      await claim(ports, claimOf("c-2", abId, OLD.toUpperCase()));
      // The same person claiming again holds its claim: nothing new is told.
      await claim(ports, { ...claimOf("c-3", abId, OLD), subject: "sub-c-2" });
      await claim(ports, claimOf("c-4", abId, "associe@boulangerie-martin.fr"));
      const claimant = "gerante@boulangerie-martin.fr";
      expect(await noticesOf(store)).toEqual([
        { what: "claimed", recipient: OLD, recipient_role: "lead_address", by_claim_id: "c-1" },
        { what: "claimed", recipient: OLD, recipient_role: "lead_address", by_claim_id: "c-2" },
        { what: "claimed", recipient: claimant, recipient_role: "claimant", by_claim_id: "c-2" },
        { what: "claimed", recipient: OLD, recipient_role: "lead_address", by_claim_id: "c-4" },
        { what: "claimed", recipient: claimant, recipient_role: "claimant", by_claim_id: "c-4" },
      ]);
    });

    it("applies a confirmed lead email when the outbox settles its notice to the address in force, sent or failed", async () => {
      const store = await engine.open();
      const { abId, ports } = await listing(store);
      const deps = depsOf(ports);
      expect(await confirmLeadEmail(deps, abId, await asked(deps, abId, "nouvelle@boulangerie-martin.fr"))).toEqual({
        abId,
        email: "nouvelle@boulangerie-martin.fr",
        outcome: "waiting",
        current: OLD,
      });
      expect(await emailOf(store, abId)).toBe(OLD);
      // The claimant's notice settling changes nothing; the address in force's applies the change.
      await settleNoticesTo(ports, store, "gerante@boulangerie-martin.fr", "sent");
      expect(await emailOf(store, abId)).toBe(OLD);
      await settleNoticesTo(ports, store, OLD, "sent");
      expect(await emailOf(store, abId)).toBe("nouvelle@boulangerie-martin.fr");
      expect(
        await store.rows("SELECT actor, reason FROM merchant_events WHERE ab_id = $1 AND action = 'updated'", [abId]),
      ).toEqual([{ actor: "merchant:c-1", reason: "applied once its notice to the previous lead address was sent" }]);

      // Failed for good: it applies all the same, the audit log saying the old address was not told.
      await confirmLeadEmail(deps, abId, await asked(deps, abId, "troisieme@boulangerie-martin.fr"));
      await settleNoticesTo(ports, store, "nouvelle@boulangerie-martin.fr", "failed");
      expect(await emailOf(store, abId)).toBe("troisieme@boulangerie-martin.fr");

      // Its claim revoked while it waits: the change does not apply, and stops waiting.
      await confirmLeadEmail(deps, abId, await asked(deps, abId, "quatrieme@boulangerie-martin.fr"));
      await ports.space.revokeClaims(
        [{ claimId: "c-1", event: { at: T0, actor: "operator:test", action: "claim_revoked", reason: "test" } }],
        { at: T0, by: "operator:test", reason: "test" },
        { subjects: ["sub-c-1"], email: null },
      );
      await settleNoticesTo(ports, store, "troisieme@boulangerie-martin.fr", "sent");
      expect(await emailOf(store, abId)).toBe("troisieme@boulangerie-martin.fr");
      expect(await ports.confirmations.waitingOf(abId)).toBeNull();
    });

    it("checks the link and its claim inside the confirmation's transaction", async () => {
      const store = await engine.open();
      const { abId, ports } = await listing(store);
      const deps = depsOf(ports);
      // What lands between the page's read of the link and the store's transaction: a revocation,
      // then (another link) a later request withdrawing it.
      const landingFirst = (land: () => Promise<unknown>): LeadEmailDeps => ({
        ...deps,
        confirmations: {
          ...ports.confirmations,
          async confirm(confirmationId, at, decide) {
            await land();
            return ports.confirmations.confirm(confirmationId, at, decide);
          },
        },
      });
      const revoked = landingFirst(() =>
        ports.space.revokeClaims(
          [{ claimId: "c-1", event: { at: T0, actor: "operator:test", action: "claim_revoked", reason: "test" } }],
          { at: T0, by: "operator:test", reason: "test" },
          { subjects: ["sub-c-1"], email: null },
        ),
      );
      const token = await asked(deps, abId, "pirate@exemple.fr");
      expect(await refusal(confirmLeadEmail(revoked, abId, token))).toBe(
        "CONFLICT: This confirmation link was asked for through a claim revoked since",
      );
      await claim(ports, claimOf("c-2", abId, null));
      const second = await asked(deps, abId, "autre@exemple.fr", "merchant:c-2");
      const replaced = landingFirst(() =>
        requestLeadEmail(deps, { abId, actor: "merchant:c-2" }, "plus-tard@exemple.fr"),
      );
      expect(await refusal(confirmLeadEmail(replaced, abId, second))).toBe(
        "CONFLICT: This confirmation link was replaced by a later request; use the latest email",
      );
      expect(await emailOf(store, abId)).toBe(OLD);
      expect(
        await store.rows("SELECT count(*) AS n FROM lead_email_confirmations WHERE confirmed_at IS NOT NULL"),
      ).toEqual([{ n: 0 }]);
      expect((await noticesOf(store)).filter((notice) => notice.what !== "claimed")).toEqual([]);
    });

    it("refuses a link asked through a claim that lapsed since (a sign-in no longer reaching the listing)", async () => {
      const store = await engine.open();
      const { abId, ports } = await listing(store);
      const deps = depsOf(ports);
      const token = await asked(deps, abId, "pirate@exemple.fr");
      await ports.space.recheckClaims(
        "sub-c-1",
        { siret: null, siren: null, acr: "eidas1" },
        [
          {
            claimId: "c-1",
            abId,
            lapsed: true,
            event: { at: T0, actor: "merchant:c-1", action: "claim_lapsed", reason: "siret gone" },
          },
        ],
        T0,
      );
      expect(await refusal(confirmLeadEmail(deps, abId, token))).toBe(
        "CONFLICT: This confirmation link was asked for through a claim revoked since",
      );
      expect(await emailOf(store, abId)).toBe(OLD);
    });

    it("leaves one live link when two requests of one listing run at once", async () => {
      const store = await engine.open();
      const { abId } = await listing(store);
      const machines = [depsOf(portsOf(store.another())), depsOf(portsOf(store.another()))];
      const requests = () =>
        Promise.all(
          machines.map((deps, index) =>
            requestLeadEmail(deps, { abId, actor: "merchant:c-1" }, `demande-${index}@boulangerie-martin.fr`),
          ),
        );
      if (store.postgres) {
        // Both requests are held at their outbox row, after whatever each did before it, until
        // both wait: without the listing's lock each would have withdrawn nothing yet.
        const holder: pg.PoolClient = await store.postgres.pool.connect();
        try {
          await holder.query("BEGIN");
          await holder.query("LOCK TABLE outbox IN SHARE MODE");
          const running = requests();
          // Read outside the holder's transaction: the statistics views keep one snapshot per transaction.
          await waitFor(
            async () => {
              const [waiting] = await store.rows<{ n: number }>(
                "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
              );
              return (waiting?.n ?? 0) >= 2 ? true : undefined;
            },
            15_000,
            "both requests waiting",
          );
          await holder.query("COMMIT");
          await running;
        } finally {
          holder.release();
        }
      } else {
        await requests();
      }
      expect(
        await store.rows(
          "SELECT count(*) AS n FROM lead_email_confirmations WHERE confirmed_at IS NULL AND withdrawn_at IS NULL",
        ),
      ).toEqual([{ n: 1 }]);
    });
  });
}
