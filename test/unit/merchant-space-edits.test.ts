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
import type { OutboxMessage } from "../../src/domain/outbox-store.ts";
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
import { createOutboxRepository, sqliteOutboxClaims } from "../../src/store/outbox-repository.ts";
import { createPlatformContactRepository } from "../../src/store/platform-contact-repository.ts";
import { createRetentionRepository } from "../../src/store/retention-repository.ts";
import { createSpaceNoticeRepository } from "../../src/store/space-notice-repository.ts";

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
/** A live claim on the listing (the store reads whether it still is when a link is confirmed). */
function addClaim(claimId: string, email: string | null): void {
  db.$client
    .prepare(
      `INSERT INTO merchant_claims (claim_id, ab_id, siren, subject, email, via, created_at)
       VALUES (?, ?, '123456782', ?, ?, 'proconnect', ?)`,
    )
    .run(claimId, abId, `sub-${claimId}`, email, clock.toISOString());
}
function revokeClaim(claimId: string): void {
  db.$client
    .prepare("UPDATE merchant_claims SET revoked_at = ?, revoked_by = 'operator:test' WHERE claim_id = ?")
    .run(clock.toISOString(), claimId);
}
beforeEach(() => {
  clock = new Date("2026-11-20T09:00:00.000Z");
  db = openDatabase(path.join(dir, `abeille-${runs++}.db`));
  deps = {
    registry: createMerchantRegistryRepository(db),
    communes: createCommuneLookup(),
    now: () => clock,
    confirmations: createLeadEmailConfirmationRepository(db),
    tokens: createLeadEmailTokens(() => secret),
  };
  view = createMerchantRegistryView(db);
  abId = addMerchant(decision(), declaration, "operator:test").abId;
  addClaim("claim-1", "gerante@boulangerie-martin.fr");
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
        "is not a field the merchant declares (phone, website, hours, hours_exceptions, description, brand_voice, languages, zones, delivery, products); nothing was changed",
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
  const outbox = () => createOutboxRepository(db, sqliteOutboxClaims(db));
  const composeDeps = () => ({
    leads: createLeadRepository(db),
    platformContacts: createPlatformContactRepository(db),
    platformTeamEmail: "equipe@abeille.test",
    leadEmailConfirmations: deps.confirmations,
    leadEmailTokens: deps.tokens,
    spaceNotices: createSpaceNoticeRepository(db),
    baseUrl: "https://abeille.test",
  });
  const claimAll = () =>
    outbox().claimDue({ now: "2999-01-01T00:00:00.000Z", leaseUntil: "2999-01-01T00:05:00.000Z", limit: 50 });
  /** The link of the confirmation email, as the outbox writes it. */
  const linkInEmail = async (): Promise<{ to: string; token: string; text: string }> => {
    const message = (await claimAll()).find((row) => row.kind === "lead_email_confirmation");
    if (!message) throw new Error("no confirmation email in the outbox");
    const mail = await compose(composeDeps(), message);
    const match = mail.text.match(
      /https:\/\/abeille\.test\/pro\/(ab_[a-z0-9]+)\/e-mail\/confirmer\?jeton=([A-Za-z0-9_-]{43})/,
    );
    if (!match || match[1] !== abId) throw new Error(`no link in ${mail.text}`);
    return { to: mail.to, token: match[2] as string, text: mail.text };
  };
  /** The notices waiting in the outbox, claimed, with who they go to. */
  const notices = async () =>
    Promise.all(
      (await claimAll())
        .filter((row) => row.kind === "space_notice")
        .map(async (message) => ({ message, mail: await compose(composeDeps(), message) })),
    );
  const settle = (message: OutboxMessage, outcome: "sent" | "failed") =>
    outbox().settle([
      outcome === "sent"
        ? { messageId: message.messageId, attempts: message.attempts, outcome, at: clock.toISOString() }
        : { messageId: message.messageId, attempts: message.attempts, outcome, at: clock.toISOString(), error: "550" },
    ]);
  const confirmation = () =>
    db.$client
      .prepare(
        "SELECT confirmed_at, withdrawn_at, waiting_notice_id FROM lead_email_confirmations ORDER BY created_at DESC",
      )
      .get() as { confirmed_at: string | null; withdrawn_at: string | null; waiting_notice_id: string | null };
  const asked = async (email: string, actor = ACTOR) => {
    await requestLeadEmail(deps, { abId, actor }, email);
    return (await linkInEmail()).token;
  };

  it("is used only once its link is opened and the address in force was told, by the merchant who asked", async () => {
    addClaim("claim-2", "associe@boulangerie-martin.fr");
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
      outcome: "waiting",
      current: "ancien@boulangerie-martin.fr",
    });
    // Confirmed, it waits for the notice to the address in force: leads still go there.
    expect(view.find(abId)?.merchant.email).toBe("ancien@boulangerie-martin.fr");
    expect((await deps.confirmations.waitingOf(abId))?.email).toBe("demandes@boulangerie-martin.fr");
    const told = await notices();
    expect(told.map(({ mail }) => [mail.to, mail.subject])).toEqual([
      ["ancien@boulangerie-martin.fr", "[Abeille] Boulangerie Martin : l'adresse des demandes change"],
      ["associe@boulangerie-martin.fr", "[Abeille] Boulangerie Martin : l'adresse des demandes change"],
    ]);
    const [toOld, toClaimant] = told as [(typeof told)[0], (typeof told)[0]];
    // The other claimant's notice being sent changes nothing: only the address in force's does.
    await settle(toClaimant.message, "sent");
    expect(view.find(abId)?.merchant.email).toBe("ancien@boulangerie-martin.fr");
    clock = new Date(clock.getTime() + 60_000);
    await settle(toOld.message, "sent");
    expect(view.find(abId)?.merchant.email).toBe("demandes@boulangerie-martin.fr");
    expect(await deps.confirmations.waitingOf(abId)).toBeNull();
    expect([lastEvent()?.actor, lastEvent()?.changes, lastEvent()?.reason, lastEvent()?.at]).toEqual([
      ACTOR,
      { email: { from: "ancien@boulangerie-martin.fr", to: "demandes@boulangerie-martin.fr" } },
      "applied once its notice to the previous lead address was sent",
      "2026-11-20T09:01:00.000Z",
    ]);
    expect(await issuesOf(() => confirmLeadEmail(deps, abId, token))).toEqual([
      ["CONFLICT", "", "This confirmation link was already used"],
    ]);
  });

  it("takes effect when the notice to the address in force fails for good, and the audit log says so", async () => {
    await confirmLeadEmail(deps, abId, await asked("nouvelle@boulangerie-martin.fr"));
    const [toOld] = await notices();
    if (!toOld) throw new Error("no notice");
    await settle(toOld.message, "failed");
    expect(view.find(abId)?.merchant.email).toBe("nouvelle@boulangerie-martin.fr");
    expect(lastEvent()?.reason).toBe(
      "applied after the last attempt to deliver its notice to the previous lead address failed: that address was not told",
    );
  });

  it("does not take effect when its claim is revoked, or a later change is confirmed, while it waits", async () => {
    await confirmLeadEmail(deps, abId, await asked("revoquee@boulangerie-martin.fr"));
    const [revokedNotice] = await notices();
    revokeClaim("claim-1");
    await settle(revokedNotice?.message as OutboxMessage, "sent");
    expect(view.find(abId)?.merchant.email).toBe("ancien@boulangerie-martin.fr");
    expect(confirmation()).toMatchObject({ withdrawn_at: clock.toISOString(), waiting_notice_id: null });

    addClaim("claim-3", null);
    await confirmLeadEmail(deps, abId, await asked("premiere@boulangerie-martin.fr", "merchant:claim-3"));
    const [first] = await notices();
    await confirmLeadEmail(deps, abId, await asked("seconde@boulangerie-martin.fr", "merchant:claim-3"));
    const [second] = await notices();
    // The first notice is sent after the second change was confirmed: the latest confirmed wins.
    await settle(first?.message as OutboxMessage, "sent");
    expect(view.find(abId)?.merchant.email).toBe("ancien@boulangerie-martin.fr");
    await settle(second?.message as OutboxMessage, "sent");
    expect(view.find(abId)?.merchant.email).toBe("seconde@boulangerie-martin.fr");
  });

  it("does not take effect over an address the operators set while it waited; the operators' change is told", async () => {
    await confirmLeadEmail(deps, abId, await asked("attente@boulangerie-martin.fr"));
    const [waiting] = await notices();
    updateMerchant(decision(), abId, { email: "operateur@boulangerie-martin.fr" }, "operator:test");
    // The operators' change is at once, and told to the address it replaces and the claimants.
    const told = await notices();
    expect(told.map(({ mail }) => mail.to)).toEqual(["ancien@boulangerie-martin.fr", "gerante@boulangerie-martin.fr"]);
    expect(told[0]?.mail.text).toContain("Par : l'équipe d'Abeille");
    await settle(waiting?.message as OutboxMessage, "sent");
    expect(view.find(abId)?.merchant.email).toBe("operateur@boulangerie-martin.fr");
  });

  it("with no address in force, takes effect at once and is told to the other claimants", async () => {
    updateMerchant(decision(), abId, { email: null }, "operator:test");
    await notices();
    addClaim("claim-2", "associe@boulangerie-martin.fr");
    const token = await asked("premiere@boulangerie-martin.fr");
    expect(await confirmLeadEmail(deps, abId, token)).toEqual({
      abId,
      email: "premiere@boulangerie-martin.fr",
      outcome: "applied",
    });
    expect(view.find(abId)?.merchant.email).toBe("premiere@boulangerie-martin.fr");
    const told = await notices();
    expect(told.map(({ mail }) => mail.to)).toEqual(["associe@boulangerie-martin.fr"]);
    expect(told[0]?.mail.text).toContain("Ancienne adresse : aucune");
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
    expect(await notices()).toEqual([]);
  });

  it("changes nothing when the claim that asked was revoked since", async () => {
    addClaim("claim-revoked", null);
    const token = await asked("revoque@exemple.fr", "merchant:claim-revoked");
    revokeClaim("claim-revoked");
    expect(await issuesOf(() => confirmLeadEmail(deps, abId, token))).toEqual([
      ["CONFLICT", "", "This confirmation link was asked for through a claim revoked since"],
    ]);
    expect(view.find(abId)?.merchant.email).toBe("ancien@boulangerie-martin.fr");
    expect(confirmation()).toEqual({ confirmed_at: null, withdrawn_at: null, waiting_notice_id: null });
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
