/**
 * The registry's writes on both engines (src/store/merchant-registry-repository.ts and
 * src/store/postgres/merchant-registry-repository.ts): a merchant created and changed from its
 * expected revision (a stale revision writes nothing), its audit log and change feed, the reads
 * (find, SIRET, SIREN, list), and batches: a row that throws leaves nothing while the others stay,
 * later rows see earlier ones, and two connections changing one merchant at once: one wins, the
 * other answers false.
 */
import { describe, expect, it } from "vitest";
import { addMerchant } from "../../src/domain/merchants/add-merchant.ts";
import { changeMerchantStatus } from "../../src/domain/merchants/change-merchant-status.ts";
import {
  decideInRegistry,
  type MerchantLifecycleDeps,
  type MerchantModification,
  type MerchantRegistryStore,
} from "../../src/domain/merchants/merchant-registry.ts";
import { updateMerchant } from "../../src/domain/merchants/update-merchant.ts";
import { buildMerchantDocument, type MerchantRow } from "../../src/search/embedded/documents.ts";
import { createSearchSource } from "../../src/search/source.ts";
import { createCommuneLookup } from "../../src/seed/communes.ts";
import { createMerchantRegistryRepository } from "../../src/store/merchant-registry-repository.ts";
import { createPostgresMerchantRegistryRepository } from "../../src/store/postgres/merchant-registry-repository.ts";
import { createPostgresSearchSource } from "../../src/store/postgres/search-source.ts";
import type { PostgresStore } from "../../src/store/postgres/store.ts";
import { type OpenedStore, storeEngines } from "../helpers/store-engines.ts";

const NOW = new Date("2026-11-26T10:00:00.000Z");
const SIREN = "123456782";
const SIRET = "12345678200010";
const OTHER_SIRET = "12345678200028";

const declaration = (siret: string, name: string) => ({
  siret,
  legal_name: "SARL Boulangerie Martin",
  business_name: name,
  naf_code: "10.71C",
  address: { street: "12 rue de la République", postal_code: "69002", city: "Lyon" },
  founded_on: "2015-03-02",
  products: [
    {
      slug: "pain-de-campagne",
      name: "Pain de campagne",
      description: "Au levain.",
      brick_type: "product",
      pricing_model: "fixed",
      price_cents: 420,
    },
  ],
});

function registryOf(store: OpenedStore): MerchantRegistryStore {
  if (store.sqlite) return createMerchantRegistryRepository(store.sqlite);
  if (!store.postgres) throw new Error("no store");
  return createPostgresMerchantRegistryRepository(store.postgres);
}

function lifecycleOf(registry: MerchantRegistryStore): MerchantLifecycleDeps {
  let drawn = 0;
  return {
    registry,
    communes: createCommuneLookup(),
    now: () => NOW,
    randomId: () => `ab_test${String(++drawn).padStart(4, "0")}`,
    newId: (() => {
      let id = 0;
      return () => `00000000-0000-4000-8000-${String(++id).padStart(12, "0")}`;
    })(),
  };
}

const changeOf = (abId: string, expectedRevision: number, phone: string): MerchantModification => ({
  abId,
  expectedRevision,
  fields: { phone, updatedAt: NOW.toISOString() },
  products: null,
  territorialProof: undefined,
  event: {
    at: NOW.toISOString(),
    actor: "operator:test",
    action: "updated",
    changes: { phone: { from: null, to: phone } },
    reason: null,
  },
  feed: "updated",
});

async function feedOf(store: OpenedStore): Promise<[string, number, string][]> {
  const rows = await store.rows<{ ab_id: string; revision: number; change: string }>(
    "SELECT ab_id, revision, change FROM merchant_changes ORDER BY seq",
  );
  return rows.map((row) => [row.ab_id, Number(row.revision), row.change]);
}

for (const engine of storeEngines()) {
  describe(`the registry's writes on ${engine.name}`, () => {
    it("create, update from the expected revision (a stale one writes nothing), events, reads and the change feed", async () => {
      const store = await engine.open();
      const registry = registryOf(store);
      const deps = lifecycleOf(registry);
      const added = await decideInRegistry(deps, { sirets: [SIRET] }, (decision) =>
        addMerchant(decision, declaration(SIRET, "Boulangerie Martin"), "operator:test"),
      );
      expect(added).toMatchObject({ abId: "ab_test0001", revision: 1 });
      const other = await decideInRegistry(deps, { sirets: [OTHER_SIRET] }, (decision) =>
        addMerchant(decision, declaration(OTHER_SIRET, "Boulangerie Martin Gare"), "operator:test"),
      );
      expect(other.abId).toBe("ab_test0002");

      expect(await registry.abIdOfSiret(SIRET)).toBe("ab_test0001");
      expect(await registry.abIdOfSiret("73282932000074")).toBeNull();
      expect(await registry.abIdsOfSiren(SIREN)).toEqual(["ab_test0001", "ab_test0002"]);
      expect(await registry.abIdsOfSiren("12345")).toEqual([]);
      const found = await registry.find("ab_test0001");
      expect(found).toMatchObject({
        revision: 1,
        paymentAccountId: null,
        merchant: { abId: "ab_test0001", siret: SIRET, businessName: "Boulangerie Martin", city: "Lyon" },
        territorialProof: { postalCode: "69002" },
        clusters: [],
      });
      expect(found?.products.map((product) => product.slug)).toEqual(["pain-de-campagne"]);
      expect(await registry.find("ab_nothere")).toBeNull();

      expect(await registry.update(changeOf("ab_test0001", 1, "+33 4 78 00 00 01"))).toBe(true);
      // Revision 1 is stale now: nothing is written, no event, no feed row.
      expect(await registry.update(changeOf("ab_test0001", 1, "+33 4 78 00 00 02"))).toBe(false);
      expect(await registry.update(changeOf("ab_nothere", 1, "+33 4 78 00 00 02"))).toBe(false);
      const changed = await registry.find("ab_test0001");
      expect([changed?.revision, changed?.merchant.phone]).toEqual([2, "+33 4 78 00 00 01"]);
      const events = await registry.events("ab_test0001");
      expect(events.map((event) => [event.revision, event.action, event.actor, event.changes])).toEqual([
        [1, "created", "operator:test", events[0]?.changes],
        [2, "updated", "operator:test", { phone: { from: null, to: "+33 4 78 00 00 01" } }],
      ]);
      expect(events[1]?.eventId).toBeGreaterThan(events[0]?.eventId ?? Number.POSITIVE_INFINITY);
      expect(await feedOf(store)).toEqual([
        ["ab_test0001", 1, "created"],
        ["ab_test0002", 1, "created"],
        ["ab_test0001", 2, "updated"],
      ]);

      expect(await registry.list({ limit: 10 })).toEqual([
        expect.objectContaining({ abId: "ab_test0001", revision: 2, status: "PROBATION", postalCode: "69002" }),
        expect.objectContaining({ abId: "ab_test0002", revision: 1, status: "PROBATION" }),
      ]);
      expect((await registry.list({ limit: 1 })).map((row) => row.abId)).toEqual(["ab_test0001"]);
      expect(await registry.list({ status: "ACTIVE", limit: 10 })).toEqual([]);
      expect((await registry.list({ department: "69", limit: 10 })).map((row) => row.abId)).toEqual([
        "ab_test0001",
        "ab_test0002",
      ]);
      expect(await registry.list({ department: "75", limit: 10 })).toEqual([]);
    });

    it("keeps the dated exceptions of the hours, replaced as a whole, and the search's reads and documents carry them", async () => {
      const store = await engine.open();
      const registry = registryOf(store);
      const deps = lifecycleOf(registry);
      const { abId } = await decideInRegistry(deps, { sirets: [SIRET] }, (decision) =>
        addMerchant(
          decision,
          {
            ...declaration(SIRET, "Boulangerie Martin"),
            hours: { mardi: "07:00-19:30", dimanche: "07:00-12:30" },
            hours_exceptions: [
              { from: "2026-12-24", hours: "07:00-12:00", note: "veille de Noël" },
              { from: "2026-08-03", to: "2026-08-23", hours: "fermé" },
            ],
          },
          "operator:test",
        ),
      );
      // In date order, `to` and `note` filled in.
      expect((await registry.find(abId))?.merchant.hoursExceptions).toEqual([
        { from: "2026-08-03", to: "2026-08-23", hours: "fermé", note: null },
        { from: "2026-12-24", to: "2026-12-24", hours: "07:00-12:00", note: "veille de Noël" },
      ]);
      const updated = await decideInRegistry(deps, { abIds: [abId] }, (decision) =>
        updateMerchant(
          decision,
          abId,
          { hours_exceptions: [{ from: "2026-12-25", hours: "08:00-12:00" }] },
          "merchant:c1",
        ),
      );
      expect(updated.changed).toEqual(["hoursExceptions"]);
      expect((await registry.find(abId))?.merchant.hoursExceptions).toEqual([
        { from: "2026-12-25", to: "2026-12-25", hours: "08:00-12:00", note: null },
      ]);
      // What every search engine reads: the schedule beside the document, and its opening tokens.
      if (!store.sqlite && !store.postgres) throw new Error("no store");
      const source = store.sqlite
        ? createSearchSource(store.sqlite)
        : createPostgresSearchSource((store.postgres as PostgresStore).pool);
      const { merchants } = await source.readMerchants([abId]);
      const document = buildMerchantDocument(merchants[0] as MerchantRow, [], 0);
      expect(JSON.parse(document.schedule ?? "null")).toEqual({
        hours: { mardi: "07:00-19:30", dimanche: "07:00-12:30" },
        exceptions: [{ from: "2026-12-25", to: "2026-12-25", hours: "08:00-12:00", note: null }],
        department: "69",
      });
      expect(document.openingTokens).toEqual(
        expect.arrayContaining(["o_207", "o_219", "o_707", "o_712", "x_20261225"]),
      );
      expect(document.openingTokens).toHaveLength(13 + 6 + 1);
    });

    it("a batch: a row that throws leaves nothing, the others stay, later rows see earlier ones", async () => {
      const store = await engine.open();
      const registry = registryOf(store);
      const deps = lifecycleOf(registry);
      const outcomes = await decideInRegistry(deps, { sirets: [SIRET, OTHER_SIRET] }, (decision) => {
        const first = decision.registry.row(() =>
          addMerchant(decision, declaration(SIRET, "Boulangerie Martin"), "import:test"),
        );
        // The second row writes, then throws: its merchant and its first change go with it.
        let refused = "";
        try {
          decision.registry.row(() => {
            const added = addMerchant(decision, declaration(OTHER_SIRET, "Boulangerie Gare"), "import:test");
            updateMerchant(decision, added.abId, { phone: "+33 4 78 00 00 09" }, "import:test");
            throw new Error("refused after two writes");
          });
        } catch (error) {
          refused = (error as Error).message;
        }
        // A later row sees what the first wrote: the merchant by its SIRET, at revision 1, then 2.
        const seen = decision.registry.row(() => {
          const abId = decision.registry.abIdOfSiret(SIRET);
          if (!abId) throw new Error("the first row's merchant is not seen");
          updateMerchant(decision, abId, { phone: "+33 4 78 00 00 03" }, "import:test");
          return changeMerchantStatus(decision, abId, { status: "ARCHIVED", reason: "fermé" }, "import:test");
        });
        return {
          first: first.abId,
          refused,
          seen,
          otherFree: decision.registry.abIdOfSiret(OTHER_SIRET),
        };
      });
      expect(outcomes).toEqual({
        first: "ab_test0001",
        refused: "refused after two writes",
        seen: { abId: "ab_test0001", from: "PROBATION", to: "ARCHIVED", revision: 3 },
        otherFree: null,
      });
      expect(await registry.abIdOfSiret(OTHER_SIRET)).toBeNull();
      expect(await registry.find("ab_test0002")).toBeNull();
      expect(await store.rows("SELECT ab_id FROM merchant_events WHERE ab_id = 'ab_test0002'")).toEqual([]);
      const kept = await registry.find("ab_test0001");
      expect([kept?.revision, kept?.merchant.phone, kept?.merchant.status]).toEqual([
        3,
        "+33 4 78 00 00 03",
        "ARCHIVED",
      ]);
      expect((await registry.events("ab_test0001")).map((event) => [event.revision, event.action])).toEqual([
        [1, "created"],
        [2, "updated"],
        [3, "status_changed"],
      ]);
      expect(await feedOf(store)).toEqual([
        ["ab_test0001", 1, "created"],
        ["ab_test0001", 2, "updated"],
        ["ab_test0001", 3, "withdrawn"],
      ]);
    });

    it("a batch that throws writes nothing at all", async () => {
      const store = await engine.open();
      const registry = registryOf(store);
      const deps = lifecycleOf(registry);
      await expect(
        decideInRegistry(deps, { sirets: [SIRET] }, (decision) => {
          decision.registry.row(() => addMerchant(decision, declaration(SIRET, "Boulangerie Martin"), "import:test"));
          throw new Error("the batch stops");
        }),
      ).rejects.toThrow("the batch stops");
      expect(await registry.abIdOfSiret(SIRET)).toBeNull();
      expect(await store.rows("SELECT ab_id FROM merchant_events")).toEqual([]);
    });

    it("two connections changing one merchant at once: one wins, the other answers false", async () => {
      const store = await engine.open();
      const registry = registryOf(store);
      const deps = lifecycleOf(registry);
      const { abId } = await decideInRegistry(deps, { sirets: [SIRET] }, (decision) =>
        addMerchant(decision, declaration(SIRET, "Boulangerie Martin"), "operator:test"),
      );
      const elsewhere = registryOf(store.another());
      const answers = await Promise.all([
        registry.update(changeOf(abId, 1, "+33 4 78 00 00 01")),
        elsewhere.update(changeOf(abId, 1, "+33 4 78 00 00 02")),
      ]);
      expect(answers.filter(Boolean)).toHaveLength(1);
      const found = await elsewhere.find(abId);
      expect(found?.revision).toBe(2);
      expect(found?.merchant.phone).toBe(answers[0] ? "+33 4 78 00 00 01" : "+33 4 78 00 00 02");
      expect((await registry.events(abId)).map((event) => event.revision)).toEqual([1, 2]);
      expect(await feedOf(store)).toEqual([
        [abId, 1, "created"],
        [abId, 2, "updated"],
      ]);
    });
  });
}
