/**
 * The live identity check (src/domain/merchants/verify-official-identity.ts) on a real store: what
 * each answer of the register writes (signal, status, audit event, change feed), what it leaves
 * alone, and which merchants `npm run verify -- --due` picks (src/store/identity-check-queue.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applyOfficialEstablishment } from "../../src/domain/merchants/apply-official-establishment.ts";
import { newMerchant } from "../../src/domain/merchants/build-merchant.ts";
import type { MerchantRegistryStore } from "../../src/domain/merchants/merchant-registry.ts";
import type { OfficialEstablishment } from "../../src/domain/merchants/official-establishment.ts";
import {
  type OfficialLookup,
  OfficialRegistryError,
  type RegisteredEstablishment,
} from "../../src/domain/merchants/official-registry-lookup.ts";
import { verifyOfficialIdentity } from "../../src/domain/merchants/verify-official-identity.ts";
import { makeSiren, makeSiret } from "../../src/domain/siret.ts";
import { isServiceError } from "../../src/errors/service-error.ts";
import { createCommuneLookup } from "../../src/seed/communes.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { merchantsDueForIdentityCheck } from "../../src/store/identity-check-queue.ts";
import {
  createMerchantRegistryRepository,
  createMerchantRegistryView,
} from "../../src/store/merchant-registry-repository.ts";

const NOW = new Date("2026-11-24T10:00:00.000Z");
const NOW_ISO = NOW.toISOString();
const DAY = 24 * 3_600_000;
const ACTOR = "verify:recherche-entreprises";
const API = "https://recherche-entreprises.api.gouv.fr";

let dir: string;
let db: Db;
let registry: ReturnType<typeof createMerchantRegistryView>;
let store: MerchantRegistryStore;
const communes = createCommuneLookup();

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "abeille-verify-"));
  db = openDatabase(path.join(dir, "abeille.db"));
  registry = createMerchantRegistryView(db);
  store = createMerchantRegistryRepository(db);
});
afterEach(() => {
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

let counter = 0;
/** A PROBATION merchant as the SIRENE import makes it (siret_verified from a stock of that date). */
function importedMerchant(processedAt = "2026-10-02T08:15:31.000Z"): { abId: string; siret: string } {
  counter += 1;
  const siren = makeSiren(String(55566600 + counter));
  const siret = makeSiret(siren, "0001");
  const establishment: OfficialEstablishment = {
    siret,
    siren,
    public: true,
    active: true,
    nafCode: "10.71C",
    nafCode2025: null,
    name: `Au Pain Dore ${counter}`,
    street: "14 bis avenue Roger Salengro",
    postalCode: "69100",
    city: "Villeurbanne",
    inseeCode: "69266",
    createdOn: "2011-09-15",
    processedAt,
    asOf: processedAt,
    legalUnit: { siren, legalName: `AU PAIN DORE ${counter}`, createdOn: "2011-09-15", legalForm: "5499" },
  };
  const outcome = applyOfficialEstablishment({ registry, communes, now: () => NOW }, establishment, "import:sirene");
  if (outcome.kind !== "created") throw new Error(`not created: ${outcome.kind}`);
  return { abId: outcome.abId, siret };
}

function answering(answer: (siret: string) => RegisteredEstablishment | null) {
  const asked: string[] = [];
  return {
    asked,
    lookup: {
      async findEstablishment(siret: string): Promise<OfficialLookup> {
        asked.push(siret);
        return { url: `${API}/search?q=${siret}`, establishment: answer(siret) };
      },
    },
  };
}

const establishment = (siret: string, changes: Partial<RegisteredEstablishment> = {}): RegisteredEstablishment => ({
  siret,
  siren: siret.slice(0, 9),
  active: true,
  closedOn: null,
  public: true,
  nafCode: "10.71C",
  nafCode2025: "10.71H",
  address: "14 B AVENUE ROGER SALENGRO 69100 VILLEURBANNE",
  legalName: "SARL AU PAIN DORE",
  ...changes,
});

const feedOf = (abId: string) =>
  db.$client
    .prepare<[string], { change: string }>("SELECT change FROM merchant_changes WHERE ab_id = ? ORDER BY seq")
    .all(abId)
    .map((row) => row.change);

const identityOf = (abId: string) => registry.find(abId)?.signals.find((signal) => signal.key === "siret_verified");

describe("verifyOfficialIdentity", () => {
  it("renews siret_verified from the API when the establishment is found and active", async () => {
    const { abId, siret } = importedMerchant();
    const { lookup } = answering((asked) => establishment(asked));
    const outcome = await verifyOfficialIdentity({ registry: store, now: () => NOW, lookup }, abId, ACTOR);
    expect(outcome).toEqual({ kind: "verified", abId, url: `${API}/search?q=${siret}` });
    expect(identityOf(abId)).toEqual({
      key: "siret_verified",
      status: "verified",
      proofStatus: "official_source_verified",
      source: "official_api",
      sourceUrl: `${API}/search?q=${siret}`,
      value: true,
      verifiedAt: NOW_ISO,
      recordedAt: NOW_ISO,
      expiresAt: "2028-11-23T10:00:00.000Z",
      // Which official source said so: merchant.sources names it.
      origin: "recherche-entreprises",
    });
    const found = registry.find(abId);
    expect([found?.merchant.status, found?.revision]).toEqual(["PROBATION", 2]);
    expect(registry.events(abId).at(-1)).toEqual({
      eventId: expect.any(Number),
      revision: 2,
      at: NOW_ISO,
      actor: ACTOR,
      action: "updated",
      changes: {
        siret_verified: { from: "verified 2026-10-02T08:15:31.000Z", to: `verified ${NOW_ISO}` },
      },
      reason: "établissement actif au répertoire SIRENE (API Recherche d'entreprises)",
    });
    expect(feedOf(abId)).toEqual(["created", "updated"]);
  });

  it("records the closure of a closed establishment (status kept, resolvable), with the reason and the failed check", async () => {
    const { abId, siret } = importedMerchant();
    const { lookup } = answering((asked) => establishment(asked, { active: false, closedOn: "2026-09-30" }));
    const outcome = await verifyOfficialIdentity({ registry: store, now: () => NOW, lookup }, abId, ACTOR);
    expect(outcome).toEqual({ kind: "closed", abId, url: `${API}/search?q=${siret}` });
    const after = registry.find(abId)?.merchant;
    expect(after?.status).toBe("PROBATION");
    expect(after?.closure).toEqual({
      closedOn: "2026-09-30",
      source: "sirene",
      sourceUrl: `${API}/search?q=${siret}`,
      label: "Établissement fermé (API Recherche d'entreprises)",
      announcementId: null,
      recordedAt: NOW_ISO,
    });
    expect(identityOf(abId)).toMatchObject({
      status: "failed",
      value: false,
      source: "official_api",
      verifiedAt: NOW_ISO,
    });
    expect(registry.events(abId).at(-1)).toMatchObject({
      actor: ACTOR,
      action: "updated",
      changes: {
        siret_verified: { from: "verified 2026-10-02T08:15:31.000Z", to: `failed ${NOW_ISO}` },
        closure: { from: null, to: { closed_on: "2026-09-30", source: "sirene" } },
      },
      reason: "établissement fermé au répertoire SIRENE depuis le 2026-09-30 (API Recherche d'entreprises)",
    });
    expect(feedOf(abId)).toEqual(["created", "updated"]);

    // Found active again: SIRENE's closure is lifted and the check verified.
    const { lookup: reopened } = answering((asked) => establishment(asked));
    expect(await verifyOfficialIdentity({ registry: store, now: () => NOW, lookup: reopened }, abId, ACTOR)).toEqual({
      kind: "verified",
      abId,
      url: `${API}/search?q=${siret}`,
    });
    expect(registry.find(abId)?.merchant.closure).toBeNull();
    expect(registry.events(abId).at(-1)?.changes).toMatchObject({
      closure: { from: { closed_on: "2026-09-30", source: "sirene" }, to: null },
    });
  });

  it("marks the check failed when the register does not know the SIRET, and leaves the status to the operator", async () => {
    const { abId, siret } = importedMerchant();
    const { lookup } = answering(() => null);
    const outcome = await verifyOfficialIdentity({ registry: store, now: () => NOW, lookup }, abId, ACTOR);
    expect(outcome).toEqual({ kind: "not_found", abId, url: `${API}/search?q=${siret}` });
    expect(registry.find(abId)?.merchant.status).toBe("PROBATION");
    expect(identityOf(abId)).toMatchObject({ status: "failed", value: false, sourceUrl: `${API}/search?q=${siret}` });
    expect(registry.events(abId).at(-1)).toMatchObject({
      action: "updated",
      reason: `SIRET ${siret} introuvable au répertoire SIRENE (API Recherche d'entreprises)`,
    });
    expect(feedOf(abId)).toEqual(["created", "updated"]);
  });

  it("archives a merchant whose establishment is no longer public, as the SIRENE import does, signal untouched", async () => {
    const { abId } = importedMerchant();
    const { lookup } = answering((asked) => establishment(asked, { public: false, address: null }));
    const outcome = await verifyOfficialIdentity({ registry: store, now: () => NOW, lookup }, abId, ACTOR);
    expect(outcome).toMatchObject({ kind: "not_public", archived: true });
    expect(registry.find(abId)?.merchant.status).toBe("ARCHIVED");
    expect(identityOf(abId)).toMatchObject({ status: "verified", source: "official_file" });
    expect(registry.events(abId).at(-1)?.reason).toBe(
      "établissement non diffusible au répertoire SIRENE (API Recherche d'entreprises)",
    );
  });

  it("does not ask about an archived merchant (CONFLICT), nor about an unknown one (MERCHANT_NOT_FOUND)", async () => {
    const { abId } = importedMerchant();
    // No longer public: archived (a closed establishment is not: its closure is recorded instead).
    const hidden = answering((asked) => establishment(asked, { public: false, address: null }));
    await verifyOfficialIdentity({ registry: store, now: () => NOW, lookup: hidden.lookup }, abId, ACTOR);
    const again = answering((asked) => establishment(asked));
    const codes: string[] = [];
    for (const id of [abId, "ab_unknown0"]) {
      try {
        await verifyOfficialIdentity({ registry: store, now: () => NOW, lookup: again.lookup }, id, ACTOR);
      } catch (error) {
        if (isServiceError(error)) codes.push(error.code);
      }
    }
    expect(codes).toEqual(["CONFLICT", "MERCHANT_NOT_FOUND"]);
    expect(again.asked).toEqual([]);
  });

  it("writes nothing when the register cannot answer", async () => {
    const { abId, siret } = importedMerchant();
    const lookup = {
      async findEstablishment(): Promise<OfficialLookup> {
        throw new OfficialRegistryError("timeout", `${API}/search?q=${siret}`, "no answer");
      },
    };
    await expect(verifyOfficialIdentity({ registry: store, now: () => NOW, lookup }, abId, ACTOR)).rejects.toThrow(
      OfficialRegistryError,
    );
    expect(registry.find(abId)?.revision).toBe(1);
    expect(identityOf(abId)?.source).toBe("official_file");
  });

  it("applies the answer to the merchant as it is when the answer comes (an operator acted meanwhile)", async () => {
    const { abId } = importedMerchant();
    const lookup = {
      async findEstablishment(siret: string): Promise<OfficialLookup> {
        const current = registry.find(abId);
        registry.update({
          abId,
          expectedRevision: current?.revision ?? 0,
          fields: { status: "SUSPENDED", updatedAt: NOW_ISO },
          products: null,
          territorialProof: undefined,
          event: { at: NOW_ISO, actor: "operator:test", action: "status_changed", changes: {}, reason: "contrôle" },
          feed: "withdrawn",
        });
        return { url: `${API}/search?q=${siret}`, establishment: establishment(siret) };
      },
    };
    expect((await verifyOfficialIdentity({ registry: store, now: () => NOW, lookup }, abId, ACTOR)).kind).toBe(
      "verified",
    );
    const found = registry.find(abId);
    expect([found?.merchant.status, found?.revision]).toEqual(["SUSPENDED", 3]);
    // A suspended merchant is not listed: the check is no news to the feed.
    expect(feedOf(abId)).toEqual(["created", "withdrawn"]);
  });
});

describe("merchants due for the check (npm run verify -- --due)", () => {
  it("lists the listed merchants whose siret_verified ends within the horizon, or is missing or not verified", async () => {
    const expiring = importedMerchant(new Date(NOW.getTime() - 700 * DAY).toISOString()); // ends in 30 days
    const fresh = importedMerchant(); // ends in 2028
    const failed = importedMerchant();
    await verifyOfficialIdentity(
      { registry: store, now: () => NOW, lookup: answering(() => null).lookup },
      failed.abId,
      ACTOR,
    );
    const archived = importedMerchant(new Date(NOW.getTime() - 700 * DAY).toISOString());
    await verifyOfficialIdentity(
      {
        registry: store,
        now: () => NOW,
        lookup: answering((asked) => establishment(asked, { active: false })).lookup,
      },
      archived.abId,
      ACTOR,
    );
    // Declared, never checked: no siret_verified at all.
    const declared = newMerchant(
      {
        abId: "ab_declared",
        siret: makeSiret(makeSiren("12312312"), "0001"),
        legalName: "Fleurs",
        businessName: "Fleurs",
        nafCode: "10.71C",
        street: "1 rue de Lyon",
        postalCode: "69100",
        city: "Villeurbanne",
        foundedOn: "2020-01-01",
      },
      NOW_ISO,
    );
    registry.create({
      merchant: declared,
      territorialProof: null,
      products: [],
      event: { at: NOW_ISO, actor: "merchant", action: "created", changes: {}, reason: null },
      feed: "created",
    });

    const due = (days: number) =>
      merchantsDueForIdentityCheck(db, { horizon: new Date(NOW.getTime() + days * DAY).toISOString() });
    expect(due(10)).toEqual(["ab_declared", failed.abId]);
    expect(due(60)).toEqual(["ab_declared", expiring.abId, failed.abId]);
    expect(due(800)).toEqual(["ab_declared", expiring.abId, fresh.abId, failed.abId]);
    expect(merchantsDueForIdentityCheck(db, { horizon: NOW_ISO, limit: 1 })).toEqual(["ab_declared"]);
  });
});
