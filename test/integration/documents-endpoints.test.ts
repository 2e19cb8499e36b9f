import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aiDigestSchema, clusterDocumentSchema, clusterListSchema } from "../../src/schemas/documents.ts";
import { openDatabase } from "../../src/store/db.ts";
import { expectErrorEnvelope } from "../helpers/envelope.ts";
import { schemaOrgProblems } from "../helpers/schema-org.ts";
import { startTestServer, TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

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

/** A cluster of a merchant in the given status, straight from the store. */
function clusterOf(status: string): { clusterId: string; abId: string } | null {
  const db = openDatabase(path.join(server.dataDir, "abeille.db"));
  try {
    const row = db.$client
      .prepare(
        "SELECT c.cluster_id AS clusterId, c.ab_id AS abId FROM qa_clusters c JOIN merchants m ON m.ab_id = c.ab_id WHERE m.status = ? ORDER BY c.cluster_id LIMIT 1",
      )
      .get(status) as { clusterId: string; abId: string } | undefined;
    return row ?? null;
  } finally {
    db.$client.close();
  }
}

describe("GET /api/merchants/{ab_id}/jsonld", () => {
  it("answers Schema.org JSON-LD as application/ld+json with a strong ETag", async () => {
    const abId = first("active_contactable");
    // The identity bytes' tag is strong; a compressed answer's is its weak twin (http-conventions).
    const response = await server.get(`/api/merchants/${abId}/jsonld`, { headers: { "accept-encoding": "identity" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/ld+json; charset=utf-8");
    expect(response.headers.get("etag")).toMatch(/^"sha256-[A-Za-z0-9+/]{43}="$/);
    expect(response.headers.get("cache-control")).toBe("public, max-age=300");
    const doc = await response.json();
    expect(doc["@context"]).toBe("https://schema.org");
    expect(typeof doc["@type"]).toBe("string");
    expect(doc.url).toBe(`${TEST_BASE_URL}/m/${abId}/`);
    for (const member of ["name", "telephone", "potentialAction", "hasCredential", "sameAs", "makesOffer", "address"]) {
      expect(doc).toHaveProperty(member);
    }
    expect(doc.potentialAction.length).toBeGreaterThan(0);
    expect(doc.potentialAction[0].target.urlTemplate).toBe(`${TEST_BASE_URL}/api/contact/brick`);
  });

  it("uses only schema.org types and properties, for every trade of the demo registry and in its pages", async () => {
    const merchants = [...new Set(Object.values(server.roster.cases).flat())];
    let checked = 0;
    for (const abId of merchants) {
      const response = await server.get(`/api/merchants/${abId}/jsonld`);
      if (response.status !== 200) {
        await response.arrayBuffer();
        continue;
      }
      expect({ abId, problems: schemaOrgProblems(await response.json()) }).toEqual({ abId, problems: [] });
      const page = await (await server.get(`/m/${abId}/`)).text();
      const embedded = /<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(page)?.[1];
      expect(embedded).toBeDefined();
      expect({ abId, problems: schemaOrgProblems(JSON.parse(embedded ?? "null")) }).toEqual({ abId, problems: [] });
      checked += 1;
    }
    expect(checked).toBeGreaterThan(10);
  });

  it("answers 304 to a matching If-None-Match, on demand as well", async () => {
    const abId = first("active_contactable");
    const response = await server.get(`/api/merchants/${abId}/jsonld`);
    const etag = response.headers.get("etag") ?? "";
    await response.arrayBuffer();
    const again = await server.get(`/api/merchants/${abId}/jsonld`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect(await again.text()).toBe("");
  });

  it("answers HEAD with the headers and no body", async () => {
    const abId = first("active_contactable");
    const response = await server.get(`/api/merchants/${abId}/jsonld`, {
      method: "HEAD",
      headers: { "accept-encoding": "identity" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("etag")).toMatch(/^"sha256-/);
    expect(await response.text()).toBe("");
  });

  it("is 400 for a malformed ab_id and 404 for unknown, suspended and archived merchants", async () => {
    const malformed = await server.getJson("/api/merchants/ab_BAD/jsonld");
    expect(malformed.status).toBe(400);
    expectErrorEnvelope(malformed.body, "VALIDATION_ERROR");
    for (const abId of ["ab_zzzzzzzz", first("suspended"), first("archived")]) {
      const { status, body } = await server.getJson(`/api/merchants/${abId}/jsonld`);
      expect(status).toBe(404);
      expectErrorEnvelope(body, "MERCHANT_NOT_FOUND");
    }
  });

  it("keeps a paused merchant published, without a lead action", async () => {
    const response = await server.get(`/api/merchants/${first("paused")}/jsonld`);
    expect(response.status).toBe(200);
    expect((await response.json()).potentialAction).toEqual([]);
  });
});

describe("GET /api/merchants/{ab_id}/ai-digest", () => {
  it("answers the digest in a stable envelope", async () => {
    const abId = first("active_contactable");
    const { status, body, headers } = await server.getJson(`/api/merchants/${abId}/ai-digest`);
    expect(status).toBe(200);
    expect(headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(body.success).toBe(true);
    expect(aiDigestSchema.safeParse(body.data).success).toBe(true);
    expect(body.data.ab_id).toBe(abId);
    expect(body._meta.timestamp).toBe(body.data.generated_at);
    expect(body._links.self).toBe(`${TEST_BASE_URL}/api/merchants/${abId}/ai-digest`);
    expect(body._state.can_contact).toBe(true);
    const again = await server.getJson(`/api/merchants/${abId}/ai-digest?utm_source=agent`);
    expect(again.headers.get("etag")).toBe(headers.get("etag"));
  });

  it("hides an unreviewed generated description and says why contact is closed", async () => {
    const { body } = await server.getJson(`/api/merchants/${first("contact_disabled")}/ai-digest`);
    expect(body.data.contact.can_contact).toBe(false);
    expect(body.data.contact.blocked_because.length).toBeGreaterThan(0);
    if (body.data.contact.blocked_because.includes("description_llm_unreviewed")) {
      expect(body.data.identity.description).toBeNull();
    }
  });
});

describe("GET /m/{ab_id}/ai.md", () => {
  it("answers Markdown with the technical sections", async () => {
    const abId = first("active_contactable");
    const response = await server.get(`/m/${abId}/ai.md`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    const text = await response.text();
    for (const heading of [
      "## Identité",
      "## Confiance",
      "## Prestations et tarifs",
      "## Horaires",
      "## Questions fréquentes",
      "## Envoyer une demande",
      "## Liens",
    ]) {
      expect(text).toContain(`\n${heading}\n`);
    }
    expect(text).toContain(`${TEST_BASE_URL}/api/merchants/${abId}/jsonld`);
  });

  it("is 404 in the envelope for an archived merchant", async () => {
    const { status, body } = await server.getJson(`/m/${first("archived")}/ai.md`);
    expect(status).toBe(404);
    expectErrorEnvelope(body, "MERCHANT_NOT_FOUND");
  });
});

describe("Q&A clusters", () => {
  it("lists a merchant's clusters, each one readable at its URL with its verification status", async () => {
    const abId = first("with_clusters");
    const list = await server.getJson(`/api/merchants/${abId}/clusters`);
    expect(list.status).toBe(200);
    expect(clusterListSchema.parse(list.body.data).ab_id).toBe(abId);
    expect(list.body.data.clusters.length).toBeGreaterThan(0);
    const summary = list.body.data.clusters[0];
    expect(summary.url).toBe(`${TEST_BASE_URL}/api/clusters/${summary.cluster_id}`);
    const one = await server.getJson(`/api/clusters/${summary.cluster_id}`);
    expect(one.status).toBe(200);
    const cluster = clusterDocumentSchema.parse(one.body.data);
    expect(cluster.ab_id).toBe(abId);
    expect(cluster.node_count).toBe(summary.node_count);
    expect(cluster.nodes).toHaveLength(summary.node_count);
    const levels = Object.values(cluster.verification.by_verification_level).reduce((sum, count) => sum + count, 0);
    expect(levels).toBe(cluster.node_count);
    expect(one.body._links.self).toBe(summary.url);
  });

  it("is 400 for a malformed id, 404 NOT_FOUND for an unknown one and for an archived merchant's", async () => {
    const malformed = await server.getJson("/api/clusters/not-a-uuid");
    expect(malformed.status).toBe(400);
    expectErrorEnvelope(malformed.body, "VALIDATION_ERROR");
    const unknown = await server.getJson("/api/clusters/00000000-0000-4000-8000-000000000000");
    expect(unknown.status).toBe(404);
    expectErrorEnvelope(unknown.body, "NOT_FOUND");
    const archived = clusterOf("ARCHIVED");
    if (archived) {
      const answer = await server.getJson(`/api/clusters/${archived.clusterId}`);
      expect(answer.status).toBe(404);
      expectErrorEnvelope(answer.body, "NOT_FOUND");
      const list = await server.getJson(`/api/merchants/${archived.abId}/clusters`);
      expect(list.status).toBe(404);
    }
  });
});

describe("the microsite /m/{ab_id}/", () => {
  it("answers French HTML with the JSON-LD embedded", async () => {
    const abId = first("active_contactable");
    const response = await server.get(`/m/${abId}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const page = await response.text();
    expect(page).toContain('<html lang="fr">');
    expect(page).toContain('<script type="application/ld+json">');
    expect(page).toContain(`<link rel="canonical" href="${TEST_BASE_URL}/m/${abId}/">`);
    expect(page).toContain('id="lead-form"');
  });

  it("answers a French 404 page for unknown, malformed, suspended and archived merchants", async () => {
    for (const abId of ["ab_zzzzzzzz", "nope", first("suspended"), first("archived")]) {
      const response = await server.get(`/m/${abId}/`);
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(await response.text()).toContain("Commerçant introuvable");
    }
  });

  it("answers the French 404 page for other non-API paths, and the envelope for API paths", async () => {
    const page = await server.get("/nulle-part");
    expect(page.status).toBe(404);
    expect(await page.text()).toContain('<html lang="fr">');
    const api = await server.getJson("/api/nulle-part");
    expect(api.status).toBe(404);
    expectErrorEnvelope(api.body, "NOT_FOUND");
  });

  it("serves its stylesheet", async () => {
    const response = await server.get("/assets/microsite.css");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/css/);
  });
});
