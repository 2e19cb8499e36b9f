/**
 * A merchant the operators suspend disappears from every surface, as docs/merchant-lifecycle.md
 * decides (SUSPENDED and ARCHIVED are not listed: 404): no decision card, no signed manifest or
 * 24-hour snapshot still saying "certified", no profile, no document, no tool answer, no lead.
 * The merchant is a certified one, suspended by the operator command beside the running server,
 * then brought back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorEnvelope } from "../helpers/envelope.ts";
import { runJob } from "../helpers/run-job.ts";
import { type JsonObject, startTestServer, TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
let abId: string;

beforeAll(async () => {
  server = await startTestServer({ count: 60 });
  const id = server.roster.cases.order_ready?.[0];
  if (!id) throw new Error("the demo roster has no order_ready merchant");
  abId = id;
});
afterAll(async () => {
  await server?.close();
});

async function setStatus(status: string): Promise<void> {
  const run = await runJob(
    ["jobs/merchants.ts", "status", abId, status, "--reason", "contrôle en cours", "--actor", "operator:test"],
    { dataDir: server.dataDir, baseUrl: TEST_BASE_URL },
  );
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
}

/** Every GET surface that names one merchant. */
const documentPaths = () => [
  `/api/registry/resolve/${abId}`,
  `/api/merchants/${abId}/decision-card`,
  `/api/registry/verify/${abId}`,
  `/api/registry/verify/${abId}?snapshot=1`,
  `/api/merchants/${abId}/jsonld`,
  `/api/merchants/${abId}/ai-digest`,
  `/api/merchants/${abId}/clusters`,
  `/api/verify/siret_verified/${abId}`,
  `/m/${abId}/ai.md`,
];

async function callTool(name: string, args: Record<string, unknown>): Promise<JsonObject> {
  const response = await fetch(`${server.url}/api/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as JsonObject).result;
}

async function postLead(): Promise<{ status: number; body: JsonObject }> {
  const response = await fetch(`${server.url}/api/contact/brick`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      ab_id: abId,
      contact_name: "Camille Martin",
      contact_email: `camille.${crypto.randomUUID().slice(0, 8)}@example.org`,
      lead_type: "contact",
    }),
  });
  return { status: response.status, body: (await response.json()) as JsonObject };
}

const READ_TOOLS = [
  "resolve_merchant",
  "get_trust_score",
  "check_certifications",
  "check_availability",
  "get_lead_fields",
  "get_product_details",
];

describe("a certified merchant suspended by the operators", () => {
  it("is certified and answered everywhere before the suspension", async () => {
    const card = await server.getJson(`/api/merchants/${abId}/decision-card`);
    expect(card.status).toBe(200);
    expect(card.body.data.trust.trust_level).toBe("certified");
    const snapshot = await server.getJson(`/api/registry/verify/${abId}?snapshot=1`);
    expect(snapshot.status).toBe(200);
    expect(snapshot.body.data.manifest.trust.merchant_status).toBe("ACTIVE");
    for (const target of documentPaths()) expect((await server.get(target)).status, target).toBe(200);
  });

  it("is 404 MERCHANT_NOT_FOUND on every document, the decision card and both manifests", async () => {
    await setStatus("SUSPENDED");
    for (const target of documentPaths()) {
      const { status, body } = await server.getJson(target, { headers: { accept: "application/json" } });
      expect({ target, status }).toEqual({ target, status: 404 });
      expectErrorEnvelope(body, "MERCHANT_NOT_FOUND");
    }
    const page = await server.get(`/m/${abId}/`);
    expect(page.status).toBe(404);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
  });

  it("is unknown to the tools and to a lead, like an archived merchant", async () => {
    for (const name of READ_TOOLS) {
      const result = await callTool(name, { ab_id: abId });
      expect({ name, isError: result.isError }).toEqual({ name, isError: true });
      expect(result.structuredContent.error.code).toBe("MERCHANT_NOT_FOUND");
    }
    const lead = await postLead();
    expect(lead.status).toBe(404);
    expectErrorEnvelope(lead.body, "MERCHANT_NOT_FOUND");
  });

  it("comes back on every surface once the operators lift the suspension", async () => {
    await setStatus("ACTIVE");
    for (const target of documentPaths()) expect((await server.get(target)).status, target).toBe(200);
    expect((await callTool("resolve_merchant", { ab_id: abId })).isError).toBeUndefined();
    expect((await postLead()).status).toBe(201);
  });
});
