/**
 * The merchant space's rules (src/domain/merchant-space/) on a real store: sessions (idle and
 * absolute expiry, rotation at sign-in, CSRF bound to the session, sign-out of an expired one),
 * ProConnect's assurance levels, and claims (the person's SIRET, its company's SIREN only as a
 * certified manager, several people of one company, suspended and archived listings refused, the
 * audit log with the proof, the re-check at each sign-in, revocation of the person by any door
 * ending its sessions at once, no access to another merchant's space).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.ts";
import {
  assuranceRefusal,
  COMPANY_MANAGER_ACR,
  requestedAcrValues,
} from "../../src/domain/merchant-space/assurance.ts";
import { recheckClaims } from "../../src/domain/merchant-space/claim-recheck.ts";
import {
  ClaimRefusedError,
  claimsOfListing,
  createClaim,
  listClaimsOf,
  listingsForPerson,
  requireClaimedListing,
  revokeClaim,
} from "../../src/domain/merchant-space/claims.ts";
import {
  isSessionCsrfToken,
  openSession,
  readSession,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  type SpaceDeps,
  signOut,
} from "../../src/domain/merchant-space/sessions.ts";
import type { SpacePerson } from "../../src/domain/merchant-space/space-store.ts";
import { addMerchant } from "../../src/domain/merchants/add-merchant.ts";
import { changeMerchantStatus } from "../../src/domain/merchants/change-merchant-status.ts";
import type { MerchantDecisionDeps } from "../../src/domain/merchants/merchant-registry.ts";
import { anonymizeExpired } from "../../src/domain/privacy/anonymize-expired.ts";
import { makeSiret } from "../../src/domain/siret.ts";
import { isServiceError } from "../../src/errors/service-error.ts";
import { createCommuneLookup } from "../../src/seed/communes.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { createMerchantRegistryView } from "../../src/store/merchant-registry-repository.ts";
import { createMerchantSpaceRepository } from "../../src/store/merchant-space-repository.ts";
import { createRetentionRepository } from "../../src/store/retention-repository.ts";

const START = Date.parse("2026-11-26T09:00:00.000Z");
let clock = START;
let dataDir: string;
let db: Db;
let deps: SpaceDeps;
let lifecycle: MerchantDecisionDeps;

const COMPANY = "12345678";
const OTHER_COMPANY = "87654321";
const siretA = makeSiret(COMPANY, "0001");
const siretB = makeSiret(COMPANY, "0002");
const siretOther = makeSiret(OTHER_COMPANY, "0001");
let abA: string;
let abB: string;
let abOther: string;

function add(siret: string, name: string): string {
  return addMerchant(
    lifecycle,
    {
      siret,
      legal_name: `SARL ${name}`,
      business_name: name,
      naf_code: "10.71C",
      address: { street: "12 rue de la République", postal_code: "69002", city: "Lyon" },
      founded_on: "2015-03-02",
    },
    "operator:test",
  ).abId;
}

const person = (overrides: Partial<SpacePerson> = {}): SpacePerson => ({
  subject: "sub-camille",
  email: "camille@exemple.fr",
  givenName: "Camille",
  usualName: "Martin",
  siret: siretA,
  siren: siretA.slice(0, 9),
  via: "proconnect",
  acr: "eidas1",
  amr: ["pwd", "mail"],
  idpId: "idp-proconnect-identite",
  ...overrides,
});

/** The person as a certified manager of its company (ProConnect's certification-dirigeant). */
const manager = (overrides: Partial<SpacePerson> = {}) => person({ acr: COMPANY_MANAGER_ACR, ...overrides });

beforeEach(() => {
  clock = START;
  dataDir = mkdtempSync(path.join(tmpdir(), "abeille-space-"));
  db = openDatabase(path.join(dataDir, "abeille.db"));
  const now = () => new Date(clock);
  const secret = Buffer.alloc(32, 7);
  deps = { store: createMerchantSpaceRepository(db), now, csrfSecret: () => secret };
  lifecycle = { registry: createMerchantRegistryView(db), communes: createCommuneLookup(), now };
  abA = add(siretA, "Boulangerie Martin");
  abB = add(siretB, "Boulangerie Martin Croix-Rousse");
  abOther = add(siretOther, "Fromagerie Dubois");
});

afterEach(() => {
  db.$client.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function refusalOf(work: () => unknown): Promise<string> {
  try {
    await work();
  } catch (error) {
    if (error instanceof ClaimRefusedError) return `refused:${error.refusal}`;
    if (isServiceError(error)) return error.code;
    throw error;
  }
  return "allowed";
}

describe("sessions", () => {
  it("opens a session that the token reads back, with the person, and stores only the token's SHA-256", async () => {
    const { token, session } = await openSession(deps, person(), { idToken: "id.token.value" });
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const read = await readSession(deps, token);
    expect(read).toEqual(session);
    expect(read?.person).toEqual(person());
    expect(read?.idToken).toBe("id.token.value");
    const stored = db.$client.prepare("SELECT token_hash FROM pro_sessions").pluck().all();
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(stored[0]).not.toContain(token);
    expect(await readSession(deps, "x".repeat(43))).toBeNull();
    expect(await readSession(deps, null)).toBeNull();
  });

  it("ends a session left idle, and one past its absolute expiry however used", async () => {
    const idle = await openSession(deps, person());
    clock += SESSION_IDLE_MS - 1000;
    expect(await readSession(deps, idle.token)).not.toBeNull();
    clock += SESSION_IDLE_MS - 1000; // used 29 min 59 s ago: the use above moved the idle expiry
    expect(await readSession(deps, idle.token)).not.toBeNull();
    clock += SESSION_IDLE_MS;
    expect(await readSession(deps, idle.token)).toBeNull();

    clock = START;
    const used = await openSession(deps, person({ subject: "sub-other" }));
    for (let minute = 0; minute < SESSION_ABSOLUTE_MS / 60_000 - 10; minute += 10) {
      clock = START + minute * 60_000;
      expect(await readSession(deps, used.token), `minute ${minute}`).not.toBeNull();
    }
    clock = START + SESSION_ABSOLUTE_MS;
    expect(await readSession(deps, used.token)).toBeNull();
  });

  it("rotates at sign-in: the browser's previous session ends with the new one", async () => {
    const before = await openSession(deps, person());
    const after = await openSession(deps, person(), { replacing: before.token });
    expect(await readSession(deps, before.token)).toBeNull();
    expect((await readSession(deps, after.token))?.sessionId).toBe(after.session.sessionId);
  });

  it("ends a session at sign-out", async () => {
    const { token, session } = await openSession(deps, person(), { idToken: "id.token.value" });
    expect(await signOut(deps, token, session.csrfToken)).toEqual({
      kind: "ended",
      via: "proconnect",
      idToken: "id.token.value",
    });
    expect(await readSession(deps, token)).toBeNull();
  });

  it("signs out a session that expired: its form's token still names it, and its ID token ends the provider's session", async () => {
    const { token, session } = await openSession(deps, person(), { idToken: "id.token.value" });
    clock += SESSION_IDLE_MS + 1000;
    expect(await readSession(deps, token)).toBeNull();
    const other = (await openSession(deps, person({ subject: "sub-other" }))).session;
    expect(await signOut(deps, token, other.csrfToken)).toEqual({ kind: "refused" });
    expect(await signOut(deps, token, undefined)).toEqual({ kind: "refused" });
    expect(await signOut(deps, token, session.csrfToken)).toEqual({
      kind: "ended",
      via: "proconnect",
      idToken: "id.token.value",
    });
    expect(await signOut(deps, "x".repeat(43), session.csrfToken)).toEqual({ kind: "none" });
    expect(await signOut(deps, null, session.csrfToken)).toEqual({ kind: "none" });
  });

  it("binds the CSRF token to its session: another session's token, a made-up one and none are refused", async () => {
    const one = (await openSession(deps, person())).session;
    const two = (await openSession(deps, person({ subject: "sub-two" }))).session;
    expect(isSessionCsrfToken(one, one.csrfToken)).toBe(true);
    expect(one.csrfToken).not.toBe(two.csrfToken);
    expect(isSessionCsrfToken(one, two.csrfToken)).toBe(false);
    expect(isSessionCsrfToken(one, "A".repeat(43))).toBe(false);
    expect(isSessionCsrfToken(one, "")).toBe(false);
    expect(isSessionCsrfToken(one, undefined)).toBe(false);
  });
});

describe("claims", () => {
  it("reaches only the listing of the person's SIRET without the company manager's certification", async () => {
    const { session } = await openSession(deps, person());
    expect((await listingsForPerson(deps, session)).map((item) => item.listing.abId)).toEqual([abA]);
    expect(await refusalOf(() => createClaim(deps, session, abB))).toBe("NOT_FOUND");
    for (const acr of ["eidas1-mfa", "eidas2", "eidas3"]) {
      const strong = (await openSession(deps, person({ acr }))).session;
      expect(await refusalOf(() => createClaim(deps, strong, abB)), acr).toBe("NOT_FOUND");
    }
  });

  it("reaches, as a certified manager, the company's other establishments by SIREN, never another company's", async () => {
    const { session } = await openSession(deps, manager());
    expect(
      (await listingsForPerson(deps, session)).map((item) => [item.listing.abId, item.claimId, item.blocked]),
    ).toEqual([
      [abA, null, null],
      [abB, null, null],
    ]);
    expect(await refusalOf(() => createClaim(deps, session, abOther))).toBe("NOT_FOUND");
    expect(await refusalOf(() => createClaim(deps, session, "ab_zzzzzzzz"))).toBe("NOT_FOUND");
    const claim = await createClaim(deps, session, abB);
    expect(claim).toMatchObject({
      abId: abB,
      siren: siretB.slice(0, 9),
      subject: "sub-camille",
      via: "proconnect",
      basis: "siren",
      acr: COMPANY_MANAGER_ACR,
      amr: ["pwd", "mail"],
      idpId: "idp-proconnect-identite",
    });
    expect((await createClaim(deps, session, abA)).basis).toBe("siret");
    expect((await createClaim(deps, session, abB)).claimId).toBe(claim.claimId);
    expect((await listClaimsOf(deps, session)).map(({ claim: held }) => held.abId).sort()).toEqual([abA, abB].sort());
  });

  it("reaches only the SIRET's listing when the person has no SIREN", async () => {
    const { session } = await openSession(deps, manager({ siren: null }));
    expect((await listingsForPerson(deps, session)).map((item) => item.listing.abId)).toEqual([abA]);
    expect(await refusalOf(() => createClaim(deps, session, abB))).toBe("NOT_FOUND");
  });

  it("lets several people of one company claim one listing", async () => {
    const camille = (await openSession(deps, person())).session;
    const sacha = (await openSession(deps, person({ subject: "sub-sacha", email: "sacha@exemple.fr" }))).session;
    await createClaim(deps, camille, abA);
    // A second later: claims of one instant are listed by id, on both engines.
    clock += 1_000;
    await createClaim(deps, sacha, abA);
    expect((await claimsOfListing(deps, abA)).map((claim) => claim.subject)).toEqual(["sub-camille", "sub-sacha"]);
  });

  it("refuses suspended and archived listings, saying which", async () => {
    changeMerchantStatus(lifecycle, abA, { status: "SUSPENDED", reason: "fraude signalée" }, "operator:test");
    changeMerchantStatus(lifecycle, abB, { status: "ARCHIVED", reason: "fermeture" }, "operator:test");
    const { session } = await openSession(deps, manager());
    expect(await refusalOf(() => createClaim(deps, session, abA))).toBe("refused:suspended");
    expect(await refusalOf(() => createClaim(deps, session, abB))).toBe("refused:archived");
    expect((await listingsForPerson(deps, session)).map((item) => item.blocked)).toEqual(["suspended", "archived"]);
    expect(db.$client.prepare("SELECT COUNT(*) FROM merchant_claims").pluck().get()).toBe(0);
  });

  it("writes each claim and revocation in the merchant's audit log, with the actor", async () => {
    const { session } = await openSession(deps, person());
    const claim = await createClaim(deps, session, abA);
    clock += 60_000;
    await revokeClaim(deps, claim.claimId, { by: "operator:alice", reason: "demande du gérant" });
    const events = createMerchantRegistryView(db)
      .events(abA)
      .filter((event) => event.action.startsWith("claim"));
    expect(events.map(({ actor, action, changes, reason }) => ({ actor, action, changes, reason }))).toEqual([
      {
        actor: `merchant:${claim.claimId}`,
        action: "claimed",
        changes: { claim: { from: null, to: claim.claimId } },
        reason: "via proconnect; basis siret; acr eidas1; amr pwd mail; idp_id idp-proconnect-identite",
      },
      {
        actor: "operator:alice",
        action: "claim_revoked",
        changes: { claim: { from: claim.claimId, to: null } },
        reason: `claim ${claim.claimId}: demande du gérant`,
      },
    ]);
  });

  it("revokes a claim: every session of its person ends at once, the listing is out of reach, and it cannot be claimed again", async () => {
    const first = await openSession(deps, person());
    const second = await openSession(deps, person());
    const bystander = await openSession(deps, person({ subject: "sub-sacha", email: "sacha@exemple.fr" }));
    const claim = await createClaim(deps, first.session, abA);
    expect(await requireClaimedListing(deps, first.session, abA)).toMatchObject({
      abId: abA,
      claimId: claim.claimId,
      actor: `merchant:${claim.claimId}`,
    });
    const revoked = await revokeClaim(deps, claim.claimId, { by: "operator:alice", reason: "usurpation" });
    expect(revoked).toMatchObject({ revokedBy: "operator:alice", revokedReason: "usurpation" });
    expect(await readSession(deps, first.token)).toBeNull();
    expect(await readSession(deps, second.token)).toBeNull();
    expect(await readSession(deps, bystander.token)).not.toBeNull();
    const again = (await openSession(deps, person())).session;
    expect(await refusalOf(() => requireClaimedListing(deps, again, abA))).toBe("NOT_FOUND");
    expect(await refusalOf(() => createClaim(deps, again, abA))).toBe("refused:revoked");
    expect(await refusalOf(() => revokeClaim(deps, claim.claimId, { by: "operator:alice", reason: "encore" }))).toBe(
      "CONFLICT",
    );
    expect(await refusalOf(() => revokeClaim(deps, claim.claimId, { by: "operator:alice", reason: "  " }))).toBe(
      "VALIDATION_ERROR",
    );
  });

  it("holds a revocation against the person through another door: another provider's sub with the same email", async () => {
    const first = await openSession(deps, person());
    const claim = await createClaim(deps, first.session, abA);
    // The same person signed in through another identity provider: another sub, the same address.
    const otherDoor = await openSession(
      deps,
      person({ subject: "sub-camille-ministere", email: "Camille@Exemple.fr" }),
    );
    // Each claim a second after the last: claims of one instant are listed by id, on both engines.
    clock += 1_000;
    const held = await createClaim(deps, otherDoor.session, abA);
    const bystander = await openSession(deps, person({ subject: "sub-sacha", email: "sacha@exemple.fr" }));
    clock += 1_000;
    await createClaim(deps, bystander.session, abA);
    await revokeClaim(deps, claim.claimId, { by: "operator:alice", reason: "usurpation" });
    expect((await claimsOfListing(deps, abA)).map((one) => [one.subject, one.revokedBy])).toEqual([
      ["sub-camille", "operator:alice"],
      ["sub-camille-ministere", "operator:alice"],
      ["sub-sacha", null],
    ]);
    expect(await readSession(deps, otherDoor.token)).toBeNull();
    expect(await readSession(deps, bystander.token)).not.toBeNull();
    // A third door, the same address: refused, and the page says why.
    const third = (await openSession(deps, person({ subject: "sub-camille-3", email: "CAMILLE@exemple.fr" }))).session;
    expect(await refusalOf(() => createClaim(deps, third, abA))).toBe("refused:revoked");
    expect((await listingsForPerson(deps, third)).map((item) => item.blocked)).toEqual(["revoked"]);
    expect(held.revokedAt).toBeNull();
  });

  it("never opens another merchant's space: a listing not claimed by the person is NOT_FOUND", async () => {
    const camille = (await openSession(deps, person())).session;
    const dubois = (
      await openSession(deps, person({ subject: "sub-dubois", siret: siretOther, siren: siretOther.slice(0, 9) }))
    ).session;
    await createClaim(deps, camille, abA);
    await createClaim(deps, dubois, abOther);
    expect(await refusalOf(() => requireClaimedListing(deps, camille, abOther))).toBe("NOT_FOUND");
    expect(await refusalOf(() => requireClaimedListing(deps, dubois, abA))).toBe("NOT_FOUND");
    expect(await refusalOf(() => requireClaimedListing(deps, camille, abB))).toBe("NOT_FOUND");
  });
});

describe("the re-check at each sign-in", () => {
  it("lapses a claim whose SIRET the new sign-in no longer carries, and restores it when one carries it again", async () => {
    const first = await openSession(deps, person());
    const claim = await createClaim(deps, first.session, abA);
    clock += 60_000;
    const elsewhere = person({ siret: siretOther, siren: siretOther.slice(0, 9) });
    await recheckClaims(deps, elsewhere);
    const moved = (await openSession(deps, elsewhere)).session;
    expect(await refusalOf(() => requireClaimedListing(deps, moved, abA))).toBe("NOT_FOUND");
    expect(await listClaimsOf(deps, moved)).toEqual([]);
    expect((await listingsForPerson(deps, moved)).map((item) => [item.listing.abId, item.blocked])).toEqual([
      [abA, "lapsed"],
      [abOther, null],
    ]);
    // The sessions that still carried the old SIRET ended with the re-check.
    expect(await readSession(deps, first.token)).toBeNull();
    clock += 60_000;
    await recheckClaims(deps, person());
    const back = (await openSession(deps, person())).session;
    expect((await requireClaimedListing(deps, back, abA)).claimId).toBe(claim.claimId);
    const events = createMerchantRegistryView(db)
      .events(abA)
      .filter((event) => event.action.startsWith("claim"))
      .map(({ action, reason }) => ({ action, reason }));
    expect(events).toEqual([
      {
        action: "claimed",
        reason: "via proconnect; basis siret; acr eidas1; amr pwd mail; idp_id idp-proconnect-identite",
      },
      {
        action: "claim_lapsed",
        reason: `sign-in no longer carries the claim's siret (siret ${siretOther}, acr eidas1)`,
      },
      { action: "claim_restored", reason: `sign-in carries the claim's siret again (siret ${siretA}, acr eidas1)` },
    ]);
  });

  it("lapses a claim made on the SIREN when the new sign-in is not a certified manager's, unless it names the listing's SIRET", async () => {
    const { session } = await openSession(deps, manager());
    const onB = await createClaim(deps, session, abB);
    const onA = await createClaim(deps, session, abA);
    await recheckClaims(deps, person());
    const employee = (await openSession(deps, person())).session;
    expect(await refusalOf(() => requireClaimedListing(deps, employee, abB))).toBe("NOT_FOUND");
    expect((await requireClaimedListing(deps, employee, abA)).claimId).toBe(onA.claimId);
    await recheckClaims(deps, manager());
    const again = (await openSession(deps, manager())).session;
    expect((await requireClaimedListing(deps, again, abB)).claimId).toBe(onB.claimId);
  });

  it("leaves a letter's claim alone: it rests on the letter", async () => {
    await recheckClaims(deps, person({ subject: "letter:abc", via: "letter", acr: null, siret: null, siren: null }));
    expect(db.$client.prepare("SELECT COUNT(*) FROM merchant_events WHERE action LIKE 'claim_%'").pluck().get()).toBe(
      0,
    );
  });
});

describe("ProConnect's assurance levels", () => {
  it("asks the levels at or above the minimum, most assured first, or the company manager's alone", () => {
    expect(requestedAcrValues("eidas1", "standard")).toEqual(["eidas3", "eidas2", "eidas1-mfa", "eidas1"]);
    expect(requestedAcrValues("eidas0", "standard")).toEqual([
      "eidas3",
      "eidas2",
      "eidas1-mfa",
      "eidas1",
      "eidas0-mfa",
      "eidas0",
    ]);
    expect(requestedAcrValues("eidas2", "company_manager")).toEqual([COMPANY_MANAGER_ACR]);
  });

  it("opens no session without acr, with an unknown one, or below the minimum; the manager's level counts as eidas1", () => {
    expect(assuranceRefusal(null, "eidas1")).toBe("missing");
    expect(assuranceRefusal("eidas9", "eidas1")).toBe("unknown");
    expect(assuranceRefusal("eidas0", "eidas1")).toBe("below_minimum");
    expect(assuranceRefusal("eidas0-mfa", "eidas1")).toBe("below_minimum");
    expect(assuranceRefusal("eidas0", "eidas0")).toBeNull();
    expect(assuranceRefusal("eidas1", "eidas1")).toBeNull();
    expect(assuranceRefusal("eidas3", "eidas1")).toBeNull();
    expect(assuranceRefusal(COMPANY_MANAGER_ACR, "eidas1")).toBeNull();
    expect(assuranceRefusal(COMPANY_MANAGER_ACR, "eidas1-mfa")).toBe("below_minimum");
  });
});

describe("retention", () => {
  it("deletes sessions 30 days after they ended or expired, and keeps the others", async () => {
    const ended = await openSession(deps, person({ subject: "sub-ended" }));
    await signOut(deps, ended.token, ended.session.csrfToken);
    const live = await openSession(deps, person({ subject: "sub-live" }));
    const run = async () =>
      (await anonymizeExpired({ retention: createRetentionRepository(db), now: deps.now, retentionMonths: 24 }))
        .spaceSessions;
    clock = START + 29 * 24 * 60 * 60 * 1000;
    expect(await run()).toBe(0);
    clock = START + 31 * 24 * 60 * 60 * 1000;
    // Both are over by then: one ended, the other past its absolute expiry.
    expect(await run()).toBe(2);
    expect(db.$client.prepare("SELECT COUNT(*) FROM pro_sessions").pluck().get()).toBe(0);
    clock = START;
    const fresh = await openSession(deps, person({ subject: "sub-fresh" }));
    expect(await run()).toBe(0);
    expect(await readSession(deps, fresh.token)).not.toBeNull();
    expect(await readSession(deps, live.token)).toBeNull();
  });
});

describe("the ProConnect configuration", () => {
  const client = { PROCONNECT_CLIENT_ID: "abeille", PROCONNECT_CLIENT_SECRET: "secret" };
  const issuerOf = (issuer: string) => loadConfig({ PROCONNECT_ISSUER: issuer, ...client }).proConnect?.issuer;

  it("takes an https issuer, and plain http only at a loopback address", () => {
    expect(issuerOf("https://proconnect.gouv.fr/api/v2")).toBe("https://proconnect.gouv.fr/api/v2");
    expect(issuerOf("http://127.0.0.1:4000")).toBe("http://127.0.0.1:4000");
    expect(issuerOf("http://localhost:4000/oidc")).toBe("http://localhost:4000/oidc");
    expect(issuerOf("http://[::1]:4000")).toBe("http://[::1]:4000");
    for (const issuer of [
      "http://proconnect.gouv.fr/api/v2",
      "http://10.0.0.5:4000",
      "http://127.0.0.1.example.org",
      "ftp://127.0.0.1",
    ]) {
      expect(() => issuerOf(issuer), issuer).toThrowError(
        "PROCONNECT_ISSUER: must be an https URL (http only at a loopback address: localhost, 127.0.0.1, ::1)",
      );
    }
  });

  it("takes PROCONNECT_MIN_ACR among the eIDAS levels, eidas1 by default", () => {
    const minimumOf = (value?: string) =>
      loadConfig({ PROCONNECT_ISSUER: "https://proconnect.gouv.fr/api/v2", ...client, PROCONNECT_MIN_ACR: value })
        .proConnect?.minimumAcr;
    expect(minimumOf()).toBe("eidas1");
    expect(minimumOf("")).toBe("eidas1");
    expect(minimumOf("eidas2")).toBe("eidas2");
    for (const value of [COMPANY_MANAGER_ACR, "eidas9", "EIDAS1"]) {
      expect(() => minimumOf(value), value).toThrowError(
        "PROCONNECT_MIN_ACR: must be one of eidas0, eidas0-mfa, eidas1, eidas1-mfa, eidas2, eidas3",
      );
    }
  });

  it("takes the three settings together or none", () => {
    expect(loadConfig({}).proConnect).toBeNull();
    expect(() => loadConfig({ PROCONNECT_ISSUER: "https://proconnect.gouv.fr/api/v2" })).toThrowError(
      "PROCONNECT_ISSUER, PROCONNECT_CLIENT_ID and PROCONNECT_CLIENT_SECRET go together: set all three or none",
    );
  });
});
