/**
 * Q&A answers' trust on both store engines: the signal a verified answer rests on (`fact_signal`)
 * is written by an observation and read back, a merchant's correction stores the answer as its
 * declaration resting on nothing, and migration 0017 (SQLite) / 0007 (PostgreSQL) words the
 * merchant's earlier vouches (named by the audit log's qa_reviewed events) as its own reviews.
 */
import { describe, expect, it } from "vitest";
import { addMerchant } from "../../src/domain/merchants/add-merchant.ts";
import { decideInRegistry, type MerchantRegistryStore } from "../../src/domain/merchants/merchant-registry.ts";
import { recordPlatformObservation } from "../../src/domain/merchants/record-platform-observation.ts";
import { reviewQaAnswer } from "../../src/domain/merchants/review-qa-answer.ts";
import { createCommuneLookup } from "../../src/seed/communes.ts";
import { createMerchantRegistryRepository } from "../../src/store/merchant-registry-repository.ts";
import { migrations as sqliteMigrations } from "../../src/store/migrations/index.ts";
import { createPostgresMerchantRegistryRepository } from "../../src/store/postgres/merchant-registry-repository.ts";
import { migrations as postgresMigrations } from "../../src/store/postgres/migrations/index.ts";
import { type OpenedStore, storeEngines } from "../helpers/store-engines.ts";

const NOW = new Date("2026-11-26T10:00:00.000Z");
const SIRET = "12345678200010";

function registryOf(store: OpenedStore): MerchantRegistryStore {
  if (store.sqlite) return createMerchantRegistryRepository(store.sqlite);
  if (!store.postgres) throw new Error("no store");
  return createPostgresMerchantRegistryRepository(store.postgres);
}

/** The migration statement that rewords the merchant's earlier vouches, as each engine embeds it. */
function vouchBackfill(store: OpenedStore): string {
  const statements = (store.sqlite ? sqliteMigrations : postgresMigrations).flatMap(
    (migration) => migration.statements,
  );
  const statement = statements.find((text) => text.includes("'merchant_reviewed'"));
  if (!statement) throw new Error("no migration words the merchant's vouches");
  return statement;
}

const observation = {
  siret: SIRET,
  observed_at: "2026-11-25T08:00:00Z",
  signals: [
    {
      key: "territorial_address_verified",
      status: "verified",
      value: true,
      recorded_at: "2026-11-25T08:00:00Z",
      verified_at: "2026-11-25T08:00:00Z",
      expires_at: "2028-11-24T08:00:00Z",
    },
  ],
  qa_clusters: [
    {
      label: "Où nous trouver",
      type: "custom",
      updated_at: "2026-11-25T08:00:00Z",
      nodes: [
        {
          intent: "zone",
          question: "Où se trouve la boulangerie ?",
          answer: "Au 12 rue de la République, à Lyon.",
          answer_bluf: "Au 12 rue de la République.",
          verification_level: "human_verified",
          fact_level: "verified",
          fact_signal: "territorial_address_verified",
          human_verified_at: "2026-11-25T08:00:00Z",
        },
        {
          intent: "prix",
          question: "Combien coûte le pain ?",
          answer: "4,20 €.",
          answer_bluf: "4,20 €.",
          verification_level: "human_verified",
          fact_level: "declared",
          human_verified_at: "2026-11-25T08:00:00Z",
        },
      ],
    },
  ],
};

for (const engine of storeEngines()) {
  describe(`Q&A answers on ${engine.name}`, () => {
    it("keep the signal a verified answer rests on; a correction stores the merchant's declaration", async () => {
      const store = await engine.open();
      const registry = registryOf(store);
      const deps = { registry, communes: createCommuneLookup(), now: () => NOW };
      const { abId } = await decideInRegistry(deps, { sirets: [SIRET] }, (decision) =>
        addMerchant(
          decision,
          {
            siret: SIRET,
            legal_name: "SARL Boulangerie Martin",
            business_name: "Boulangerie Martin",
            naf_code: "10.71C",
            address: { street: "12 rue de la République", postal_code: "69002", city: "Lyon" },
            founded_on: "2015-03-02",
          },
          "operator:test",
        ),
      );
      await decideInRegistry(deps, { sirets: [SIRET] }, (decision) =>
        recordPlatformObservation(decision, observation, "import:test"),
      );
      const nodes = async () =>
        ((await registry.find(abId))?.clusters[0]?.nodes ?? []).map((node) => [
          node.factLevel,
          node.factSignal,
          node.editedByMerchant,
          node.verificationLevel,
        ]);
      expect(await nodes()).toEqual([
        ["verified", "territorial_address_verified", false, "human_verified"],
        ["declared", null, false, "human_verified"],
      ]);
      const nodeId = (await registry.find(abId))?.clusters[0]?.nodes[0]?.nodeId as string;
      await decideInRegistry(deps, { abIds: [abId] }, (decision) =>
        reviewQaAnswer(decision, abId, { nodeId, answer: "Au 14 rue de la République." }, "merchant:claim-1"),
      );
      expect(await nodes()).toEqual([
        ["declared", null, true, "merchant_reviewed"],
        ["declared", null, false, "human_verified"],
      ]);

      // Before merchant_reviewed existed, the merchant's vouch and correction were recorded as a
      // reviewer's: the migration finds them by the qa_reviewed events and leaves the others.
      await store.run("UPDATE qa_nodes SET verification_level = 'human_verified'");
      await store.run(vouchBackfill(store));
      expect(await nodes()).toEqual([
        ["declared", null, true, "merchant_reviewed"],
        ["declared", null, false, "human_verified"],
      ]);
    });
  });
}
