/**
 * The registry's maintenance and the identity check's queue on both engines (src/store/registry-ports.ts
 * and src/store/postgres/registry-ports.ts): whether the registry is empty, its counts, clearing it
 * (the listed merchants' withdrawals in the change feed, the rows depending on merchants deleted,
 * the audit log kept), and the merchants due for their identity check in the same order: missing
 * or undated checks first, then the soonest, then by ab_id; unlisted merchants never.
 */
import { describe, expect, it } from "vitest";
import type { Signal } from "../../src/domain/merchant.ts";
import { addMerchant } from "../../src/domain/merchants/add-merchant.ts";
import { decideInRegistry, type MerchantLifecycleDeps } from "../../src/domain/merchants/merchant-registry.ts";
import { createCommuneLookup } from "../../src/seed/communes.ts";
import { postgresRegistryPorts } from "../../src/store/postgres/registry-ports.ts";
import { type RegistryPorts, sqliteRegistryPorts } from "../../src/store/registry-ports.ts";
import { type OpenedStore, storeEngines } from "../helpers/store-engines.ts";

const NOW = new Date("2026-11-26T10:00:00.000Z");

function portsOf(store: OpenedStore): RegistryPorts {
  if (store.sqlite) return sqliteRegistryPorts(store.sqlite);
  if (!store.postgres) throw new Error("no store");
  return postgresRegistryPorts(store.postgres);
}

const siretVerified = (expiresAt: string | null, status: Signal["status"] = "verified"): Signal => ({
  key: "siret_verified",
  status,
  proofStatus: "official_source_verified",
  source: "official_file",
  sourceUrl: null,
  value: status === "verified",
  verifiedAt: "2026-01-01T00:00:00.000Z",
  recordedAt: "2026-01-01T00:00:00.000Z",
  expiresAt,
});

/** Adds a merchant of this SIRET, ACTIVE or not, with this identity check (none: no signal). */
async function merchant(
  deps: MerchantLifecycleDeps,
  siret: string,
  check: Signal | null,
  status: "ACTIVE" | "SUSPENDED" = "ACTIVE",
): Promise<string> {
  const { abId } = await decideInRegistry(deps, { sirets: [siret] }, (decision) =>
    addMerchant(
      decision,
      {
        siret,
        legal_name: "SARL Test",
        business_name: `Commerce ${siret}`,
        naf_code: "10.71C",
        address: { street: "1 rue de la Paix", postal_code: "69002", city: "Lyon" },
        founded_on: "2015-03-02",
      },
      "operator:test",
    ),
  );
  const found = await deps.registry.find(abId);
  expect(
    await deps.registry.update({
      abId,
      expectedRevision: found?.revision ?? 0,
      fields: { status },
      products: null,
      territorialProof: undefined,
      ...(check ? { signals: [check] } : {}),
      event: { at: NOW.toISOString(), actor: "operator:test", action: "status_changed", changes: {}, reason: "test" },
      feed: "updated",
    }),
  ).toBe(true);
  return abId;
}

for (const engine of storeEngines()) {
  describe(`the registry's maintenance on ${engine.name}`, () => {
    it("lists the merchants due for their identity check, counts, and clears the registry", async () => {
      const store = await engine.open();
      const ports = portsOf(store);
      let drawn = 0;
      const deps: MerchantLifecycleDeps = {
        registry: ports.registry,
        communes: createCommuneLookup(),
        now: () => NOW,
        randomId: () => `ab_due${String(++drawn).padStart(5, "0")}`,
      };
      expect(await ports.maintenance.isEmpty()).toBe(true);
      const late = await merchant(deps, "12345678200010", siretVerified("2026-12-01T00:00:00.000Z"));
      const soon = await merchant(deps, "12345678200028", siretVerified("2026-11-30T00:00:00.000Z"));
      const fresh = await merchant(deps, "12345678200036", siretVerified("2028-01-01T00:00:00.000Z"));
      const missing = await merchant(deps, "12345678200044", null);
      const failed = await merchant(deps, "12345678200051", siretVerified("2027-06-01T00:00:00.000Z", "failed"));
      await merchant(deps, "12345678200069", null, "SUSPENDED");
      expect([late, soon, fresh, missing, failed]).toEqual([
        "ab_due00001",
        "ab_due00002",
        "ab_due00003",
        "ab_due00004",
        "ab_due00005",
      ]);
      expect(await ports.maintenance.isEmpty()).toBe(false);

      expect(await ports.dueForIdentityCheck({ horizon: "2026-12-31T00:00:00.000Z" })).toEqual([
        missing,
        soon,
        late,
        failed,
      ]);
      expect(await ports.dueForIdentityCheck({ horizon: "2026-12-31T00:00:00.000Z", limit: 2 })).toEqual([
        missing,
        soon,
      ]);

      expect(await ports.maintenance.count()).toEqual({
        merchants: 6,
        territorialProofs: 6,
        products: 0,
        signals: 4,
        clusters: 0,
        nodes: 0,
      });
      const feedBefore = (await store.rows("SELECT seq FROM merchant_changes")).length;
      const deleted = await ports.maintenance.clear();
      expect(Object.fromEntries(Object.entries(deleted).filter(([, rows]) => rows > 0))).toEqual({
        merchants: 6,
        signals: 4,
        territorial_proofs: 6,
      });
      expect(await ports.maintenance.isEmpty()).toBe(true);
      // The five ACTIVE merchants were listed: each is withdrawn in the feed, after its last revision.
      const withdrawn = await store.rows<{ ab_id: string; revision: number }>(
        "SELECT ab_id, revision FROM merchant_changes WHERE change = 'withdrawn' ORDER BY seq",
      );
      expect(withdrawn.map((row) => [row.ab_id, Number(row.revision)])).toEqual(
        [late, soon, fresh, missing, failed].map((abId) => [abId, 3]),
      );
      expect((await store.rows("SELECT seq FROM merchant_changes")).length).toBe(feedBefore + 5);
      expect((await store.rows("SELECT event_id FROM merchant_events")).length).toBe(12);
    });
  });
}
