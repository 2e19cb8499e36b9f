import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluateCapabilities, ORDER_MIN_TRUST } from "../../src/domain/capabilities.ts";
import { computeTrust } from "../../src/domain/trust/compute-trust.ts";
import type { MerchantStatus } from "../../src/schemas/envelope.ts";
import { type DemoRoster, ROSTER_CASES, seedDemoRegistry } from "../../src/seed/seed-demo.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";

const NOW = new Date("2026-11-01T10:00:00.000Z");

interface Seeded {
  db: Db;
  dataDir: string;
  roster: DemoRoster;
}

async function seed(count: number, seedValue: number): Promise<Seeded> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-roster-"));
  const db = openDatabase(path.join(dataDir, "abeille.db"));
  await seedDemoRegistry(db, { count, seed: seedValue, now: NOW, dataDir, searchIndex: null });
  const roster = JSON.parse(readFileSync(path.join(dataDir, "demo-roster.json"), "utf8")) as DemoRoster;
  return { db, dataDir, roster };
}

interface MerchantRow {
  ab_id: string;
  status: MerchantStatus;
  sector: string;
  business_name: string;
  payment_setup: number;
  description_llm_unreviewed: number;
  email: string | null;
  phone: string | null;
  brand_voice: string | null;
}

/** Status, trust and capabilities recomputed from the stored rows, the way the service would. */
function stateOf(db: Db, abId: string) {
  const merchant = db.$client.prepare("SELECT * FROM merchants WHERE ab_id = ?").get(abId) as MerchantRow;
  const signals = (
    db.$client.prepare("SELECT key, status, value, expires_at FROM signals WHERE ab_id = ?").all(abId) as {
      key: string;
      status: string;
      value: string | null;
      expires_at: string | null;
    }[]
  ).map((row) => ({
    key: row.key,
    status: row.status,
    value: row.value === null ? null : (JSON.parse(row.value) as number | string | boolean),
    expiresAt: row.expires_at,
  }));
  const trust = computeTrust(signals, merchant.sector, NOW).breakdown.total;
  const brandVoice = merchant.brand_voice ? (JSON.parse(merchant.brand_voice) as { is_published: boolean }) : null;
  const capabilities = evaluateCapabilities({
    status: merchant.status,
    trustScore: trust,
    paymentSetup: merchant.payment_setup === 1,
    descriptionLlmUnreviewed: merchant.description_llm_unreviewed === 1,
    hasContactChannel: Boolean(merchant.email || merchant.phone),
    brandVoicePublished: brandVoice?.is_published ?? false,
    orderRailEnabled: false,
  });
  const clusters = (
    db.$client.prepare("SELECT count(*) AS n FROM qa_clusters WHERE ab_id = ?").get(abId) as { n: number }
  ).n;
  return { merchant, trust, state: capabilities.state, clusters };
}

describe("demo roster of a 200-merchant registry", () => {
  let seeded: Seeded;
  beforeAll(async () => {
    seeded = await seed(200, 20261122);
  });
  afterAll(() => {
    seeded.db.$client.close();
    rmSync(seeded.dataDir, { recursive: true, force: true });
  });

  it("is written to DATA_DIR/demo-roster.json with the seed, count and generation time", () => {
    expect(seeded.roster.seed).toBe(20261122);
    expect(seeded.roster.count).toBe(200);
    expect(seeded.roster.generated_at).toBe(NOW.toISOString());
  });

  it("lists between 1 and 20 existing merchants for every case", () => {
    for (const name of ROSTER_CASES) {
      const ids = seeded.roster.cases[name];
      expect(ids.length, name).toBeGreaterThan(0);
      expect(ids.length, name).toBeLessThanOrEqual(20);
      expect(new Set(ids).size, name).toBe(ids.length);
      for (const abId of ids) {
        expect(abId).toMatch(/^ab_[a-z0-9]{8}$/);
        expect(stateOf(seeded.db, abId).merchant, abId).toBeDefined();
      }
    }
  });

  it("puts each merchant in the case its stored status and capabilities say", () => {
    const { cases } = seeded.roster;
    for (const abId of cases.active_contactable) {
      const { merchant, state } = stateOf(seeded.db, abId);
      expect(merchant.status).toBe("ACTIVE");
      expect(state.can_contact).toBe(true);
    }
    for (const abId of cases.contact_disabled) {
      const { merchant, state } = stateOf(seeded.db, abId);
      expect(merchant.status).toBe("ACTIVE");
      expect(state.can_contact).toBe(false);
    }
    const byStatus: [keyof typeof cases, MerchantStatus][] = [
      ["probation", "PROBATION"],
      ["paused", "PAUSED"],
      ["suspended", "SUSPENDED"],
      ["archived", "ARCHIVED"],
    ];
    for (const [name, status] of byStatus) {
      for (const abId of cases[name]) expect(stateOf(seeded.db, abId).merchant.status, abId).toBe(status);
    }
    for (const abId of cases.order_ready) {
      const { merchant, trust, state } = stateOf(seeded.db, abId);
      expect(merchant.status).toBe("ACTIVE");
      expect(trust).toBeGreaterThanOrEqual(ORDER_MIN_TRUST);
      expect(merchant.payment_setup).toBe(1);
      expect(state.can_receive_orders).toBe(true);
      expect(state.can_order).toBe(false);
    }
    for (const abId of cases.with_clusters) {
      const { merchant, clusters } = stateOf(seeded.db, abId);
      expect(["ACTIVE", "PROBATION"]).toContain(merchant.status);
      expect(clusters).toBeGreaterThan(0);
    }
  });

  it("shows contact refused both for an unreviewed description and for a trust score below 10", () => {
    const reasons = seeded.roster.cases.contact_disabled.map((abId) => stateOf(seeded.db, abId));
    expect(reasons.some(({ state }) => state.blocked_because.includes("description_llm_unreviewed"))).toBe(true);
    expect(reasons.some(({ trust }) => trust < 10)).toBe(true);
  });

  it("lists geo queries that truly match a listed merchant: in radius, with the tag and the word", () => {
    const queries = seeded.roster.geo_queries;
    expect(queries.length).toBeGreaterThanOrEqual(3);
    const candidates = seeded.db.$client.prepare(`
      SELECT m.ab_id, m.business_name,
        2 * 6371.0088 * asin(sqrt(
          pow(sin(radians(t.latitude - @lat) / 2), 2) +
          cos(radians(@lat)) * cos(radians(t.latitude)) * pow(sin(radians(t.longitude - @lng) / 2), 2)
        )) AS distance_km
      FROM merchants m JOIN territorial_proofs t ON t.ab_id = m.ab_id
      WHERE m.status IN ('ACTIVE', 'PROBATION')
        AND EXISTS (
          SELECT 1 FROM products p, json_each(p.tags) tag WHERE p.ab_id = m.ab_id AND tag.value = @tag
        )
    `);
    for (const query of queries) {
      expect(query.q.length).toBeGreaterThan(0);
      expect(query.radius).toBeGreaterThan(0);
      expect(query.tags.length).toBeGreaterThan(0);
      const rows = candidates.all({ lat: query.lat, lng: query.lng, tag: query.tags[0] }) as {
        ab_id: string;
        business_name: string;
        distance_km: number;
      }[];
      const matches = rows.filter(
        (row) => row.distance_km <= query.radius && row.business_name.toLowerCase().includes(query.q),
      );
      expect(
        matches.map((row) => row.ab_id),
        JSON.stringify(query),
      ).toContain(query.expected_ab_id);
    }
  });

  it("includes merchants of the tourisme sector", () => {
    const count = seeded.db.$client.prepare("SELECT count(*) AS n FROM merchants WHERE sector = 'tourisme'").get() as {
      n: number;
    };
    expect(count.n).toBeGreaterThan(0);
  });
});

describe("demo roster of a small registry", () => {
  it("covers every case with 50 merchants, whatever the seed", async () => {
    for (const seedValue of [1, 7, 99]) {
      const seeded = await seed(50, seedValue);
      try {
        for (const name of ROSTER_CASES)
          expect(seeded.roster.cases[name].length, `${seedValue} ${name}`).toBeGreaterThan(0);
        expect(seeded.roster.geo_queries.length).toBeGreaterThan(0);
      } finally {
        seeded.db.$client.close();
        rmSync(seeded.dataDir, { recursive: true, force: true });
      }
    }
  });
});
