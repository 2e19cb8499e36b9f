/**
 * The letter path's sign-in (src/domain/merchant-space/letter-sign-in.ts) and its sign-in links
 * (sign-in-links.ts) on a real store: a right code claims its establishment and only it (no SIRET
 * or SIREN in the person, so no other listing of the company is within reach), once; a listing
 * suspended since is refused with the letter left unspent; a link works once, expires after 15
 * minutes, opens nothing once its claim is revoked, and a forged token opens nothing; links go
 * only to an address of a live letter claim; the form CSRF token is bound to its cookie.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createInMemoryRateLimitStore,
  createRateLimiter,
  type RateLimitStore,
} from "../../src/domain/access/rate-limiter.ts";
import { createClaim, listClaimsOf, revokeClaim } from "../../src/domain/merchant-space/claims.ts";
import { createLetterCodeKeys } from "../../src/domain/merchant-space/letter-code.ts";
import {
  formCsrfToken,
  isFormCsrfToken,
  signInWithLetterCode,
  signInWithLink,
} from "../../src/domain/merchant-space/letter-sign-in.ts";
import { issueLetterBatch, type LetterDeps } from "../../src/domain/merchant-space/letters.ts";
import { newToken, openSession, readSession, type SpaceDeps } from "../../src/domain/merchant-space/sessions.ts";
import {
  createSignInLinkTokens,
  type RequestSignInLinkDeps,
  requestSignInLinks,
  SIGN_IN_LINK_REQUESTS_PER_EMAIL_HOURLY,
  SIGN_IN_LINK_VALID_MINUTES,
  signInLinkMail,
} from "../../src/domain/merchant-space/sign-in-links.ts";
import { addMerchant } from "../../src/domain/merchants/add-merchant.ts";
import { changeMerchantStatus } from "../../src/domain/merchants/change-merchant-status.ts";
import type { MerchantDecisionDeps } from "../../src/domain/merchants/merchant-registry.ts";
import { makeSiret } from "../../src/domain/siret.ts";
import { isServiceError } from "../../src/errors/service-error.ts";
import { createCommuneLookup } from "../../src/seed/communes.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { createLetterRepository } from "../../src/store/letter-repository.ts";
import { createMerchantRegistryView } from "../../src/store/merchant-registry-repository.ts";
import { createMerchantSpaceRepository } from "../../src/store/merchant-space-repository.ts";
import { createRetentionRepository } from "../../src/store/retention-repository.ts";
import { createSignInLinkRepository } from "../../src/store/sign-in-link-repository.ts";

const START = Date.parse("2026-11-26T09:00:00.000Z");
let clock = START;
let dataDir: string;
let db: Db;
let space: SpaceDeps;
let letters: LetterDeps;
let links: RequestSignInLinkDeps;
let abA: string;
let abB: string;

const COMPANY = "12345678";

function add(lifecycle: MerchantDecisionDeps, nic: string, name: string): string {
  return addMerchant(
    lifecycle,
    {
      siret: makeSiret(COMPANY, nic),
      legal_name: `SARL ${name}`,
      business_name: name,
      naf_code: "10.71C",
      address: { street: "12 rue de la République", postal_code: "69002", city: "Lyon" },
      founded_on: "2015-03-02",
    },
    "operator:test",
  ).abId;
}

beforeEach(() => {
  clock = START;
  dataDir = mkdtempSync(path.join(tmpdir(), "abeille-letter-sign-in-"));
  db = openDatabase(path.join(dataDir, "abeille.db"));
  const now = () => new Date(clock);
  const lifecycle = { registry: createMerchantRegistryView(db), communes: createCommuneLookup(), now };
  abA = add(lifecycle, "0001", "Boulangerie Martin");
  abB = add(lifecycle, "0002", "Boulangerie Martin Gare");
  space = { store: createMerchantSpaceRepository(db), now, csrfSecret: () => Buffer.alloc(32, 3) };
  letters = {
    letters: createLetterRepository(db),
    codeKeys: createLetterCodeKeys(() => Buffer.alloc(32, 4)),
    now,
  };
  links = {
    links: createSignInLinkRepository(db),
    linkTokens: createSignInLinkTokens(() => Buffer.alloc(32, 5)),
    now,
    limiter: createRateLimiter(createInMemoryRateLimitStore(), { clock: () => clock }),
  };
});

afterEach(() => {
  db.$client.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function codeFor(abId: string): Promise<string> {
  const batch = await issueLetterBatch(letters, { abIds: [abId], limit: 1 }, async () => {});
  return batch.letters[0]?.code as string;
}

const enter = (code: string, email = "gerante@exemple.fr") =>
  signInWithLetterCode({ letters, space }, { code, email, replacing: null });

/** The sign-in link's token, as the email carries it. */
async function tokenInMail(): Promise<string> {
  const [row] = db.$client
    .prepare("SELECT subject_id FROM outbox WHERE kind = 'space_sign_in_link' ORDER BY created_at DESC, rowid DESC")
    .all() as { subject_id: string }[];
  const mail = await signInLinkMail({ ...links, baseUrl: "https://abeille.example" }, row?.subject_id ?? "");
  const url = /https:\/\/abeille\.example\/pro\/lien\?jeton=(\S+)/.exec(mail?.email.text ?? "")?.[1];
  if (!url) throw new Error("no link in the email");
  return decodeURIComponent(url);
}

describe("a letter's code", () => {
  it("claims its establishment only, for a person with no SIRET or SIREN, once", async () => {
    const signedIn = await enter(await codeFor(abA));
    if (!signedIn.ok) throw new Error(signedIn.refusal);
    expect(signedIn.claim).toMatchObject({
      abId: abA,
      via: "letter",
      email: "gerante@exemple.fr",
      siren: makeSiret(COMPANY, "0001").slice(0, 9),
    });
    expect(signedIn.session.person).toEqual({
      subject: signedIn.claim.subject,
      email: "gerante@exemple.fr",
      givenName: null,
      usualName: null,
      siret: null,
      siren: null,
      via: "letter",
      acr: null,
      amr: null,
      idpId: null,
    });
    expect(signedIn.claim).toMatchObject({ basis: "letter", acr: null, amr: null, idpId: null });
    expect((await readSession(space, signedIn.token))?.person.subject).toBe(signedIn.claim.subject);
    expect((await listClaimsOf(space, signedIn.session)).map((held) => held.claim.abId)).toEqual([abA]);
    // Another establishment of the same company stays out of reach.
    const refused = await createClaim(space, signedIn.session, abB).then(
      () => null,
      (error: unknown) => error,
    );
    expect(isServiceError(refused) && refused.code).toBe("NOT_FOUND");
  });

  it("works once: the same code again is refused, and no second claim is made", async () => {
    const code = await codeFor(abA);
    expect((await enter(code)).ok).toBe(true);
    expect(await enter(code, "autre@exemple.fr")).toEqual({ ok: false, refusal: "used" });
    expect(db.$client.prepare("SELECT count(*) FROM merchant_claims").pluck().get()).toBe(1);
  });

  it("refuses a listing suspended since the letter was sent, and leaves the letter unspent", async () => {
    const code = await codeFor(abA);
    changeMerchantStatus(
      { registry: createMerchantRegistryView(db), communes: createCommuneLookup(), now: () => new Date(clock) },
      abA,
      { status: "SUSPENDED", reason: "fraude signalée" },
      "operator:test",
    );
    expect(await enter(code)).toEqual({ ok: false, refusal: "unavailable" });
    expect(db.$client.prepare("SELECT used_at FROM letter_codes WHERE ab_id = ?").pluck().get(abA)).toBeNull();
    expect(db.$client.prepare("SELECT count(*) FROM merchant_claims").pluck().get()).toBe(0);
  });
});

describe("a revoked person", () => {
  it("does not get the listing back through a letter typed with the same address; the letter stays unspent", async () => {
    // Signed in through ProConnect, claimed, revoked by the operators.
    const proconnect = await openSession(space, {
      subject: "sub-gerante",
      email: "Gerante@Exemple.fr",
      givenName: "Paule",
      usualName: "Martin",
      siret: makeSiret(COMPANY, "0001"),
      siren: makeSiret(COMPANY, "0001").slice(0, 9),
      via: "proconnect",
      acr: "eidas1",
      amr: ["pwd"],
      idpId: "idp-test",
    });
    const claim = await createClaim(space, proconnect.session, abA);
    await revokeClaim(space, claim.claimId, { by: "operator:test", reason: "usurpation" });
    const code = await codeFor(abA);
    expect(await enter(code, "gerante@exemple.fr")).toEqual({ ok: false, refusal: "revoked" });
    expect(db.$client.prepare("SELECT used_at FROM letter_codes WHERE ab_id = ?").pluck().get(abA)).toBeNull();
    // The letter proves the establishment to whoever else holds it.
    expect((await enter(code, "associe@exemple.fr")).ok).toBe(true);
  });

  it("loses the listing, and every session, whichever door the revoked claim came by: a letter claim revoked ends a ProConnect session of the same address", async () => {
    const signedIn = await enter(await codeFor(abA));
    if (!signedIn.ok) throw new Error(signedIn.refusal);
    const proconnect = await openSession(space, {
      subject: "sub-gerante",
      email: "GERANTE@exemple.fr",
      givenName: null,
      usualName: null,
      siret: makeSiret(COMPANY, "0001"),
      siren: null,
      via: "proconnect",
      acr: "eidas1",
      amr: null,
      idpId: null,
    });
    await revokeClaim(space, signedIn.claim.claimId, { by: "operator:test", reason: "courrier détourné" });
    expect(await readSession(space, signedIn.token)).toBeNull();
    expect(await readSession(space, proconnect.token)).toBeNull();
    const again = await openSession(space, { ...proconnect.session.person });
    const refused = await createClaim(space, again.session, abA).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ refusal: "revoked" });
  });
});

describe("a batch --unclaimed", () => {
  it("leaves out the listings someone holds a live claim on, and takes them back once it is revoked", async () => {
    const signedIn = await enter(await codeFor(abA));
    if (!signedIn.ok) throw new Error(signedIn.refusal);
    const unclaimed = async () =>
      (await issueLetterBatch(letters, { unclaimed: true, limit: 10 }, async () => {})).letters.map(
        (letter) => letter.recipient.abId,
      );
    expect(await unclaimed()).toEqual([abB]);
    await revokeClaim(space, signedIn.claim.claimId, { by: "operator:test", reason: "courrier détourné" });
    expect((await unclaimed()).sort()).toEqual([abA, abB].sort());
  });
});

describe("a sign-in link", () => {
  it("works once, for the claim's own person", async () => {
    const signedIn = await enter(await codeFor(abA), "Gerante@Exemple.fr");
    if (!signedIn.ok) throw new Error(signedIn.refusal);
    expect(await requestSignInLinks(links, "gerante@exemple.fr")).toBe(1);
    const token = await tokenInMail();
    const first = await signInWithLink({ links, space }, { token, replacing: null });
    expect(first?.session.person.subject).toBe(signedIn.claim.subject);
    expect(first?.claim.claimId).toBe(signedIn.claim.claimId);
    expect(await signInWithLink({ links, space }, { token, replacing: null })).toBeNull();
  });

  it(`expires after ${SIGN_IN_LINK_VALID_MINUTES} minutes`, async () => {
    await enter(await codeFor(abA));
    await requestSignInLinks(links, "gerante@exemple.fr");
    const token = await tokenInMail();
    clock = START + SIGN_IN_LINK_VALID_MINUTES * 60_000;
    expect(await signInWithLink({ links, space }, { token, replacing: null })).toBeNull();
    expect(
      await signInLinkMail({ ...links, baseUrl: "https://abeille.example" }, token.split(".")[0] as string),
    ).toBeNull();
  });

  it("opens nothing once its claim is revoked, or when forged", async () => {
    const signedIn = await enter(await codeFor(abA));
    if (!signedIn.ok) throw new Error(signedIn.refusal);
    await requestSignInLinks(links, "gerante@exemple.fr");
    const token = await tokenInMail();
    const [linkId] = token.split(".");
    const forged = `${linkId}.${"A".repeat(43)}`;
    expect(await signInWithLink({ links, space }, { token: forged, replacing: null })).toBeNull();
    await revokeClaim(space, signedIn.claim.claimId, { by: "operator:test", reason: "courrier détourné" });
    expect(await signInWithLink({ links, space }, { token, replacing: null })).toBeNull();
    // Revoked: no new link is sent either.
    expect(await requestSignInLinks(links, "gerante@exemple.fr")).toBe(0);
  });

  it("is deleted by the retention job as long after it expired as the sessions", async () => {
    await enter(await codeFor(abA));
    await requestSignInLinks(links, "gerante@exemple.fr");
    const count = () => db.$client.prepare("SELECT count(*) FROM space_sign_in_links").pluck().get();
    const retention = createRetentionRepository(db);
    const expiry = START + SIGN_IN_LINK_VALID_MINUTES * 60_000;
    const run = (sessionCutoff: number) =>
      retention.anonymizeBefore({
        cutoff: new Date(0).toISOString(),
        now: new Date(clock).toISOString(),
        idempotencyCutoff: new Date(0).toISOString(),
        sessionCutoff: new Date(sessionCutoff).toISOString(),
      });
    await run(expiry);
    expect(count()).toBe(1);
    await run(expiry + 1);
    expect(count()).toBe(0);
  });

  it(`is asked at most ${SIGN_IN_LINK_REQUESTS_PER_EMAIL_HOURLY} times an hour per email address, claim or not, counted under a keyed hash`, async () => {
    const signedIn = await enter(await codeFor(abA), "gerante@exemple.fr");
    if (!signedIn.ok) throw new Error(signedIn.refusal);
    // The keys the limits' store is given, as it would hold them.
    const held = new Set<string>();
    const memory = createInMemoryRateLimitStore();
    const store: RateLimitStore = {
      advance: (key, ...rest) => {
        held.add(key);
        return memory.advance(key, ...rest);
      },
      clear: () => memory.clear(),
    };
    const limited = { ...links, limiter: createRateLimiter(store, { clock: () => clock }) };
    const refusal = async (email: string) => {
      const error = await requestSignInLinks(limited, email).then(
        () => null,
        (failure: unknown) => failure,
      );
      return isServiceError(error) ? [error.code, error.details.retryAfterSeconds] : error;
    };
    for (let i = 0; i < SIGN_IN_LINK_REQUESTS_PER_EMAIL_HOURLY; i++) {
      expect(await requestSignInLinks(limited, "gerante@exemple.fr")).toBe(1);
      expect(await requestSignInLinks(limited, "personne@exemple.fr")).toBe(0);
    }
    // Written another way, the same address: refused alike, with or without a claim.
    const wait = 3600 / SIGN_IN_LINK_REQUESTS_PER_EMAIL_HOURLY;
    expect(await refusal(" Gerante@Exemple.FR")).toEqual(["RATE_LIMITED", wait]);
    expect(await refusal("personne@exemple.fr")).toEqual(["RATE_LIMITED", wait]);
    expect(db.$client.prepare("SELECT count(*) FROM space_sign_in_links").pluck().get()).toBe(
      SIGN_IN_LINK_REQUESTS_PER_EMAIL_HOURLY,
    );
    // Another address has its own budget; the budget refills with time.
    expect(await requestSignInLinks(limited, "autre@exemple.fr")).toBe(0);
    clock += wait * 1000;
    expect(await requestSignInLinks(limited, "gerante@exemple.fr")).toBe(1);
    // The limits' store holds keyed hashes, never the address.
    const keys = [...held];
    expect(keys).toHaveLength(3);
    for (const key of keys) expect(key).toMatch(/^pro-sign-in-link:[A-Za-z0-9_-]{43}$/);
    expect(keys.join(" ")).not.toContain("exemple");
  });

  it("is sent only to an address of a live letter claim", async () => {
    await enter(await codeFor(abA));
    expect(await requestSignInLinks(links, "personne@exemple.fr")).toBe(0);
    expect(db.$client.prepare("SELECT count(*) FROM outbox").pluck().get()).toBe(0);
  });
});

describe("the forms' CSRF token before a session", () => {
  it("is bound to the form cookie it was made for", () => {
    const cookie = newToken();
    const token = formCsrfToken(space, cookie);
    expect(isFormCsrfToken(space, cookie, token)).toBe(true);
    expect(isFormCsrfToken(space, newToken(), token)).toBe(false);
    expect(isFormCsrfToken(space, null, token)).toBe(false);
    expect(isFormCsrfToken(space, cookie, undefined)).toBe(false);
    expect(isFormCsrfToken(space, cookie, "x".repeat(43))).toBe(false);
  });
});
