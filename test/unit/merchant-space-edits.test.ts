/**
 * What a merchant changes from its space (src/domain/merchant-space/), through the operator's
 * doors with itself as the actor: its declared fields (never what official sources prove), the lead
 * email only once the link sent to it is opened (single use, expiring, its token kept hashed), its
 * Q&A answers verified or corrected, pause and resume only, and what would raise its trust score.
 * A real store on a temporary file.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import type { Signal } from "../../src/domain/merchant.ts";
import {
  confirmLeadEmail,
  LEAD_EMAIL_LINK_HOURS,
  type LeadEmailDeps,
  requestLeadEmail,
} from "../../src/domain/merchant-space/lead-email.ts";
import { createLeadEmailTokens } from "../../src/domain/merchant-space/lead-email-token.ts";
import { editListing, setListingPaused } from "../../src/domain/merchant-space/listing-edits.ts";
import { scoreAdvice } from "../../src/domain/merchant-space/score-advice.ts";
import { addMerchant } from "../../src/domain/merchants/add-merchant.ts";
import { changeMerchantStatus } from "../../src/domain/merchants/change-merchant-status.ts";
import { checkTransition, merchantNextStatuses } from "../../src/domain/merchants/lifecycle.ts";
import { recordPlatformObservation } from "../../src/domain/merchants/record-platform-observation.ts";
import { reviewQaAnswer } from "../../src/domain/merchants/review-qa-answer.ts";
import { updateMerchant } from "../../src/domain/merchants/update-merchant.ts";
import { anonymizeExpired } from "../../src/domain/privacy/anonymize-expired.ts";
import { isServiceError } from "../../src/errors/service-error.ts";
import { compose } from "../../src/mail/dispatch-outbox.ts";
import { createCommuneLookup } from "../../src/seed/communes.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { createLeadEmailConfirmationRepository } from "../../src/store/lead-email-confirmation-repository.ts";
import { createLeadRepository } from "../../src/store/lead-repository.ts";
import {
  createMerchantRegistryRepository,
  createMerchantRegistryView,
} from "../../src/store/merchant-registry-repository.ts";
import { createOutboxRepository } from "../../src/store/outbox-repository.ts";
import { createPlatformContactRepository } from "../../src/store/platform-contact-repository.ts";
import { createRetentionRepository } from "../../src/store/retention-repository.ts";

const dir = mkdtempSync(path.join(os.tmpdir(), "abeille-space-edits-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SIRET = "12345678200010";
const declaration = {
  siret: SIRET,
  legal_name: "SARL Boulangerie Martin",
  business_name: "Boulangerie Martin",
  naf_code: "10.71C",
  address: { street: "12 rue de la République", postal_code: "69002", city: "Lyon" },
  founded_on: "2015-03-02",
  email: "ancien@boulangerie-martin.fr",
};
const ACTOR = "merchant:claim-1";

let clock: Date;
let db: Db;
let deps: LeadEmailDeps;
/** The registry as decisions see it (each write its own transaction), for the operator's steps and the checks. */
let view: ReturnType<typeof createMerchantRegistryView>;
const decision = () => ({ ...deps, registry: view });
let abId: string;
let runs = 0;

const secret = Buffer.alloc(32, 7);
/** The claims revoked since (the space's store answers it in the server). */
const revokedActors = new Set<string>();
beforeEach(() => {
  clock = new Date("2026-11-20T09:00:00.000Z");
  db = openDatabase(path.join(dir, `abeille-${runs++}.db`));
  deps = {
    registry: createMerchantRegistryRepository(db),
    communes: createCommuneLookup(),
    now: () => clock,
    confirmations: createLeadEmailConfirmationRepository(db),
    tokens: createLeadEmailTokens(() => secret),
    stillEntitled: async (requestedBy) => !revokedActors.has(requestedBy),
  };
  view = createMerchantRegistryView(db);
  abId = addMerchant(decision(), declaration, "operator:test").abId;
});

/** The SIRENE check an import records, so the merchant may become ACTIVE (an operator's move). */
function activate(): void {
  const current = view.find(abId);
  if (!current) throw new Error("no merchant");
  const siretVerified: Signal = {
    key: "siret_verified",
    status: "verified",
    proofStatus: "official_source_verified",
    source: "official_file",
    sourceUrl: null,
    value: true,
    verifiedAt: "2026-11-19T08:00:00.000Z",
    recordedAt: "2026-11-19T08:00:00.000Z",
    expiresAt: null,
  };
  view.update({
    abId,
    expectedRevision: current.revision,
    fields: {},
    products: null,
    territorialProof: undefined,
    signals: [siretVerified],
    event: { at: clock.toISOString(), actor: "import:test", action: "observed", changes: {}, reason: null },
    feed: "updated",
  });
  changeMerchantStatus(decision(), abId, { status: "ACTIVE", reason: null }, "operator:test");
}

async function issuesOf(work: () => unknown): Promise<[string, string, string][]> {
  try {
    await work();
  } catch (error) {
    if (!isServiceError(error)) throw error;
    return (error.details.issues ?? [{ path: "", message: error.message }]).map((issue) => [
      error.code,
      issue.path,
      issue.message,
    ]);
  }
  return [];
}

const lastEvent = () => view.events(abId).at(-1);

describe("the merchant's declared fields", () => {
  it("are written through the operator's door with the merchant as the actor, and move the change feed", async () => {
    const before = view.find(abId)?.revision ?? 0;
    const result = await editListing(
      deps,
      { abId, actor: ACTOR },
      {
        phone: "+33 4 78 00 00 00",
        hours: { lundi: "07:00-19:30", dimanche: "fermé" },
        products: [
          {
            slug: "baguette",
            name: "Baguette tradition",
            description: "Au levain.",
            brick_type: "product",
            pricing_model: "fixed",
            price_cents: 130,
          },
        ],
      },
    );
    expect(result).toEqual({ abId, changed: ["phone", "hours", "products"], revision: before + 1 });
    const stored = view.find(abId);
    expect([stored?.merchant.phone, stored?.merchant.hours]).toEqual([
      "+33 4 78 00 00 00",
      { lundi: "07:00-19:30", dimanche: "fermé" },
    ]);
    expect(stored?.products.map((product) => [product.slug, product.priceCents])).toEqual([["baguette", 130]]);
    expect([lastEvent()?.actor, lastEvent()?.action]).toEqual([ACTOR, "updated"]);
  });

  it("takes a description the merchant writes as its own words, not a text waiting for review", async () => {
    await editListing(deps, { abId, actor: ACTOR }, { description: "Pain au levain cuit au feu de bois depuis 2015." });
    expect(view.find(abId)?.merchant.descriptionLlmUnreviewed).toBe(false);
    // The operator's door keeps its rule: a description it sets waits for a review.
    updateMerchant(decision(), abId, { description: "Pain au levain." }, "operator:test");
    expect(view.find(abId)?.merchant.descriptionLlmUnreviewed).toBe(true);
    await editListing(deps, { abId, actor: ACTOR }, { description: "Pain au levain, depuis 2015." });
    expect(view.find(abId)?.merchant.descriptionLlmUnreviewed).toBe(false);
  });

  it("refuses what only official sources prove, and the lead email, writing nothing", async () => {
    const before = view.find(abId);
    expect(
      await issuesOf(() =>
        editListing(
          deps,
          { abId, actor: ACTOR },
          {
            phone: "+33 4 78 00 00 00",
            legal_name: "Autre SARL",
            address: { street: "1 rue Fausse", postal_code: "75001", city: "Paris" },
            founded_on: "1990-01-01",
            email: "pirate@example.fr",
            payment_setup: true,
          },
        ),
      ),
    ).toEqual([
      [
        "VALIDATION_ERROR",
        "legal_name",
        "is proven by official sources (SIRENE, RNE) and is not changed from the merchant space; nothing was changed",
      ],
      [
        "VALIDATION_ERROR",
        "address",
        "is proven by official sources (SIRENE, RNE) and is not changed from the merchant space; nothing was changed",
      ],
      [
        "VALIDATION_ERROR",
        "founded_on",
        "is proven by official sources (SIRENE, RNE) and is not changed from the merchant space; nothing was changed",
      ],
      [
        "VALIDATION_ERROR",
        "email",
        "the lead email changes through the link sent to it (requestLeadEmail); nothing was changed",
      ],
      [
        "VALIDATION_ERROR",
        "payment_setup",
        "is not a field the merchant declares (phone, website, hours, description, brand_voice, languages, zones, delivery, products); nothing was changed",
      ],
    ]);
    const after = view.find(abId);
    expect(after?.revision).toBe(before?.revision);
    expect([after?.merchant.phone, after?.merchant.legalName, after?.merchant.email]).toEqual([
      null,
      "SARL Boulangerie Martin",
      "ancien@boulangerie-martin.fr",
    ]);
  });
});

describe("pause and resume", () => {
  it("lets the merchant pause an active listing and resume it, as itself", async () => {
    activate();
    expect(await setListingPaused(deps, { abId, actor: ACTOR }, true)).toMatchObject({ from: "ACTIVE", to: "PAUSED" });
    expect([lastEvent()?.actor, lastEvent()?.reason]).toEqual([ACTOR, "paused by the merchant"]);
    expect(await setListingPaused(deps, { abId, actor: ACTOR }, false)).toMatchObject({ from: "PAUSED", to: "ACTIVE" });
  });

  it("leaves probation, suspension and archiving to the operator", async () => {
    expect(await issuesOf(() => setListingPaused(deps, { abId, actor: ACTOR }, true))).toEqual([
      [
        "CONFLICT",
        "",
        `Merchant ${abId}: PROBATION -> PAUSED is not a change the merchant makes; only the operator does`,
      ],
    ]);
    const ready = { identityVerified: true, descriptionReviewed: true, reason: "fermeture" };
    expect(checkTransition("ACTIVE", "SUSPENDED", ready, "merchant")).toEqual({
      allowed: false,
      reason: "ACTIVE -> SUSPENDED is not a change the merchant makes; only the operator does",
    });
    expect(checkTransition("PROBATION", "ACTIVE", ready, "merchant").allowed).toBe(false);
    expect(checkTransition("SUSPENDED", "ACTIVE", ready, "merchant").allowed).toBe(false);
    expect(checkTransition("PROBATION", "ACTIVE", ready)).toEqual({ allowed: true });
    expect([merchantNextStatuses("ACTIVE"), merchantNextStatuses("PAUSED"), merchantNextStatuses("PROBATION")]).toEqual(
      [["PAUSED"], ["ACTIVE"], []],
    );
  });
});

describe("the lead email", () => {
  const outbox = () => createOutboxRepository(db);
  /** The link of the confirmation email, as the outbox writes it. */
  const linkInEmail = async (): Promise<{ to: string; token: string; text: string }> => {
    const rows = await outbox().claimDue({
      now: "2999-01-01T00:00:00.000Z",
      leaseUntil: "2999-01-01T00:05:00.000Z",
      limit: 10,
    });
    const message = rows.find((row) => row.kind === "lead_email_confirmation");
    if (!message) throw new Error("no confirmation email in the outbox");
    const mail = await compose(
      {
        leads: createLeadRepository(db),
        platformContacts: createPlatformContactRepository(db),
        platformTeamEmail: "equipe@abeille.test",
        leadEmailConfirmations: deps.confirmations,
        leadEmailTokens: deps.tokens,
        baseUrl: "https://abeille.test",
      },
      message,
    );
    const match = mail.text.match(
      /https:\/\/abeille\.test\/pro\/(ab_[a-z0-9]+)\/e-mail\/confirmer\?jeton=([A-Za-z0-9_-]{43})/,
    );
    if (!match || match[1] !== abId) throw new Error(`no link in ${mail.text}`);
    return { to: mail.to, token: match[2] as string, text: mail.text };
  };

  it("is used only once the link sent to it is opened, then by the merchant who asked", async () => {
    expect(await requestLeadEmail(deps, { abId, actor: ACTOR }, "demandes@boulangerie-martin.fr")).toEqual({
      outcome: "link_sent",
      email: "demandes@boulangerie-martin.fr",
      expiresAt: "2026-11-22T09:00:00.000Z",
    });
    // Until the link is opened, leads keep going where they went.
    expect(view.find(abId)?.merchant.email).toBe("ancien@boulangerie-martin.fr");
    const { to, token, text } = await linkInEmail();
    expect(to).toBe("demandes@boulangerie-martin.fr");
    expect(text).toContain("Boulangerie Martin");
    // Only the token's SHA-256 is stored.
    const stored = db.$client.prepare("SELECT token_hash FROM lead_email_confirmations").pluck().get() as string;
    expect(stored).toBe(deps.tokens.hash(token));
    expect(stored).not.toContain(token);

    expect(await confirmLeadEmail(deps, abId, token)).toEqual({
      abId,
      email: "demandes@boulangerie-martin.fr",
      changed: true,
    });
    expect(view.find(abId)?.merchant.email).toBe("demandes@boulangerie-martin.fr");
    expect([lastEvent()?.actor, lastEvent()?.changes]).toEqual([
      ACTOR,
      { email: { from: "ancien@boulangerie-martin.fr", to: "demandes@boulangerie-martin.fr" } },
    ]);
    expect(await issuesOf(() => confirmLeadEmail(deps, abId, token))).toEqual([
      ["CONFLICT", "", "This confirmation link was already used"],
    ]);
  });

  it("refuses an expired link, one replaced by a later request, another listing's and a made-up one", async () => {
    await requestLeadEmail(deps, { abId, actor: ACTOR }, "premier@boulangerie-martin.fr");
    const first = (await linkInEmail()).token;
    await requestLeadEmail(deps, { abId, actor: ACTOR }, "second@boulangerie-martin.fr");
    const second = (await linkInEmail()).token;
    expect(await issuesOf(() => confirmLeadEmail(deps, abId, first))).toEqual([
      ["CONFLICT", "", "This confirmation link was replaced by a later request; use the latest email"],
    ]);
    const invalid = "This confirmation link is not valid; ask for a new one from the merchant space";
    expect(await issuesOf(() => confirmLeadEmail(deps, "ab_zzzzzzzz", second))).toEqual([["NOT_FOUND", "", invalid]]);
    expect(await issuesOf(() => confirmLeadEmail(deps, abId, "A".repeat(43)))).toEqual([["NOT_FOUND", "", invalid]]);
    clock = new Date(clock.getTime() + LEAD_EMAIL_LINK_HOURS * 3_600_000);
    expect(await issuesOf(() => confirmLeadEmail(deps, abId, second))).toEqual([
      ["CONFLICT", "", "This confirmation link has expired; ask for a new one from the merchant space"],
    ]);
    expect(view.find(abId)?.merchant.email).toBe("ancien@boulangerie-martin.fr");
  });

  it("changes nothing when the claim that asked was revoked since", async () => {
    await requestLeadEmail(deps, { abId, actor: "merchant:claim-revoked" }, "revoque@exemple.fr");
    const { token } = await linkInEmail();
    revokedActors.add("merchant:claim-revoked");
    expect(await issuesOf(() => confirmLeadEmail(deps, abId, token))).toEqual([
      ["CONFLICT", "", "This confirmation link was asked for through a claim revoked since"],
    ]);
    expect(view.find(abId)?.merchant.email).toBe("ancien@boulangerie-martin.fr");
  });

  it("is forgotten 30 days after its link expired (the retention job)", async () => {
    await requestLeadEmail(deps, { abId, actor: ACTOR }, "oubli@boulangerie-martin.fr");
    const retention = createRetentionRepository(db);
    const run = async (at: Date) =>
      (await anonymizeExpired({ retention, now: () => at, retentionMonths: 24 })).leadEmailLinks;
    const expired = clock.getTime() + LEAD_EMAIL_LINK_HOURS * 3_600_000;
    expect(await run(new Date(expired + 29 * 86_400_000))).toBe(0);
    expect(await run(new Date(expired + 31 * 86_400_000))).toBe(1);
    expect(db.$client.prepare("SELECT count(*) FROM lead_email_confirmations").pluck().get()).toBe(0);
  });

  it("refuses an address that is not one, with the field named", async () => {
    expect(await issuesOf(() => requestLeadEmail(deps, { abId, actor: ACTOR }, "pas une adresse"))).toEqual([
      ["VALIDATION_ERROR", "email", "must be an email address"],
    ]);
    expect(db.$client.prepare("SELECT count(*) FROM lead_email_confirmations").pluck().get()).toBe(0);
  });
});

describe("Q&A answers", () => {
  function withQa(): string {
    recordPlatformObservation(
      decision(),
      {
        siret: SIRET,
        observed_at: "2026-11-19T08:00:00Z",
        signals: [
          {
            key: "territorial_address_verified",
            status: "verified",
            value: true,
            recorded_at: "2026-11-19T08:00:00Z",
            verified_at: "2026-11-19T08:00:00Z",
            expires_at: "2028-11-18T08:00:00Z",
          },
        ],
        qa_clusters: [
          {
            label: "Horaires",
            type: "custom",
            updated_at: "2026-11-19T08:00:00Z",
            nodes: [
              {
                intent: "zone",
                question: "Où se trouve la boulangerie ?",
                answer: "Au 12 rue de la République, à Lyon.",
                answer_bluf: "Au 12 rue de la République.",
                verification_level: "human_verified",
                fact_level: "verified",
                fact_signal: "territorial_address_verified",
                human_verified_at: "2026-11-19T08:00:00Z",
              },
            ],
          },
        ],
      },
      "import:test",
    );
    const node = view.find(abId)?.clusters[0]?.nodes[0];
    if (!node) throw new Error("no Q&A");
    return node.nodeId;
  }

  it("are vouched for as they are: reviewed by the merchant now (not a verification), facts untouched", async () => {
    const nodeId = withQa();
    reviewQaAnswer(decision(), abId, { nodeId }, ACTOR);
    const node = view.find(abId)?.clusters[0]?.nodes[0];
    expect([
      node?.answer,
      node?.editedByMerchant,
      node?.humanVerifiedAt,
      node?.verificationLevel,
      node?.factLevel,
      node?.factSignal,
    ]).toEqual([
      "Au 12 rue de la République, à Lyon.",
      false,
      "2026-11-20T09:00:00.000Z",
      "merchant_reviewed",
      "verified",
      "territorial_address_verified",
    ]);
    expect([lastEvent()?.actor, lastEvent()?.action]).toEqual([ACTOR, "qa_reviewed"]);
  });

  it("are corrected: the merchant's declaration, a new answer and its short form, the old claim sentence dropped", async () => {
    const nodeId = withQa();
    reviewQaAnswer(decision(), abId, { nodeId, answer: "Au 14 rue de la République. Entrée par la cour." }, ACTOR);
    const node = view.find(abId)?.clusters[0]?.nodes[0];
    expect(node).toMatchObject({
      nodeId,
      answer: "Au 14 rue de la République. Entrée par la cour.",
      answerBluf: "Au 14 rue de la République.",
      claimSentence: "",
      editedByMerchant: true,
      factLevel: "declared",
      factSignal: null,
      verificationLevel: "merchant_reviewed",
      humanVerifiedAt: "2026-11-20T09:00:00.000Z",
    });
    expect(lastEvent()?.changes).toEqual({
      [`qa.${nodeId}.human_verified_at`]: { from: "2026-11-19T08:00:00.000Z", to: "2026-11-20T09:00:00.000Z" },
      [`qa.${nodeId}.answer`]: {
        from: "Au 12 rue de la République, à Lyon.",
        to: "Au 14 rue de la République. Entrée par la cour.",
      },
      [`qa.${nodeId}.fact_level`]: { from: "verified", to: "declared" },
    });
    expect(await issuesOf(() => reviewQaAnswer(decision(), abId, { nodeId: "other", answer: "x" }, ACTOR))).toEqual([
      ["NOT_FOUND", "", `Merchant ${abId} has no Q&A answer other`],
    ]);
    expect(await issuesOf(() => reviewQaAnswer(decision(), abId, { nodeId, answer: "  " }, ACTOR))).toEqual([
      ["VALIDATION_ERROR", "", "must not be empty"],
    ]);
  });
});

describe("what would raise the score", () => {
  it("lists the signals that do not count yet, who proves each, and the part of the space that feeds it", async () => {
    activate();
    const current = view.find(abId);
    if (!current) throw new Error("no merchant");
    const advice = scoreAdvice(current.merchant, current.signals, clock);
    expect([advice.total, advice.level]).toEqual([advice.breakdown.trust, "verified"]);
    const step = (key: string) => advice.steps.find((candidate) => candidate.signal === key);
    expect(step("siret_verified")).toBeUndefined();
    expect(step("bodacc_clean")).toMatchObject({ provenBy: "official", spaceSection: null, component: "trust" });
    expect(step("brand_voice_declared")).toMatchObject({ provenBy: "merchant", spaceSection: "voix" });
    expect(step("has_products")).toMatchObject({ provenBy: "platform", spaceSection: "produits" });
    // A bakery is not an insurance broker: ORIAS does not apply.
    expect(step("orias_registered")).toBeUndefined();
  });
});
