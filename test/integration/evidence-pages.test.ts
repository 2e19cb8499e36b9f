import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVIDENCE_SIGNALS } from "../../src/domain/trust/signal-catalog.ts";
import { expectErrorEnvelope, expectMeta } from "../helpers/envelope.ts";
import { type JsonObject, startTestServer, TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ count: 80 });
});
afterAll(async () => {
  await server?.close();
});

const first = (name: string) => {
  const id = server.roster.cases[name]?.[0];
  if (!id) throw new Error(`the demo roster has no ${name} merchant`);
  return id;
};

describe("GET /api/verify/{signal}/{ab_id}", () => {
  it("answers 200 for each of the 26 signals of a demo merchant, tracing the points resolve shows", async () => {
    const abId = first("order_ready");
    const resolved = await server.getJson(`/api/registry/resolve/${abId}`);
    const credentialPoints = new Map<string, number>(
      resolved.body.credentials.map((credential: JsonObject) => [credential.key, credential.points]),
    );
    const statuses = new Set<string>();
    for (const signal of EVIDENCE_SIGNALS) {
      const { status, body } = await server.getJson(`/api/verify/${signal}/${abId}`);
      expect(status, signal).toBe(200);
      expect(body.success).toBe(true);
      expectMeta(body);
      const page = body.data;
      expect(page).toMatchObject({ signal, ab_id: abId });
      expect(["verified", "unverified", "failed", "expired", "not_applicable"]).toContain(page.status);
      expect(typeof page.label).toBe("string");
      expect(typeof page.explanation).toBe("string");
      expect(page.contribution.counted).toBeLessThanOrEqual(page.contribution.points);
      expect(page.contribution.counted).toBe(credentialPoints.get(signal) ?? 0);
      expect(body._state.trust_score).toBe(resolved.body.merchant.trust.score);
      expect(body._links.canonical).toBe(`${TEST_BASE_URL}/api/verify/${signal}/${abId}`);
      statuses.add(page.status);
    }
    expect(statuses.has("verified")).toBe(true);
  });

  it("is reached from every evidence endpoint the decision card lists", async () => {
    const abId = first("active_contactable");
    const { body } = await server.getJson(`/api/merchants/${abId}/decision-card`);
    const endpoints: string[] = body.data.decision_card.verification_capsule.evidence_endpoints;
    expect(endpoints).toHaveLength(26);
    for (const endpoint of endpoints.slice(0, 5)) {
      const answer = await server.getJson(endpoint.replace(TEST_BASE_URL, ""));
      expect(answer.status).toBe(200);
    }
  });

  it("says not_applicable rather than failing for a signal outside the merchant's sector", async () => {
    const abId = first("active_contactable");
    const { body: resolved } = await server.getJson(`/api/registry/resolve/${abId}`);
    const signal =
      resolved.merchant.sector === "assurance" ? "alimconfiance_score" : "association_agreee_acpr_declared";
    const { status, body } = await server.getJson(`/api/verify/${signal}/${abId}`);
    expect(status).toBe(200);
    expect(body.data.status).toBe("not_applicable");
    expect(body.data.contribution.counted).toBe(0);
  });

  it("answers 404 NOT_FOUND for an unknown signal, naming the valid ones and pointing to the decision card", async () => {
    const abId = first("active_contactable");
    const { status, body } = await server.getJson(`/api/verify/company_age_years/${abId}`);
    expect(status).toBe(404);
    expectErrorEnvelope(body, "NOT_FOUND");
    expect(body.error.message).toContain("siret_verified");
    expect(body.error.message).toContain("terrain_media_snapshot");
    expect(body._actions[0].href).toBe(`${TEST_BASE_URL}/api/merchants/${abId}/decision-card`);
  });

  it("answers 400 for a malformed ab_id and 404 for unknown or archived merchants", async () => {
    const malformed = await server.getJson("/api/verify/siret_verified/ab_NOPE");
    expect(malformed.status).toBe(400);
    expectErrorEnvelope(malformed.body, "VALIDATION_ERROR");
    const unknown = await server.getJson("/api/verify/siret_verified/ab_zzzzzzzz");
    expect(unknown.status).toBe(404);
    expectErrorEnvelope(unknown.body, "MERCHANT_NOT_FOUND");
    const archived = await server.getJson(`/api/verify/siret_verified/${first("archived")}`);
    expect(archived.status).toBe(404);
    expectErrorEnvelope(archived.body, "MERCHANT_NOT_FOUND");
  });
});
