/**
 * The merchant space's store on both engines (src/store/merchant-space-repository.ts, one
 * repository over each engine's StoreDb): sessions replaced, touched and
 * ended; a sign-in taken once and only before it expires; listings by SIRET and SIREN; one live
 * claim per person and listing (also when claimed at once through two connections), its events in
 * the audit log, a revocation ending the person's sessions once.
 */
import { describe, expect, it } from "vitest";
import { claimNotice } from "../../src/domain/merchant-space/space-notices.ts";
import type { ClaimRecord, SessionRecord, SpaceStore } from "../../src/domain/merchant-space/space-store.ts";
import { createMerchantSpaceRepository } from "../../src/store/merchant-space-repository.ts";
import { insertMerchantRow, type OpenedStore, storeEngines } from "../helpers/store-engines.ts";

const T0 = "2026-11-26T10:00:00.000Z";
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();

function spaceOf(store: OpenedStore): SpaceStore {
  return createMerchantSpaceRepository(store.storeDb);
}

const session = (id: string, subject: string, tokenHash: string): SessionRecord => ({
  sessionId: id,
  tokenHash,
  person: {
    subject,
    email: "gerant@exemple.fr",
    givenName: "Paul",
    usualName: "Gérant",
    siret: "73282932000074",
    siren: "732829320",
    via: "proconnect",
    acr: "eidas1",
    amr: ["pwd", "mail"],
    idpId: "idp-test",
  },
  idToken: "eyJ.id.token",
  createdAt: T0,
  lastSeenAt: T0,
  idleExpiresAt: at(30),
  absoluteExpiresAt: at(720),
  endedAt: null,
});

const claim = (id: string, abId: string, subject: string): ClaimRecord => ({
  claimId: id,
  abId,
  siren: "732829320",
  subject,
  email: "gerant@exemple.fr",
  via: "proconnect",
  basis: "siret",
  acr: "eidas1",
  amr: ["pwd"],
  idpId: "idp-test",
  createdAt: T0,
  lapsedAt: null,
  revokedAt: null,
  revokedBy: null,
  revokedReason: null,
});

for (const engine of storeEngines()) {
  describe(`the merchant space's store on ${engine.name}`, () => {
    it("replaces, touches and ends sessions; takes a sign-in once, before it expires", async () => {
      const store = await engine.open();
      const space = spaceOf(store);
      await space.insertSession(session("s-1", "sub-1", "hash-1"), null);
      await space.insertSession(session("s-2", "sub-1", "hash-2"), "hash-1");
      expect((await space.findSession("hash-1"))?.endedAt).toBe(T0);
      await space.touchSession("s-2", at(5), at(35));
      expect(await space.findSession("hash-2")).toEqual({
        ...session("s-2", "sub-1", "hash-2"),
        lastSeenAt: at(5),
        idleExpiresAt: at(35),
      });
      await space.endSession("s-2", at(6), "sign_out");
      expect((await space.findSession("hash-2"))?.endedAt).toBe(at(6));
      expect(await space.findSession("unknown")).toBeNull();

      const signIn = {
        tokenHash: "t-1",
        state: "st",
        nonce: "no",
        codeVerifier: "cv",
        createdAt: T0,
        expiresAt: at(10),
      };
      await space.insertSignIn(signIn);
      await space.insertSignIn({ ...signIn, tokenHash: "t-2" });
      expect(await space.takeSignIn("t-1", at(1))).toEqual(signIn);
      expect(await space.takeSignIn("t-1", at(2))).toBeNull();
      expect(await space.takeSignIn("t-2", at(11))).toBeNull();
    });

    it("finds listings by SIRET and by the SIREN's establishments", async () => {
      const store = await engine.open();
      await insertMerchantRow(store, "ab_space001");
      await store.run("UPDATE merchants SET siret = '73282932000082' WHERE ab_id = 'ab_space001'");
      await insertMerchantRow(store, "ab_space002");
      const space = spaceOf(store);
      expect((await space.listingsOf({ siret: "73282932000074", siren: null })).map((one) => one.abId)).toEqual([
        "ab_space002",
      ]);
      expect((await space.listingsOf({ siret: null, siren: "732829320" })).map((one) => one.abId)).toEqual([
        "ab_space002",
        "ab_space001",
      ]);
      expect(await space.listing("ab_space001")).toMatchObject({
        siret: "73282932000082",
        city: "Paris",
        status: "ACTIVE",
      });
      expect(await space.listing("ab_nothing0")).toBeNull();
    });

    it("keeps one live claim per person and listing, even claimed at once; a revocation ends the person's sessions", async () => {
      const store = await engine.open();
      await insertMerchantRow(store, "ab_space001");
      const space = spaceOf(store);
      const machines = [spaceOf(store.another()), spaceOf(store.another())];
      const event = { at: T0, actor: "merchant:c-1", action: "claimed" as const, reason: "via proconnect" };
      const claimed = await Promise.all(
        ["c-1", "c-2", "c-3", "c-4"].map((id, index) =>
          machines[index % 2]?.insertClaim(
            claim(id, "ab_space001", "sub-1"),
            event,
            claimNotice(claim(id, "ab_space001", "sub-1")),
          ),
        ),
      );
      const kept = new Set(claimed.map((one) => one?.claimId));
      expect(kept.size).toBe(1);
      const [claimId] = [...kept] as [string];
      expect(await space.claimsOfListing("ab_space001")).toEqual([claim(claimId, "ab_space001", "sub-1")]);
      expect((await space.claimsOfSubject("sub-1")).map((one) => one.claimId)).toEqual([claimId]);

      await space.insertSession(session("s-1", "sub-1", "hash-1"), null);
      const revocation = { at: at(60), by: "operator:alice", reason: "usurpation signalée" };
      const revokedEvent = {
        at: at(60),
        actor: "operator:alice",
        action: "claim_revoked" as const,
        reason: "usurpation",
      };
      const twice = await Promise.all(
        machines.map((machine) =>
          machine.revokeClaims([{ claimId, event: revokedEvent }], revocation, { subjects: ["sub-1"], email: null }),
        ),
      );
      expect(twice.map((revoked) => revoked.length).sort()).toEqual([0, 1]);
      expect(await space.findClaim(claimId)).toMatchObject({ revokedAt: at(60), revokedBy: "operator:alice" });
      expect((await space.findSession("hash-1"))?.endedAt).toBe(at(60));
      expect(
        await store.rows("SELECT actor, action, revision FROM merchant_events WHERE ab_id = $1 ORDER BY event_id", [
          "ab_space001",
        ]),
      ).toEqual([
        { actor: "merchant:c-1", action: "claimed", revision: 1 },
        { actor: "operator:alice", action: "claim_revoked", revision: 1 },
      ]);
      // Claimed again after the revocation: a new live claim.
      expect(
        (
          await space.insertClaim(
            claim("c-9", "ab_space001", "sub-1"),
            event,
            claimNotice(claim("c-9", "ab_space001", "sub-1")),
          )
        ).claimId,
      ).toBe("c-9");
    });

    it("keeps a claim's proof, finds a person's claims by subject or email without case, revokes them all and ends every session of the person", async () => {
      const store = await engine.open();
      await insertMerchantRow(store, "ab_space001");
      const space = spaceOf(store);
      const event = (id: string) => ({ at: T0, actor: `merchant:${id}`, action: "claimed" as const, reason: null });
      const told = (record: ClaimRecord) => claimNotice(record);
      await space.insertClaim(
        claim("c-1", "ab_space001", "sub-1"),
        event("c-1"),
        told(claim("c-1", "ab_space001", "sub-1")),
      );
      // The same person through another identity provider (another sub), its address in capitals.
      const second = { ...claim("c-2", "ab_space001", "sub-2"), email: "Gerant@Exemple.FR", amr: null };
      await space.insertClaim(second, event("c-2"), told(second));
      const third = { ...claim("c-3", "ab_space001", "sub-3"), email: "autre@exemple.fr" };
      await space.insertClaim(third, event("c-3"), told(third));
      expect(await space.findClaim("c-1")).toEqual(claim("c-1", "ab_space001", "sub-1"));
      const person = { subjects: ["sub-1"], email: "GERANT@exemple.fr" };
      expect((await space.claimsOfPerson(person)).map((one) => one.claimId)).toEqual(["c-1", "c-2"]);
      expect(
        (await space.claimsOfPerson({ subjects: [], email: "autre@exemple.fr" })).map((one) => one.claimId),
      ).toEqual(["c-3"]);
      await space.insertSession(session("s-1", "sub-1", "hash-1"), null);
      await space.insertSession(
        {
          ...session("s-2", "sub-2", "hash-2"),
          person: { ...session("s-2", "sub-2", "hash-2").person, email: "gerant@EXEMPLE.fr" },
        },
        null,
      );
      await space.insertSession(
        {
          ...session("s-3", "sub-3", "hash-3"),
          person: { ...session("s-3", "sub-3", "hash-3").person, email: "autre@exemple.fr" },
        },
        null,
      );
      const revoked = { at: at(60), actor: "operator:alice", action: "claim_revoked" as const, reason: "usurpation" };
      expect(
        await space.revokeClaims(
          [
            { claimId: "c-1", event: revoked },
            { claimId: "c-2", event: revoked },
          ],
          { at: at(60), by: "operator:alice", reason: "usurpation" },
          { subjects: ["sub-1", "sub-2"], email: "gerant@exemple.fr" },
        ),
      ).toEqual(["c-1", "c-2"]);
      expect((await space.findSession("hash-1"))?.endedAt).toBe(at(60));
      expect((await space.findSession("hash-2"))?.endedAt).toBe(at(60));
      expect((await space.findSession("hash-3"))?.endedAt).toBeNull();
      expect((await space.findClaim("c-3"))?.revokedAt).toBeNull();
    });

    it("lapses and restores claims at a sign-in's re-check, and ends the subject's sessions of another identity", async () => {
      const store = await engine.open();
      await insertMerchantRow(store, "ab_space001");
      const space = spaceOf(store);
      await space.insertClaim(
        claim("c-1", "ab_space001", "sub-1"),
        { at: T0, actor: "merchant:c-1", action: "claimed", reason: null },
        claimNotice(claim("c-1", "ab_space001", "sub-1")),
      );
      await space.insertSession(session("s-1", "sub-1", "hash-1"), null);
      await space.insertSession(session("s-2", "sub-1", "hash-2"), null);
      await space.insertSession(
        { ...session("s-3", "sub-1", "hash-3"), person: { ...session("s-3", "sub-1", "hash-3").person, siret: null } },
        null,
      );
      const lapse = { at: at(10), actor: "merchant:c-1", action: "claim_lapsed" as const, reason: "siret gone" };
      await space.recheckClaims(
        "sub-1",
        { siret: null, siren: "732829320", acr: "eidas1" },
        [{ claimId: "c-1", abId: "ab_space001", lapsed: true, event: lapse }],
        at(10),
      );
      expect((await space.findClaim("c-1"))?.lapsedAt).toBe(at(10));
      // The sessions that still say the old SIRET end; the one that says what the sign-in says stays.
      expect((await space.findSession("hash-1"))?.endedAt).toBe(at(10));
      expect((await space.findSession("hash-2"))?.endedAt).toBe(at(10));
      expect((await space.findSession("hash-3"))?.endedAt).toBeNull();
      const restore = { at: at(20), actor: "merchant:c-1", action: "claim_restored" as const, reason: "siret back" };
      await space.recheckClaims(
        "sub-1",
        { siret: "73282932000074", siren: "732829320", acr: "eidas1" },
        [{ claimId: "c-1", abId: "ab_space001", lapsed: false, event: restore }],
        at(20),
      );
      expect((await space.findClaim("c-1"))?.lapsedAt).toBeNull();
      expect(
        await store.rows("SELECT action, changes FROM merchant_events WHERE ab_id = $1 ORDER BY event_id", [
          "ab_space001",
        ]),
      ).toEqual([
        { action: "claimed", changes: '{"claim":{"from":null,"to":"c-1"}}' },
        { action: "claim_lapsed", changes: '{"claim":{"from":"c-1","to":null}}' },
        { action: "claim_restored", changes: '{"claim":{"from":null,"to":"c-1"}}' },
      ]);
    });
  });
}
