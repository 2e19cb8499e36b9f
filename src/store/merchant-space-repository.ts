/**
 * The merchant space's sessions, sign-ins and claims, one repository on both engines (the port:
 * src/domain/merchant-space/space-store.ts). What SQLite's single writer made safe, PostgreSQL's
 * rows make safe the same way here: a live claim per (listing, person) is the partial unique
 * index merchant_claims_live (an insert that meets it does nothing, then the live claim is read
 * back); a revocation is one UPDATE ... WHERE revoked_at IS NULL, a sign-in is taken by one
 * UPDATE ... RETURNING (of two at once, one finds the row changed).
 */
import type {
  ClaimBasis,
  ClaimEvent,
  ClaimRecord,
  PersonKeys,
  SessionRecord,
  SpaceListing,
  SpaceNotice,
  SpaceStore,
  SpaceVia,
} from "../domain/merchant-space/space-store.ts";
import { and, asc, desc, eq, gt, gte, inArray, isNull, lt, lte, or, sql } from "./drizzle.ts";
import { merchantClaims, merchantEvents, merchants, proSessions, proSignIns } from "./schema.ts";
import { noticeWrites } from "./space-notice-repository.ts";
import { byKey, inTransaction, rows, run, type Statement, type StoreDb } from "./store-db.ts";

export type { SpaceStore } from "../domain/merchant-space/space-store.ts";

/** `amr` is kept as a JSON array of strings; anything else reads as null. */
export function amrOf(text: string | null): string[] | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) && value.every((item) => typeof item === "string") ? value : null;
  } catch {
    return null;
  }
}

export const amrText = (amr: string[] | null): string | null => (amr === null ? null : JSON.stringify(amr));

const sessionOf = (row: typeof proSessions.$inferSelect): SessionRecord => ({
  sessionId: row.sessionId,
  tokenHash: row.tokenHash,
  person: {
    subject: row.subject,
    email: row.email,
    givenName: row.givenName,
    usualName: row.usualName,
    siret: row.siret,
    siren: row.siren,
    via: row.via as SpaceVia,
    acr: row.acr,
    amr: amrOf(row.amr),
    idpId: row.idpId,
  },
  idToken: row.idToken,
  createdAt: row.createdAt,
  lastSeenAt: row.lastSeenAt,
  idleExpiresAt: row.idleExpiresAt,
  absoluteExpiresAt: row.absoluteExpiresAt,
  endedAt: row.endedAt,
});

const claimOf = (row: typeof merchantClaims.$inferSelect): ClaimRecord => ({
  claimId: row.claimId,
  abId: row.abId,
  siren: row.siren,
  subject: row.subject,
  email: row.email,
  via: row.via as SpaceVia,
  basis: row.basis as ClaimBasis | null,
  acr: row.acr,
  amr: amrOf(row.amr),
  idpId: row.idpId,
  createdAt: row.createdAt,
  lapsedAt: row.lapsedAt,
  revokedAt: row.revokedAt,
  revokedBy: row.revokedBy,
  revokedReason: row.revokedReason,
});

const LISTING = {
  abId: merchants.abId,
  siret: merchants.siret,
  businessName: merchants.businessName,
  legalName: merchants.legalName,
  street: merchants.street,
  postalCode: merchants.postalCode,
  city: merchants.city,
  status: merchants.status,
};

/** A claim event's `changes`: the claim that now opens the listing (claimed, restored) or no longer does. */
export function claimChanges(claimId: string, event: ClaimEvent): string {
  const opens = event.action === "claimed" || event.action === "claim_restored";
  return JSON.stringify(opens ? { claim: { from: null, to: claimId } } : { claim: { from: claimId, to: null } });
}

/** The rows held under one of the person's subjects or with its email (without case: `email`, lowered). */
function ofPerson(
  person: PersonKeys,
  subject: typeof proSessions.subject | typeof merchantClaims.subject,
  email: unknown,
) {
  const bySubject = inArray(subject, person.subjects);
  return person.email === null ? bySubject : or(bySubject, eq(sql`${email}`, person.email.toLowerCase()));
}

/**
 * An entry of a merchant's audit log that changes who may act on the merchant, not its record (a
 * claim, a letter locked): it carries the revision the record is at, which does not move
 * (nothing to publish, no change-feed row).
 */
export function* auditWrites(
  tx: StoreDb,
  abId: string,
  entry: { at: string; actor: string; action: string; changes: string; reason: string | null },
): Generator<Statement, void, unknown> {
  const [merchant] = yield* rows(
    tx.select({ revision: merchants.revision }).from(merchants).where(eq(merchants.abId, abId)),
  );
  yield* run(tx.insert(merchantEvents).values({ abId, ...entry, revision: merchant?.revision ?? 0 }));
}

/** A claim's audit event. */
function claimEventWrites(tx: StoreDb, abId: string, claimId: string, event: ClaimEvent) {
  return auditWrites(tx, abId, { ...event, changes: claimChanges(claimId, event) });
}

/**
 * Writes a claim, its audit event and its notice unless the person already holds a live claim on
 * the listing (that one is answered), in the transaction `tx` is: the space's insertClaim, and the
 * letter store's spend, which records the claim with the letter it spends.
 */
export function* claimWrites(
  tx: StoreDb,
  claim: ClaimRecord,
  event: ClaimEvent,
  notice: SpaceNotice,
): Generator<Statement, ClaimRecord, unknown> {
  const inserted = yield* rows(
    tx
      .insert(merchantClaims)
      .values({
        claimId: claim.claimId,
        abId: claim.abId,
        siren: claim.siren,
        subject: claim.subject,
        email: claim.email,
        emailKey: claim.email?.toLowerCase() ?? null,
        via: claim.via,
        basis: claim.basis,
        acr: claim.acr,
        amr: amrText(claim.amr),
        idpId: claim.idpId,
        createdAt: claim.createdAt,
      })
      // A new id meets only merchant_claims_live: the person's live claim on the listing.
      .onConflictDoNothing()
      .returning({ claimId: merchantClaims.claimId }),
  );
  if (inserted.length === 0) {
    const [held] = yield* rows(
      tx
        .select()
        .from(merchantClaims)
        .where(
          and(
            eq(merchantClaims.abId, claim.abId),
            eq(merchantClaims.subject, claim.subject),
            isNull(merchantClaims.revokedAt),
          ),
        ),
    );
    if (!held) throw new Error("merchant_claims: the live claim that refused the insert is gone");
    return claimOf(held);
  }
  yield* claimEventWrites(tx, claim.abId, claim.claimId, event);
  yield* noticeWrites(tx, notice);
  return claim;
}

export function createMerchantSpaceRepository(db: StoreDb): SpaceStore {
  const sessionByToken = byKey(db, proSessions, proSessions.tokenHash, "tokenHash");
  const touch = db
    .update(proSessions)
    .set({
      lastSeenAt: sql`${sql.placeholder("lastSeenAt")}`,
      idleExpiresAt: sql`${sql.placeholder("idleExpiresAt")}`,
    })
    .where(and(eq(proSessions.sessionId, sql.placeholder("sessionId")), isNull(proSessions.endedAt)))
    .prepare();
  const claimById = byKey(db, merchantClaims, merchantClaims.claimId, "claimId");
  const claims = (where: ReturnType<typeof and>, order: "newest first" | "oldest first") =>
    db
      .select()
      .from(merchantClaims)
      .where(where)
      // Ties (claims made at one instant) by id: PostgreSQL has no insertion order to fall back on.
      .orderBy(
        ...(order === "newest first"
          ? [desc(merchantClaims.createdAt), desc(merchantClaims.claimId)]
          : [asc(merchantClaims.createdAt), asc(merchantClaims.claimId)]),
      );

  return {
    insertSession: (session, replacing) =>
      inTransaction(db, function* (tx) {
        if (replacing !== null) {
          yield* run(
            tx
              .update(proSessions)
              .set({ endedAt: session.createdAt, endedReason: "replaced" })
              .where(and(eq(proSessions.tokenHash, replacing), isNull(proSessions.endedAt))),
          );
        }
        yield* run(
          tx.insert(proSessions).values({
            sessionId: session.sessionId,
            tokenHash: session.tokenHash,
            ...session.person,
            amr: amrText(session.person.amr),
            idToken: session.idToken,
            createdAt: session.createdAt,
            lastSeenAt: session.lastSeenAt,
            idleExpiresAt: session.idleExpiresAt,
            absoluteExpiresAt: session.absoluteExpiresAt,
          }),
        );
      }),
    async findSession(tokenHash) {
      const row = await sessionByToken.get({ tokenHash });
      return row ? sessionOf(row) : null;
    },
    async touchSession(sessionId, lastSeenAt, idleExpiresAt) {
      await touch.run({ sessionId, lastSeenAt, idleExpiresAt });
    },
    async endSession(sessionId, at, reason) {
      await db
        .update(proSessions)
        .set({ endedAt: at, endedReason: reason })
        .where(and(eq(proSessions.sessionId, sessionId), isNull(proSessions.endedAt)));
    },
    insertSignIn: (signIn) =>
      inTransaction(db, function* (tx) {
        // Sign-ins over an hour old are of no use to anyone: deleted as new ones come.
        const anHourBefore = new Date(Date.parse(signIn.createdAt) - 60 * 60 * 1000).toISOString();
        yield* run(tx.delete(proSignIns).where(lt(proSignIns.expiresAt, anHourBefore)));
        yield* run(tx.insert(proSignIns).values(signIn));
      }),
    async takeSignIn(tokenHash, at) {
      const [row] = await db
        .update(proSignIns)
        .set({ usedAt: at })
        .where(and(eq(proSignIns.tokenHash, tokenHash), isNull(proSignIns.usedAt), gt(proSignIns.expiresAt, at)))
        .returning();
      if (!row) return null;
      const { usedAt: _usedAt, ...signIn } = row;
      return signIn;
    },
    async listing(abId) {
      const [row] = await db.select(LISTING).from(merchants).where(eq(merchants.abId, abId));
      return row ?? null;
    },
    async listingsOf({ siret, siren }) {
      const found = new Map<string, SpaceListing>();
      if (siret !== null) {
        const bySiret = await db
          .select(LISTING)
          .from(merchants)
          .where(eq(merchants.siret, siret))
          .orderBy(asc(merchants.siret));
        for (const row of bySiret) found.set(row.abId, row);
      }
      if (siren !== null && /^\d{9}$/.test(siren)) {
        // The SIRETs of one company share its nine first digits: a range on the siret index.
        const company = await db
          .select(LISTING)
          .from(merchants)
          .where(and(gte(merchants.siret, `${siren}00000`), lte(merchants.siret, `${siren}99999`)))
          .orderBy(asc(merchants.siret))
          .limit(500);
        for (const row of company) found.set(row.abId, row);
      }
      return [...found.values()];
    },
    insertClaim: (claim, event, notice) => inTransaction(db, (tx) => claimWrites(tx, claim, event, notice)),
    async findClaim(claimId) {
      const row = await claimById.get({ claimId });
      return row ? claimOf(row) : null;
    },
    claimsOfSubject: async (subject) =>
      (await claims(eq(merchantClaims.subject, subject), "newest first")).map(claimOf),
    claimsOfPerson: async (person) =>
      (await claims(ofPerson(person, merchantClaims.subject, merchantClaims.emailKey), "oldest first")).map(claimOf),
    claimsOfListing: async (abId) => (await claims(eq(merchantClaims.abId, abId), "oldest first")).map(claimOf),
    revokeClaims: (revoking, revocation, person) =>
      inTransaction(db, function* (tx) {
        const revoked: string[] = [];
        for (const { claimId, event } of revoking) {
          const [claim] = yield* rows(
            tx
              .update(merchantClaims)
              .set({ revokedAt: revocation.at, revokedBy: revocation.by, revokedReason: revocation.reason })
              .where(and(eq(merchantClaims.claimId, claimId), isNull(merchantClaims.revokedAt)))
              .returning({ abId: merchantClaims.abId }),
          );
          if (!claim) continue;
          yield* claimEventWrites(tx, claim.abId, claimId, event);
          revoked.push(claimId);
        }
        if (revoked.length > 0) {
          yield* run(
            tx
              .update(proSessions)
              .set({ endedAt: revocation.at, endedReason: "claim_revoked" })
              .where(
                and(
                  isNull(proSessions.endedAt),
                  ofPerson(person, proSessions.subject, sql`lower(${proSessions.email})`),
                ),
              ),
          );
        }
        return revoked;
      }),
    recheckClaims: (subject, identity, rechecks, at) =>
      inTransaction(db, function* (tx) {
        for (const recheck of rechecks) {
          const changed = yield* rows(
            tx
              .update(merchantClaims)
              .set({ lapsedAt: recheck.lapsed ? at : null })
              .where(and(eq(merchantClaims.claimId, recheck.claimId), isNull(merchantClaims.revokedAt)))
              .returning({ claimId: merchantClaims.claimId }),
          );
          if (changed.length === 1) yield* claimEventWrites(tx, recheck.abId, recheck.claimId, recheck.event);
        }
        // The sessions of a subject that carry another identity than its newest sign-in's (nulls equal).
        yield* run(
          tx
            .update(proSessions)
            .set({ endedAt: at, endedReason: "identity_changed" })
            .where(
              and(
                eq(proSessions.subject, subject),
                isNull(proSessions.endedAt),
                sql`NOT (${proSessions.siret} IS NOT DISTINCT FROM ${identity.siret} AND ${proSessions.siren} IS NOT DISTINCT FROM ${identity.siren} AND ${proSessions.acr} IS NOT DISTINCT FROM ${identity.acr})`,
              ),
            ),
        );
      }),
  };
}
