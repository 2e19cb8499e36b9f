import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/store/db.ts";
import { expectErrorEnvelope, expectMeta } from "../helpers/envelope.ts";
import { type JsonObject, startTestServer, TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ count: 200 });
});
afterAll(async () => {
  await server?.close();
});

const first = (name: string) => {
  const id = server.roster.cases[name]?.[0];
  if (!id) throw new Error(`the demo roster has no ${name} merchant`);
  return id;
};

describe("GET /api/registry/resolve/{ab_id}", () => {
  it("resolves an active merchant to its profile, trust breakdown, products and credentials", async () => {
    const abId = first("active_contactable");
    const { status, body } = await server.getJson(`/api/registry/resolve/${abId}`);
    expect(status).toBe(200);
    expect(body.success).toBe(true);
    expectMeta(body);
    expect(body.merchant.ab_id).toBe(abId);
    expect(body.merchant.siret).toMatch(/^\d{14}$/);
    const { breakdown } = body.merchant.trust;
    expect(breakdown.total).toBe(breakdown.experience + breakdown.expertise + breakdown.authority + breakdown.trust);
    expect(body.merchant.trust.score).toBe(breakdown.total);
    for (const component of ["experience", "expertise", "authority", "trust"]) {
      expect(breakdown[component]).toBeGreaterThanOrEqual(0);
      expect(breakdown[component]).toBeLessThanOrEqual(25);
    }
    expect(body.products.length).toBeGreaterThan(0);
    for (const product of body.products) {
      expect(Object.keys(product).sort()).toEqual(["description", "id", "name", "price"]);
    }
    expect(body.credentials.length).toBeGreaterThan(0);
    expect(body._state.trust_score).toBe(breakdown.total);
    expect(body._state.can_contact).toBe(true);
    expect(body._state.can_order).toBe(false);
    expect(body._state.blocked_because).toContain("order_rail_disabled");
    expect(Array.isArray(body._actions)).toBe(false);
    expect(body._actions.create_lead.href).toBe(`${TEST_BASE_URL}/api/contact/brick`);
    expect(body._links.self).toBe(`${TEST_BASE_URL}/api/registry/resolve/${abId}`);
  });

  it("traces every trust point to a credential", async () => {
    const abId = first("order_ready");
    const { body } = await server.getJson(`/api/registry/resolve/${abId}`);
    const perComponent: Record<string, number> = { experience: 0, expertise: 0, authority: 0, trust: 0 };
    for (const credential of body.credentials) perComponent[credential.component] += credential.points;
    const { breakdown } = body.merchant.trust;
    for (const component of Object.keys(perComponent)) expect(perComponent[component]).toBe(breakdown[component]);
    expect(breakdown.total).toBeGreaterThanOrEqual(55);
  });

  it("says of each credential where it came from, when, and until when it holds", async () => {
    const abId = first("order_ready");
    const { body } = await server.getJson(`/api/registry/resolve/${abId}`);
    const byKey = new Map(body.credentials.map((credential: JsonObject) => [credential.key, credential]));
    // The SIRENE file proved the identity when INSEE processed the row (the demo's clock), for two years.
    expect(byKey.get("siret_verified")).toMatchObject({
      source: "official_file",
      proof_status: "official_source_verified",
      source_url:
        "https://www.data.gouv.fr/datasets/base-sirene-des-entreprises-et-de-leurs-etablissements-siren-siret",
      verified_at: server.roster.generated_at,
      recorded_at: server.roster.generated_at,
      expires_at: new Date(Date.parse(server.roster.generated_at) + 730 * 86_400_000).toISOString(),
    });
    const sources = new Set(body.credentials.map((credential: JsonObject) => credential.source));
    expect(
      [...sources].every((source) =>
        ["official_file", "official_api", "platform_observed", "merchant_declared"].includes(source as string),
      ),
    ).toBe(true);
    for (const credential of body.credentials) expect(Object.keys(credential)).toContain("expires_at");
  });

  it("tells why a merchant with an unreviewed generated description cannot be contacted", async () => {
    const { body } = await server.getJson(`/api/registry/resolve/${first("contact_disabled")}`);
    expect(body._state.can_contact).toBe(false);
    expect(body._state.blocked_because.length).toBeGreaterThan(0);
    expect(body._actions.create_lead).toBeUndefined();
  });

  it("resolves a paused merchant but refuses contact with the status as reason", async () => {
    const { status, body } = await server.getJson(`/api/registry/resolve/${first("paused")}`);
    expect(status).toBe(200);
    expect(body._state.merchant_status).toBe("PAUSED");
    expect(body._state.can_contact).toBe(false);
    expect(body._state.blocked_because).toContain("merchant_paused");
  });

  it.each(["suspended", "archived"])("answers 404 MERCHANT_NOT_FOUND for a %s merchant", async (name) => {
    const { status, body } = await server.getJson(`/api/registry/resolve/${first(name)}`);
    expect(status).toBe(404);
    expectErrorEnvelope(body, "MERCHANT_NOT_FOUND");
  });

  it("answers 404 MERCHANT_NOT_FOUND for a well-formed unknown id", async () => {
    const { status, body } = await server.getJson("/api/registry/resolve/ab_zzzzzzzz");
    expect(status).toBe(404);
    expectErrorEnvelope(body, "MERCHANT_NOT_FOUND");
  });

  it.each(["AB_12345678", "ab_123", "ab_1234567890", "ab_ABCDEFGH", "12345678", "ab_1234567%2F"])(
    "answers 400 VALIDATION_ERROR for the malformed id %s",
    async (abId) => {
      const { status, body } = await server.getJson(`/api/registry/resolve/${abId}`);
      expect(status).toBe(400);
      expectErrorEnvelope(body, "VALIDATION_ERROR");
      expect(body.data.issues[0].path).toBe("ab_id");
    },
  );
});

describe("GET /api/registry/resolve/{ab_id}, kept serialized between requests", () => {
  it("answers 304 Not Modified to a client that has the current answer, and the answer with its own meta otherwise", async () => {
    const abId = first("active_contactable");
    const one = await server.getJson(`/api/registry/resolve/${abId}`, { headers: { "x-request-id": "first-call" } });
    const two = await server.getJson(`/api/registry/resolve/${abId}?utm=x`, { headers: { "x-request-id": "second" } });
    const etag = one.headers.get("etag") ?? "";
    expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/);
    expect(two.headers.get("etag")).toBe(etag);
    expect(one.body._meta.request_id).toBe("first-call");
    expect(two.body._meta.request_id).toBe("second");
    expect(two.body._links.self).toBe(`${TEST_BASE_URL}/api/registry/resolve/${abId}?utm=x`);
    const { _meta: _first, _links: firstLinks, ...firstRest } = one.body;
    const { _meta: _second, _links: secondLinks, ...secondRest } = two.body;
    expect(secondRest).toEqual(firstRest);
    expect({ ...secondLinks, self: null }).toEqual({ ...firstLinks, self: null });

    const unchanged = await server.get(`/api/registry/resolve/${abId}`, { headers: { "if-none-match": etag } });
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers.get("etag")).toBe(etag);
    expect(await unchanged.text()).toBe("");
    const other = await server.get(`/api/registry/resolve/${abId}`, { headers: { "if-none-match": 'W/"other"' } });
    expect(other.status).toBe(200);
  });

  it("follows a write from another connection: new content, new ETag, no 304 for the old one", async () => {
    const abId = first("order_ready");
    const before = await server.getJson(`/api/registry/resolve/${abId}`);
    const db = openDatabase(path.join(server.dataDir, "abeille.db"));
    try {
      db.$client.prepare("UPDATE merchants SET phone = '+33 1 23 45 67 89' WHERE ab_id = ?").run(abId);
    } finally {
      db.$client.close();
    }
    const after = await server.getJson(`/api/registry/resolve/${abId}`);
    expect(after.body.merchant.phone).toBe("+33 1 23 45 67 89");
    expect(after.headers.get("etag")).not.toBe(before.headers.get("etag"));
    const stale = await server.get(`/api/registry/resolve/${abId}`, {
      headers: { "if-none-match": before.headers.get("etag") ?? "" },
    });
    expect(stale.status).toBe(200);
  });

  it("stops serving a kept answer once one of its counted signals expires, with no write", async () => {
    const abId = first("active_contactable");
    const kept = await server.getJson(`/api/registry/resolve/${abId}`);
    // A counted signal of a component below its cap of 25: nothing capped there takes its place.
    const { breakdown } = kept.body.merchant.trust;
    const counted = kept.body.credentials.filter(
      (credential: JsonObject) => credential.points > 0 && breakdown[credential.component] < 25,
    );
    expect(counted.length).toBeGreaterThan(0);
    // Make one counted signal expire a moment from now, read the answer before that moment, then
    // let it pass. The answer counts as read before the expiry only if it arrived before it: on a
    // machine too busy for that, the moment is set further off and the answer read again.
    let expiry = "";
    let beforeExpiry: Awaited<ReturnType<typeof server.getJson>> | null = null;
    for (const marginMs of [3_000, 6_000, 12_000, 24_000]) {
      expiry = new Date(Date.now() + marginMs).toISOString();
      const db = openDatabase(path.join(server.dataDir, "abeille.db"));
      try {
        db.$client
          .prepare("UPDATE signals SET expires_at = ? WHERE ab_id = ? AND key = ?")
          .run(expiry, abId, counted[0].key);
      } finally {
        db.$client.close();
      }
      const answer = await server.getJson(`/api/registry/resolve/${abId}`);
      if (Date.now() < Date.parse(expiry)) {
        beforeExpiry = answer;
        break;
      }
    }
    if (!beforeExpiry) throw new Error("no answer arrived within 24 s of the update");
    expect(beforeExpiry.body.merchant.trust.score).toBe(kept.body.merchant.trust.score);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(expiry) - Date.now()) + 100));
    const afterExpiry = await server.getJson(`/api/registry/resolve/${abId}`);
    expect(afterExpiry.body.merchant.trust.score).toBe(kept.body.merchant.trust.score - counted[0].points);
    expect(afterExpiry.headers.get("etag")).not.toBe(beforeExpiry.headers.get("etag"));
  });
});
