import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/store/db.ts";
import { expectErrorEnvelope, expectMeta } from "../helpers/envelope.ts";
import { type JsonObject, startTestServer, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ count: 300 });
});
afterAll(async () => {
  await server?.close();
});

const search = (query: string) => server.getJson(`/api/registry/search?${query}`);

describe("GET /api/registry/search", () => {
  it("finds merchants by trade with the spec's result shape", async () => {
    const { status, body } = await search("q=boulangerie");
    expect(status).toBe(200);
    expect(body.success).toBe(true);
    expect(body.query).toBe("boulangerie");
    expectMeta(body);
    expect(body.count).toBe(body.results.length);
    expect(body.count).toBeGreaterThan(0);
    const item = body.results[0];
    expect(item.merchant.ab_id).toMatch(/^ab_[a-z0-9]{8}$/);
    expect(typeof item.merchant.name).toBe("string");
    expect(typeof item.merchant.address).toBe("string");
    expect(item.merchant.trust_score).toBeGreaterThanOrEqual(0);
    expect(Array.isArray(item.products)).toBe(true);
    expect(Array.isArray(item._actions)).toBe(true);
    expect(typeof item._state.can_contact).toBe("boolean");
    expect(item.merchant.distance_km).toBeUndefined();
  });

  it("matches whatever the case, accents and plural of the words typed", async () => {
    const plain = await search("q=boulangerie");
    const variants = await Promise.all(["q=BOULANGERIES", "q=Boulangéries", "q=boulan"].map(search));
    const ids = (body: JsonObject) => new Set(body.results.map((result: JsonObject) => result.merchant.ab_id));
    for (const variant of variants) {
      expect(variant.status).toBe(200);
      expect(variant.body.count).toBeGreaterThan(0);
      expect([...ids(variant.body)].some((id) => ids(plain.body).has(id))).toBe(true);
    }
  });

  it("finds a merchant by its city and by its name", async () => {
    const { body: resolved } = await server.getJson(
      `/api/registry/resolve/${server.roster.cases.active_contactable?.[0]}`,
    );
    const byName = await search(`q=${encodeURIComponent(resolved.merchant.name)}&limit=50`);
    expect(byName.body.results.map((result: JsonObject) => result.merchant.ab_id)).toContain(resolved.merchant.ab_id);
    const city = resolved.merchant.address
      .split(", ")
      .at(-1)
      .replace(/^\d{5} /, "");
    const byCity = await search(`q=${encodeURIComponent(city)}&limit=50`);
    expect(byCity.body.count).toBeGreaterThan(0);
  });

  it("keeps every geo result within the radius and reports distance_km", async () => {
    const geo = server.roster.geo_queries[0];
    if (!geo) throw new Error("the demo roster has no geo query");
    const { status, body } = await search(
      `q=${encodeURIComponent(geo.q)}&lat=${geo.lat}&lng=${geo.lng}&radius=${geo.radius}&tags=${encodeURIComponent(geo.tags.join(","))}`,
    );
    expect(status).toBe(200);
    expect(body.count).toBeGreaterThan(0);
    for (const result of body.results) {
      expect(result.merchant.distance_km).toBeLessThanOrEqual(geo.radius);
      const tags = result.products.flatMap((product: JsonObject) => product.tags);
      for (const tag of geo.tags) expect(tags).toContain(tag);
    }
  });

  it("requires every listed tag to be carried by a product", async () => {
    const { body } = await search("q=boulangerie&tags=a-tag-nobody-has");
    expect(body.count).toBe(0);
  });

  it("never lists archived or suspended merchants", async () => {
    for (const name of ["archived", "suspended"]) {
      for (const abId of server.roster.cases[name] ?? []) {
        const { body: resolved } = await server.getJson(`/api/registry/resolve/${abId}`);
        const query = resolved.merchant?.name ?? abId;
        const { body } = await search(`q=${encodeURIComponent(query)}&limit=50`);
        expect(body.results.map((result: JsonObject) => result.merchant.ab_id)).not.toContain(abId);
      }
    }
  });

  it("honours limit and answers semantic requests as degraded full-text", async () => {
    const { body } = await search("q=a&limit=3&semantic=true");
    expect(body.results.length).toBeLessThanOrEqual(3);
    expect(body.retrieval_degraded).toBe("embedding_disabled");
  });

  it.each([
    ["", "q"],
    ["q=", "q"],
    ["q=pain&limit=0", "limit"],
    ["q=pain&limit=51", "limit"],
    ["q=pain&limit=2.5", "limit"],
    ["q=pain&limit=ten", "limit"],
    ["q=pain&lat=91&lng=2", "lat"],
    ["q=pain&lat=45&lng=181", "lng"],
    ["q=pain&lat=45", "lng"],
    ["q=pain&lng=4", "lat"],
    ["q=pain&lat=45&lng=4&radius=0", "radius"],
    ["q=pain&lat=45&lng=4&radius=-3", "radius"],
    ["q=pain&radius=5", "radius"],
    ["q=pain&semantic=maybe", "semantic"],
    [`q=${"x".repeat(201)}`, "q"],
    ["q=pain&q=vin", "q"],
  ])("refuses %s with 400 VALIDATION_ERROR on %s", async (query, field) => {
    const { status, body } = await search(query);
    expect(status).toBe(400);
    expectErrorEnvelope(body, "VALIDATION_ERROR");
    expect(body.data.issues.map((issue: JsonObject) => issue.path)).toContain(field);
  });

  it.each([
    '"',
    "pain*",
    "NEAR(pain vin)",
    "pain OR vin",
    "-pain",
    "^pain",
    "name:pain",
    "{pain}",
    "'; DROP TABLE merchants; --",
    "🍞🥐",
    "pain\u0000vin",
    "AND",
    "( ( (",
    "x".repeat(200),
  ])("answers the hostile query %j without failing", async (text) => {
    const { status, body } = await search(`q=${encodeURIComponent(text)}`);
    expect(status).toBe(200);
    expect(body.success).toBe(true);
  });

  it("scores each result and says what matched", async () => {
    const { body } = await search("q=boulangerie&limit=5");
    expect(body.count).toBe(5);
    const scores = body.results.map((result: JsonObject) => result.score);
    expect(scores).toEqual([...scores].sort((a: number, b: number) => b - a));
    for (const result of body.results) {
      expect(result.score).toBeGreaterThan(0);
      expect(result.score).toBeLessThanOrEqual(100);
      expect(result.matched).toContain("trade");
    }
  });

  it("finds a merchant first by its SIRET typed with spaces, by its SIREN and by its ab_id", async () => {
    const abId = server.roster.cases.active_contactable?.[0] as string;
    const db = openDatabase(path.join(server.dataDir, "abeille.db"), { readonly: true });
    const siret = db.$client.prepare("SELECT siret FROM merchants WHERE ab_id = ?").pluck().get(abId) as string;
    db.$client.close();
    const spaced = `${siret.slice(0, 3)} ${siret.slice(3, 6)} ${siret.slice(6, 9)} ${siret.slice(9)}`;
    for (const q of [spaced, siret.slice(0, 9), abId.toUpperCase()]) {
      const { body } = await search(`q=${encodeURIComponent(q)}`);
      expect(body.results[0]?.merchant.ab_id, q).toBe(abId);
      expect(body.results[0]?.matched).toEqual(["identifier"]);
    }
  });

  it("pages with next_cursor through the same answer, and estimates the total", async () => {
    // Stop words alone and a wide circle: every merchant placed in mainland France, by trust and distance.
    const everyone = "q=de&lat=46.6&lng=2.4&radius=1000";
    const all = await search(`${everyone}&limit=20`);
    const first = await search(`${everyone}&limit=10`);
    expect(first.body.estimated_total).toBe(all.body.estimated_total);
    expect(first.body.estimated_total).toBeGreaterThanOrEqual(200);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await search(`${everyone}&limit=10&cursor=${first.body.next_cursor}`);
    const ids = (body: JsonObject) => body.results.map((result: JsonObject) => result.merchant.ab_id);
    expect([...ids(first.body), ...ids(second.body)]).toEqual(ids(all.body));
  });

  it("refuses a cursor of another query with 400 VALIDATION_ERROR on cursor", async () => {
    const { body: first } = await search("q=boulangerie&limit=5");
    for (const query of [`q=coiffure&cursor=${first.next_cursor}`, "q=boulangerie&cursor=bm9wZQ"]) {
      const { status, body } = await search(query);
      expect(status).toBe(400);
      expectErrorEnvelope(body, "VALIDATION_ERROR");
      expect(body.data.issues.map((issue: JsonObject) => issue.path)).toContain("cursor");
    }
  });

  it("answers nothing found with recovery actions: widen the radius, drop the tags, search without the town", async () => {
    const { body } = await search(
      `q=${encodeURIComponent("plombier Zanzibarville")}&lat=45.76&lng=4.83&radius=2&tags=a-tag-nobody-has`,
    );
    expect(body.count).toBe(0);
    expect(body.estimated_total).toBe(0);
    expect(body.next_cursor).toBeNull();
    const rels = body.recovery.map((action: JsonObject) => action.rel);
    expect(rels).toEqual(["widen_radius", "drop_tags", "search_without_town"]);
    const withoutTown = body.recovery[2].href as string;
    expect(new URL(withoutTown).searchParams.get("q")).toBe("plombier");
    const widened = new URL(body.recovery[0].href as string).searchParams.get("radius");
    expect(widened).toBe("50");
  });

  it("answers a SIRET it does not hold with its company's establishments, never reading a number as a town", async () => {
    // The README's example before the demo's own: 443 061 841 00047 is no demo merchant.
    const { body } = await search(`q=${encodeURIComponent("443 061 841 00047")}`);
    expect(body.count).toBe(0);
    expect(body.recovery.map((action: JsonObject) => [action.rel, new URL(action.href).searchParams.get("q")])).toEqual(
      [["search_by_siren", "443061841"]],
    );
    const siren = await search("q=443061841");
    expect(siren.body.count).toBe(0);
    expect(siren.body.recovery).toEqual([]);
  });

  it("finds a trade by the names people give it, and despite one typo", async () => {
    for (const q of ["coiffeurs", "hairdresser", "plombier près de", "boulangeire"]) {
      const { body } = await search(`q=${encodeURIComponent(q)}`);
      expect(body.count, q).toBeGreaterThan(0);
    }
  });

  it("shows a trust change written by another process in the next search, as resolve does", async () => {
    const query = "q=boulangerie&limit=50";
    const first = await search(query);
    const scored = first.body.results.find((result: JsonObject) => result.merchant.trust_score > 0);
    expect(scored).toBeDefined();
    const abId: string = scored.merchant.ab_id;
    // Another connection (a job, an operator) withdraws every signal of that merchant.
    const db = openDatabase(path.join(server.dataDir, "abeille.db"));
    try {
      db.$client.prepare("UPDATE signals SET status = 'revoked' WHERE ab_id = ?").run(abId);
    } finally {
      db.$client.close();
    }
    const again = await search(query);
    const after = again.body.results.find((result: JsonObject) => result.merchant.ab_id === abId);
    const resolved = await server.getJson(`/api/registry/resolve/${abId}`);
    expect(after.merchant.trust_score).toBe(0);
    expect(after.merchant.trust_score).toBe(resolved.body.merchant.trust.score);
  });
});
