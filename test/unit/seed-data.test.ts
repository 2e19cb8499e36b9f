import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { trades } from "../../src/domain/sectors.ts";
import { isValidSiren, isValidSiret, sirenOf, vatFromSiren } from "../../src/domain/siret.ts";
import { computeTrust } from "../../src/domain/trust/compute-trust.ts";
import { proofStatusFor, signalApplies, signalDefinition } from "../../src/domain/trust/signal-catalog.ts";
import { observationVocabulary } from "../../src/schemas/platform-observation.ts";
import { distanceKm, loadCommuneReference } from "../../src/seed/communes.ts";
import { seedDemoRegistry } from "../../src/seed/seed-demo.ts";
import { tradeContent } from "../../src/seed/trade-content.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { clearRegistry, countRegistry, isRegistryEmpty } from "../../src/store/registry-maintenance.ts";

const NOW = new Date("2026-11-01T10:00:00.000Z");
const NOW_ISO = NOW.toISOString();
const WEEKDAYS = ["lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"];

type Row = Record<string, string | number | null>;

let dataDir: string;
let db: Db;
const all = (sql: string): Row[] => db.$client.prepare(sql).all() as Row[];
const text = (row: Row, column: string): string => String(row[column]);
const json = <T>(row: Row, column: string): T => JSON.parse(text(row, column)) as T;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-data-"));
  db = openDatabase(path.join(dataDir, "abeille.db"));
  await seedDemoRegistry(db, { count: 300, seed: 314, now: NOW, dataDir, searchIndex: null });
});

afterAll(() => {
  db.$client.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("seeded merchants", () => {
  it("come in through the same door as real ones: SIRENE, declaration, observation, then the operator", () => {
    // Each merchant's audit log, its first events as actor:action (later ones: lifecycle and BODACC).
    const logs = new Map<string, string[]>();
    for (const row of all("SELECT ab_id, actor, action FROM merchant_events ORDER BY event_id")) {
      const list = logs.get(text(row, "ab_id")) ?? [];
      list.push(`${row.actor}:${row.action}`);
      logs.set(text(row, "ab_id"), list);
    }
    expect(logs.size).toBe(300);
    for (const [abId, events] of logs) {
      expect(events.slice(0, 3), abId).toEqual(["import:demo:created", "import:demo:updated", "import:demo:observed"]);
    }
    const actions = all(
      "SELECT actor || ':' || action AS event, count(DISTINCT ab_id) AS merchants FROM merchant_events GROUP BY 1 ORDER BY 1",
    ).map((row) => text(row, "event"));
    expect(actions).toEqual([
      "import:demo:created",
      "import:demo:observed",
      "import:demo:updated",
      "operator:demo:description_reviewed",
      "operator:demo:status_changed",
      "operator:demo:updated",
    ]);
    // The files were imported, then removed (npm run seed -- --keep-files keeps them).
    expect(existsSync(path.join(dataDir, "demo"))).toBe(false);
  });

  it("have unique ab_ids of the form ab_ + 8 lowercase letters or digits", () => {
    const ids = all("SELECT ab_id FROM merchants").map((row) => text(row, "ab_id"));
    expect(ids).toHaveLength(300);
    expect(new Set(ids).size).toBe(300);
    for (const id of ids) expect(id).toMatch(/^ab_[a-z0-9]{8}$/);
  });

  it("have valid, unique SIRETs with matching RCS and VAT numbers for companies only", () => {
    const rows = all("SELECT siret, legal_name, rcs, vat_intracom FROM merchants");
    expect(new Set(rows.map((row) => row.siret)).size).toBe(rows.length);
    for (const row of rows) {
      const siret = text(row, "siret");
      expect(isValidSiret(siret), siret).toBe(true);
      const siren = sirenOf(siret);
      expect(isValidSiren(siren)).toBe(true);
      const legalName = text(row, "legal_name");
      if (legalName.endsWith("(EI)")) {
        expect(row.rcs).toBeNull();
        expect(row.vat_intracom).toBeNull();
      } else {
        expect(legalName).toMatch(/^(SAS|SARL|SASU|EURL) /);
        expect(row.vat_intracom).toBe(vatFromSiren(siren));
        expect(text(row, "rcs")).toMatch(
          new RegExp(`^RCS .+ ${siren.slice(0, 3)} ${siren.slice(3, 6)} ${siren.slice(6)}$`),
        );
      }
    }
  });

  it("use the NAF code and sector of a known trade", () => {
    const bySector = new Map(trades.map((trade) => [trade.nafCode, trade.sector]));
    for (const row of all("SELECT naf_code, sector FROM merchants")) {
      expect(bySector.get(text(row, "naf_code"))).toBe(row.sector);
    }
  });

  it("sit in a real commune, their coordinates within 2 km of its centre", () => {
    const reference = loadCommuneReference();
    const communes = new Map(reference.communes.map((commune) => [commune.insee, commune]));
    const rows = all(
      "SELECT m.city, m.postal_code, t.* FROM merchants m JOIN territorial_proofs t ON t.ab_id = m.ab_id",
    );
    expect(rows).toHaveLength(300);
    for (const row of rows) {
      const commune = communes.get(text(row, "insee_code"));
      expect(commune, text(row, "insee_code")).toBeDefined();
      if (!commune) continue;
      expect(row.city).toBe(commune.name);
      expect(row.city_normalized).toBe(commune.name);
      expect(commune.postalCodes).toContain(row.postal_code);
      expect(row.department_code).toBe(commune.department);
      expect(row.region_code).toBe(commune.region);
      expect(row.epci_code).toBe(commune.epci);
      expect(row.population).toBe(commune.population);
      // Positions come in with the establishments file's geocoded columns (Etalab's geo_* files).
      expect(row.geocoding_source).toBe("geo_sirene_housenumber");
      expect(Number(row.geocoding_score)).toBeGreaterThanOrEqual(0.7);
      expect(Number(row.geocoding_score)).toBeLessThanOrEqual(1);
      expect(row.verified).toBe(1);
      const distance = distanceKm(Number(row.latitude), Number(row.longitude), commune.lat, commune.lng);
      expect(distance).toBeLessThan(2);
    }
  });

  it("have French phone numbers from the ranges reserved for fiction, and an email", () => {
    for (const row of all("SELECT phone, email, website FROM merchants")) {
      expect(text(row, "phone")).toMatch(/^\+33 (1 99 00|2 61 91|3 53 01|4 65 71|5 36 49|6 39 98) \d{2} \d{2}$/);
      expect(text(row, "email")).toMatch(/^[a-z0-9.-]+@[a-z0-9.-]+\.[a-z]{2,}$/);
      if (row.website !== null) expect(text(row, "website")).toMatch(/^https:\/\/(www\.)?[a-z0-9-]+\.(fr|com)$/);
    }
  });

  it("have hours keyed by French weekday, with time ranges or fermé", () => {
    const rows = all("SELECT hours FROM merchants WHERE hours IS NOT NULL");
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      const hours = json<Record<string, string>>(row, "hours");
      expect(Object.keys(hours)).toEqual(WEEKDAYS);
      for (const value of Object.values(hours)) {
        expect(value).toMatch(/^(fermé|\d{2}:\d{2}-\d{2}:\d{2}(,\d{2}:\d{2}-\d{2}:\d{2})*)$/);
      }
    }
  });

  it("date nothing after now", () => {
    const columns = [
      "SELECT created_at AS at FROM merchants",
      "SELECT updated_at FROM merchants",
      "SELECT founded_on FROM merchants",
      "SELECT brand_updated_at FROM merchants WHERE brand_updated_at IS NOT NULL",
      "SELECT verified_at FROM territorial_proofs",
      "SELECT updated_at FROM products",
      "SELECT recorded_at FROM signals",
      "SELECT verified_at FROM signals WHERE verified_at IS NOT NULL",
      "SELECT updated_at FROM qa_clusters",
      "SELECT human_verified_at FROM qa_nodes WHERE human_verified_at IS NOT NULL",
    ];
    for (const sql of columns) {
      for (const row of db.$client.prepare(sql).raw().all() as string[][]) {
        expect(row[0] ?? "", sql).not.toBe("");
        // The imports ran "at" now: what they wrote is dated now, the rest before.
        expect((row[0] ?? "") <= NOW_ISO, `${sql}: ${row[0]}`).toBe(true);
      }
    }
  });

  it("include a share of unreviewed descriptions and of brand voices", () => {
    const share = (sql: string) => (db.$client.prepare(sql).get() as { n: number }).n;
    expect(share("SELECT count(*) AS n FROM merchants WHERE description_llm_unreviewed = 1")).toBeGreaterThan(0);
    expect(share("SELECT count(*) AS n FROM merchants WHERE brand_voice IS NOT NULL")).toBeGreaterThan(0);
    expect(share("SELECT count(*) AS n FROM merchants WHERE brand_voice IS NULL")).toBeGreaterThan(0);
    expect(share("SELECT count(*) AS n FROM merchants WHERE website IS NULL")).toBeGreaterThan(0);
  });
});

describe("seeded products", () => {
  it("number 2 to 8 per merchant, with positions 0..n-1", () => {
    for (const row of all("SELECT ab_id, count(*) AS n, max(position) AS last FROM products GROUP BY ab_id")) {
      expect(Number(row.n)).toBeGreaterThanOrEqual(2);
      expect(Number(row.n)).toBeLessThanOrEqual(8);
      expect(Number(row.last)).toBe(Number(row.n) - 1);
    }
    expect(all("SELECT DISTINCT ab_id FROM products")).toHaveLength(300);
  });

  it("carry UUIDs, a known pricing model and a price that agrees with it", () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[47][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    for (const row of all("SELECT * FROM products")) {
      expect(text(row, "product_id")).toMatch(uuid);
      expect(text(row, "brick_id")).toMatch(uuid);
      expect(["service", "product"]).toContain(row.brick_type);
      expect(["fixed", "from", "on_quote", "hourly"]).toContain(row.pricing_model);
      expect(["in_stock", "on_quote", "made_to_order"]).toContain(row.inventory_status);
      expect(row.currency).toBe("EUR");
      if (row.pricing_model === "on_quote") expect(row.price_cents).toBeNull();
      else expect(Number(row.price_cents)).toBeGreaterThanOrEqual(0);
      expect(text(row, "name").length).toBeGreaterThan(3);
      expect(text(row, "description").length).toBeGreaterThan(10);
    }
  });

  it("are tagged with lowercase ASCII slugs", () => {
    for (const row of all("SELECT tags FROM products")) {
      const tags = json<string[]>(row, "tags");
      expect(tags.length).toBeGreaterThan(0);
      for (const tag of tags) expect(tag).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    }
  });
});

describe("seeded signals", () => {
  it("use catalog keys that apply to the merchant's sector, with consistent proof status and sources", () => {
    const rows = all("SELECT s.*, m.sector, m.siret FROM signals s JOIN merchants m ON m.ab_id = s.ab_id");
    expect(rows.length).toBeGreaterThan(300);
    for (const row of rows) {
      const definition = signalDefinition(text(row, "key"));
      expect(definition, text(row, "key")).toBeDefined();
      if (!definition) continue;
      expect(signalApplies(definition, text(row, "sector")), `${row.key} in ${row.sector}`).toBe(true);
      // SIRENE's and BODACC's checks come from their files' imports; the others have the catalog's source.
      const fromFile = observationVocabulary.signals_from_official_files.includes(text(row, "key"));
      expect(row.source, text(row, "key")).toBe(fromFile ? "official_file" : definition.source);
      expect(row.proof_status).toBe(proofStatusFor(fromFile ? "official_file" : definition.source));
      expect(["verified", "unverified", "failed", "expired"]).toContain(row.status);
      if (definition.sourceUrlTemplate && !fromFile) {
        const siret = text(row, "siret");
        const expected = definition.sourceUrlTemplate.replace("{siren}", sirenOf(siret)).replace("{siret}", siret);
        expect(row.source_url).toBe(expected);
      }
      if (row.status === "verified") {
        expect(row.verified_at).not.toBeNull();
        if (row.expires_at !== null) expect(text(row, "expires_at") > NOW_ISO).toBe(true);
      }
    }
  });

  it("give trust scores spread from below 10 to 55 and above", () => {
    const signals = new Map<string, { key: string; status: string; value: number | string | boolean | null }[]>();
    for (const row of all("SELECT ab_id, key, status, value FROM signals")) {
      const list = signals.get(text(row, "ab_id")) ?? [];
      list.push({ key: text(row, "key"), status: text(row, "status"), value: JSON.parse(text(row, "value")) });
      signals.set(text(row, "ab_id"), list);
    }
    const scores = all("SELECT ab_id, sector FROM merchants").map(
      (row) => computeTrust(signals.get(text(row, "ab_id")) ?? [], text(row, "sector"), NOW).breakdown.total,
    );
    expect(scores.some((score) => score < 10)).toBe(true);
    expect(scores.some((score) => score >= 10 && score < 30)).toBe(true);
    expect(scores.some((score) => score >= 30 && score < 55)).toBe(true);
    expect(scores.some((score) => score >= 55)).toBe(true);
    expect(scores.some((score) => score >= 75)).toBe(true);
  });
});

describe("seeded Q&A clusters", () => {
  it("hold 2 to 5 nodes each, with French answers ending with a list of source URLs", () => {
    const clusters = all("SELECT * FROM qa_clusters");
    expect(clusters.length).toBeGreaterThan(0);
    for (const cluster of clusters) {
      expect(cluster.type).toBe("custom");
      expect(["merchant", "brick"]).toContain(cluster.scope);
      if (cluster.scope === "brick") expect(cluster.brick_id).not.toBeNull();
      const nodes = db.$client
        .prepare("SELECT * FROM qa_nodes WHERE cluster_id = ? ORDER BY position")
        .all(cluster.cluster_id) as Row[];
      expect(nodes.length).toBeGreaterThanOrEqual(2);
      expect(nodes.length).toBeLessThanOrEqual(5);
      for (const node of nodes) {
        expect(["contact", "preuve", "prix", "delai", "zone"]).toContain(node.intent);
        expect(["unverified", "machine_checked", "human_verified", "merchant_reviewed"]).toContain(
          node.verification_level,
        );
        expect(["declared", "observed", "verified"]).toContain(node.fact_level);
        expect(text(node, "question")).toMatch(/\?$/);
        expect(text(node, "answer")).toMatch(/\n\nSources :\n(- https:\/\/\S+\n?)+$/);
        expect(text(node, "answer_bluf").length).toBeLessThan(160);
        if (node.verification_level === "human_verified") expect(node.human_verified_at).not.toBeNull();
      }
    }
  });

  it("declare what the merchant edited, and name the official signal each verified answer rests on", () => {
    const levels = (where: string) =>
      all(`SELECT fact_level, fact_signal, verification_level, count(*) AS n FROM qa_nodes WHERE ${where}
           GROUP BY fact_level, fact_signal, verification_level ORDER BY fact_level, fact_signal, verification_level`).map(
        (row) => [row.fact_level, row.fact_signal, row.verification_level],
      );
    expect(levels("edited_by_merchant = 1")).toEqual([["declared", null, "merchant_reviewed"]]);
    expect(levels("edited_by_merchant = 0 AND fact_level = 'verified'").map(([, signal]) => signal)).toEqual(
      expect.arrayContaining(["siret_verified", "territorial_address_verified"]),
    );
    // Every verified answer rests on a verified signal of its merchant (SIRENE's, the address check).
    expect(
      all(`SELECT n.node_id FROM qa_nodes n JOIN qa_clusters c ON c.cluster_id = n.cluster_id
           WHERE n.fact_level = 'verified' AND NOT EXISTS (SELECT 1 FROM signals s
             WHERE s.ab_id = c.ab_id AND s.key = n.fact_signal AND s.status = 'verified')`),
    ).toEqual([]);
    expect(all("SELECT node_id FROM qa_nodes WHERE fact_level <> 'verified' AND fact_signal IS NOT NULL")).toEqual([]);
  });

  it("point brick clusters at a product of the same merchant", () => {
    const orphans = all(`
      SELECT c.cluster_id FROM qa_clusters c
      WHERE c.scope = 'brick'
        AND NOT EXISTS (SELECT 1 FROM products p WHERE p.brick_id = c.brick_id AND p.ab_id = c.ab_id)
    `);
    expect(orphans).toEqual([]);
  });
});

describe("trade catalogue", () => {
  it("describes 27 trades of the table, each with at least 8 products and a real NAF code", () => {
    const require = createRequire(import.meta.url);
    const naf = new Set((require("@socialgouv/codes-naf") as { id: string }[]).map((entry) => entry.id));
    expect(Object.keys(tradeContent)).toHaveLength(27);
    for (const [key, content] of Object.entries(tradeContent)) {
      const trade = trades.find((candidate) => candidate.key === key);
      expect(trade, key).toBeDefined();
      if (!trade) continue;
      expect(naf.has(trade.nafCode), trade.nafCode).toBe(true);
      expect(content.products.length).toBeGreaterThanOrEqual(8);
      for (const pattern of content.namePatterns) expect(pattern, trade.key).toContain("{W}");
      expect(new Set(content.products.map((product) => product.name)).size).toBe(content.products.length);
    }
  });
});

describe("registry clearing", () => {
  it("empties every registry table so a new registry can be seeded", async () => {
    const scratchDir = mkdtempSync(path.join(os.tmpdir(), "abeille-clear-"));
    const scratch = openDatabase(path.join(scratchDir, "abeille.db"));
    try {
      expect(isRegistryEmpty(scratch)).toBe(true);
      await seedDemoRegistry(scratch, { count: 30, seed: 3, now: NOW, dataDir: scratchDir, searchIndex: null });
      expect(isRegistryEmpty(scratch)).toBe(false);
      const deleted = clearRegistry(scratch);
      expect(deleted.merchants).toBe(30);
      expect(isRegistryEmpty(scratch)).toBe(true);
      expect(countRegistry(scratch)).toEqual({
        merchants: 0,
        territorialProofs: 0,
        products: 0,
        signals: 0,
        clusters: 0,
        nodes: 0,
      });
      await seedDemoRegistry(scratch, { count: 30, seed: 4, now: NOW, dataDir: scratchDir, searchIndex: null });
      expect(countRegistry(scratch).merchants).toBe(30);
    } finally {
      scratch.$client.close();
      rmSync(scratchDir, { recursive: true, force: true });
    }
  });
});
