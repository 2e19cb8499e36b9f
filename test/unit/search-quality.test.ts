/**
 * Search quality on the demo registry (src/seed/), the same questions to both engines: known-item
 * questions an agent asks about a merchant it has heard of (name and town, the name folded, its
 * SIRET typed with spaces, the name cut short as typed, the name with one typo), and trade
 * questions near its address (its trade, a product it sells, the trade's English name). Each kind
 * has hit@1 or hit@10 thresholds; the measured rates are printed beside them.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tradeForNaf, trades } from "../../src/domain/sectors.ts";
import { createEmbeddedSearchIndex } from "../../src/search/embedded/index.ts";
import { createMeilisearchSearchIndex } from "../../src/search/meilisearch/index.ts";
import type { SearchIndex, SearchQuery } from "../../src/search/search-index.ts";
import { createSearchSource } from "../../src/search/source.ts";
import { type DemoRoster, seedDemoRegistry } from "../../src/seed/seed-demo.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { startTestMeilisearch, type TestMeilisearch } from "../helpers/meilisearch-server.ts";

const NOW = new Date("2026-11-01T10:00:00.000Z");
const COUNT = 1_500;
const SAMPLE = 80;

interface Row {
  ab_id: string;
  siret: string;
  business_name: string;
  city: string;
  naf_code: string;
  latitude: number | null;
  longitude: number | null;
  product: string | null;
}

interface Question {
  kind: string;
  query: SearchQuery;
  expected: string;
}

/** hit@1 or hit@10 thresholds per kind of question, on both engines. */
const THRESHOLDS: Record<string, { at: 1 | 10; min: number }> = {
  "name and town": { at: 1, min: 0.9 },
  "folded name": { at: 10, min: 0.9 },
  "SIRET with spaces": { at: 1, min: 1 },
  "prefix as typed": { at: 10, min: 0.85 },
  "one typo": { at: 10, min: 0.8 },
  "trade near the address": { at: 10, min: 0.8 },
  "product near the address": { at: 10, min: 0.8 },
  "English trade near the address": { at: 10, min: 0.8 },
};

let dataDir: string;
let db: Db;
let meili: TestMeilisearch;
let questions: Question[];
const engines: [string, SearchIndex][] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-quality-"));
  db = openDatabase(path.join(dataDir, "abeille.db"));
  await seedDemoRegistry(db, { count: COUNT, seed: 20261122, now: NOW, dataDir, searchIndex: null });
  const roster = JSON.parse(readFileSync(path.join(dataDir, "demo-roster.json"), "utf8")) as DemoRoster;
  questions = buildQuestions(db, roster);
  const embedded = createEmbeddedSearchIndex(db, { now: () => NOW });
  await embedded.rebuild();
  meili = await startTestMeilisearch();
  const meilisearch = createMeilisearchSearchIndex(createSearchSource(db), {
    url: meili.url,
    indexUid: "quality",
    now: () => NOW,
  });
  await meilisearch.rebuild();
  engines.push(["embedded", embedded], ["meilisearch", meilisearch]);
}, 180_000);

afterAll(async () => {
  await meili?.close();
  db?.$client.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

function buildQuestions(database: Db, roster: DemoRoster): Question[] {
  const rows = database.$client
    .prepare(
      `SELECT m.ab_id, m.siret, m.business_name, m.city, m.naf_code, tp.latitude, tp.longitude,
              (SELECT name FROM products p WHERE p.ab_id = m.ab_id ORDER BY position LIMIT 1) AS product
       FROM merchants m LEFT JOIN territorial_proofs tp ON tp.ab_id = m.ab_id
       WHERE m.status IN ('ACTIVE', 'PROBATION', 'PAUSED') ORDER BY m.ab_id`,
    )
    .all() as Row[];
  const step = Math.max(1, Math.floor(rows.length / SAMPLE));
  const sample = rows.filter((_, position) => position % step === 0).slice(0, SAMPLE);
  const text = (kind: string, q: string, expected: string, near: SearchQuery["near"] = null): Question => ({
    kind,
    query: { text: q, tags: [], near, limit: 10 },
    expected,
  });
  const list: Question[] = [];
  for (const row of sample) {
    const nearIt =
      row.latitude === null || row.longitude === null ? null : { lat: row.latitude, lng: row.longitude, radiusKm: 2 };
    list.push(text("name and town", `${row.business_name} ${row.city}`, row.ab_id));
    list.push(text("folded name", row.business_name.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase(), row.ab_id));
    list.push(text("SIRET with spaces", row.siret.replace(/^(\d{3})(\d{3})(\d{3})(\d{5})$/, "$1 $2 $3 $4"), row.ab_id));
    const words = row.business_name.split(/\s+/);
    const last = words.at(-1) ?? "";
    if (last.length >= 6) {
      list.push(text("prefix as typed", [...words.slice(0, -1), last.slice(0, last.length - 2)].join(" "), row.ab_id));
    }
    const longest = [...words].sort((a, b) => b.length - a.length)[0] ?? "";
    if (longest.length >= 6) {
      const at = Math.floor(longest.length / 2);
      const typo = `${longest.slice(0, at)}${longest[at + 1]}${longest[at]}${longest.slice(at + 2)}`;
      list.push(text("one typo", words.map((word) => (word === longest ? typo : word)).join(" "), row.ab_id));
    }
    const trade = tradeForNaf(row.naf_code);
    if (nearIt && trade) {
      list.push(text("trade near the address", trade.label, row.ab_id, nearIt));
      list.push(text("English trade near the address", trade.nameEn, row.ab_id, nearIt));
      if (row.product) list.push(text("product near the address", row.product, row.ab_id, nearIt));
    }
  }
  for (const geo of roster.geo_queries) {
    list.push(
      text("trade near the address", geo.q, geo.expected_ab_id, { lat: geo.lat, lng: geo.lng, radiusKm: geo.radius }),
    );
  }
  return list;
}

describe.each([["embedded"], ["meilisearch"]])("search quality on the demo registry: %s", (engineName) => {
  const engine = () => {
    const found = engines.find(([name]) => name === engineName);
    if (!found) throw new Error(`${engineName} is not built`);
    return found[1];
  };

  it.each(Object.entries(THRESHOLDS))("%s: the merchant asked for within the threshold", async (kind, threshold) => {
    const asked = questions.filter((question) => question.kind === kind);
    expect(asked.length).toBeGreaterThanOrEqual(10);
    let hits = 0;
    const missed: string[] = [];
    for (const question of asked) {
      const ids = (await engine().search(question.query)).hits.map((hit) => hit.abId);
      if (ids.slice(0, threshold.at).includes(question.expected)) hits += 1;
      else missed.push(question.query.text);
    }
    const rate = hits / asked.length;
    console.log(
      `${engineName.padEnd(11)} ${kind.padEnd(31)} hit@${threshold.at} ${(rate * 100).toFixed(1).padStart(5)}% of ${asked.length} (threshold ${threshold.min * 100}%)${missed.length > 0 ? `; missed e.g. ${JSON.stringify(missed.slice(0, 3))}` : ""}`,
    );
    expect(rate).toBeGreaterThanOrEqual(threshold.min);
  });

  it("finds every merchant of a trade by each of its names, singular or plural, French or English", async () => {
    const listed = (naf: string) =>
      (
        db.$client
          .prepare("SELECT ab_id FROM merchants WHERE naf_code = ? AND status IN ('ACTIVE', 'PROBATION', 'PAUSED')")
          .pluck()
          .all(naf) as string[]
      ).sort();
    const found = async (q: string) =>
      new Set((await engine().search({ text: q, tags: [], near: null, limit: 500 })).hits.map((hit) => hit.abId));
    const names: [string, string[]][] = [
      ["96.02A", ["coiffure", "coiffeur", "coiffeurs", "salon de coiffure", "hairdresser"]],
      ["45.20A", ["garage", "mécanicien", "mechanic", "garagistes"]],
      ["96.02B", ["institut de beauté", "esthéticienne", "beautician"]],
      ["55.10Z", ["hôtel", "gîte", "chambre d'hôtes", "bed and breakfast"]],
      ["10.71C", ["boulangerie", "boulanger", "bakery", "pâtisseries"]],
      ["43.22A", ["plombier", "plumber", "plombiers"]],
      ["47.76Z", ["fleuriste", "florist"]],
    ];
    for (const [naf, queries] of names) {
      const merchants = listed(naf);
      expect(merchants.length, naf).toBeGreaterThan(3);
      for (const q of queries) {
        const hits = await found(q);
        expect(
          merchants.filter((abId) => !hits.has(abId)),
          q,
        ).toEqual([]);
      }
    }
    expect(trades.length).toBeGreaterThan(20);
  });

  it("does not list a trade's merchants for an unrelated trade", async () => {
    const search = async (q: string) => (await engine().search({ text: q, tags: [], near: null, limit: 50 })).hits;
    expect(await search("maçon")).toEqual([]);
    expect(await search("dentiste")).toEqual([]);
  });
});
