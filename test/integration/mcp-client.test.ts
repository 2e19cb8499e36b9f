/**
 * The official MCP SDK client against the real server over HTTP: it lists the tools (those the
 * caller's key allows), calls each with valid arguments on the demo registry, and with invalid
 * ones; every structuredContent is checked against the tool's full output schema
 * (/.well-known/mcp.json) and the outline tools/list gives (ajv, JSON Schema 2020-12).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ValidateFunction } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newAjv } from "../helpers/openapi.ts";
import { type JsonObject, startTestServer, TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
let client: Client;
const validators = new Map<string, ValidateFunction>();
let toolList: JsonObject[] = [];

const TOOL_NAMES = [
  "search_merchants",
  "resolve_merchant",
  "contact_merchant",
  "get_trust_score",
  "check_availability",
  "compare_merchants",
  "check_lead_status",
  "send_lead_message",
  "get_lead_fields",
  "submit_lead",
  "get_product_details",
  "check_certifications",
  "contact_service",
  "quote_order_readiness",
];

async function connect(headers: Record<string, string> = {}): Promise<Client> {
  const next = new Client({ name: "abeille-test", version: "1.0.0" });
  await next.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), { requestInit: { headers } }));
  return next;
}

/** The outline tools/list gives, and the full schema /.well-known/mcp.json gives: both must accept each answer. */
const outlineValidators = new Map<string, ValidateFunction>();

beforeAll(async () => {
  server = await startTestServer({ count: 200 });
  client = await connect();
  toolList = (await client.listTools()).tools as JsonObject[];
  const ajv = newAjv();
  for (const tool of toolList) outlineValidators.set(tool.name, ajv.compile(tool.outputSchema));
  const discovery = await server.getJson("/.well-known/mcp.json");
  for (const [name, schema] of Object.entries(discovery.body.output_schemas as Record<string, JsonObject>)) {
    validators.set(name, ajv.compile(schema));
  }
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

const first = (name: string) => {
  const id = server.roster.cases[name]?.[0];
  if (!id) throw new Error(`the demo roster has no ${name} merchant`);
  return id;
};

interface Result {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent: JsonObject;
}

async function call(name: string, args: Record<string, unknown>, via: Client = client): Promise<Result> {
  const result = (await via.callTool({ name, arguments: args })) as unknown as Result;
  const validate = validators.get(name);
  expect(validate, `no output schema for ${name}`).toBeDefined();
  if (validate && !validate(result.structuredContent)) {
    throw new Error(
      `${name}: structuredContent does not match its output schema: ${JSON.stringify(validate.errors?.slice(0, 5))}`,
    );
  }
  // The outline of a tool the anonymous client was not offered is not in its list.
  const outline = outlineValidators.get(name);
  if (outline && !outline(result.structuredContent)) {
    throw new Error(`${name}: structuredContent does not match its outline: ${JSON.stringify(outline.errors)}`);
  }
  return result;
}

function expectSuccess(result: Result): JsonObject {
  if (result.isError) throw new Error(`expected success, got: ${result.content[0]?.text}`);
  expect(result.structuredContent.success).toBe(true);
  // structuredContent mirrored as JSON text.
  expect(JSON.parse(result.content[0]?.text ?? "null")).toEqual(result.structuredContent);
  expect(result.structuredContent._meta.protocol).toBe("abeille/hateoas");
  return result.structuredContent;
}

function expectFailure(result: Result, code: string): string {
  expect(result.isError).toBe(true);
  expect(result.structuredContent.success).toBe(false);
  expect(result.structuredContent.error.code).toBe(code);
  expect(result.structuredContent._state).toBeNull();
  expect(result.structuredContent._actions.length).toBeGreaterThan(0);
  const guidance = result.content[0]?.text ?? "";
  expect(guidance).toContain(code);
  expect(guidance).toMatch(/What to do next:/);
  // The envelope itself follows as JSON.
  expect(JSON.parse(result.content[1]?.text ?? "null")).toEqual(result.structuredContent);
  return guidance;
}

describe("tools/list", () => {
  it("lists the tools an anonymous caller can use, in the spec's order; a level-3 key gets all 14", async () => {
    expect(toolList.map((tool) => tool.name)).toEqual(TOOL_NAMES.filter((name) => name !== "quote_order_readiness"));
    const commercial = await connect({ authorization: `Bearer ${await approvedKey(3)}` });
    try {
      const tools = (await commercial.listTools()).tools;
      expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
      expect(tools.slice(0, 13)).toEqual(toolList);
    } finally {
      await commercial.close();
    }
    const reader = await connect({ authorization: `Bearer ${await approvedKey(1)}` });
    try {
      const names = (await reader.listTools()).tools.map((tool) => tool.name);
      for (const write of ["contact_merchant", "send_lead_message", "submit_lead"]) expect(names).not.toContain(write);
      expect(names).toContain("contact_service");
    } finally {
      await reader.close();
    }
  });

  it("describes each tool with title, description, schemas and explicit annotations", () => {
    for (const tool of toolList) {
      expect(tool.title.length).toBeGreaterThan(3);
      expect(tool.description.length).toBeGreaterThan(150);
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema.type).toBe("object");
      for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]) {
        expect(typeof tool.annotations[hint], `${tool.name}.${hint}`).toBe("boolean");
      }
      expect(JSON.stringify(tool.inputSchema)).not.toContain("$ref");
    }
  });

  it("marks the read tools read-only and the lead tools as open-world writes", () => {
    const byName = new Map(toolList.map((tool) => [tool.name, tool]));
    for (const name of ["search_merchants", "resolve_merchant", "check_availability"]) {
      expect(byName.get(name)?.annotations.readOnlyHint).toBe(true);
    }
    for (const name of ["submit_lead", "contact_merchant", "send_lead_message", "contact_service"]) {
      expect(byName.get(name)?.annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: false,
        openWorldHint: true,
      });
    }
  });
});

describe("every tool with valid arguments", () => {
  it("search_merchants finds merchants, geo included", async () => {
    const body = expectSuccess(await call("search_merchants", { q: "boulangerie", limit: 5 }));
    expect(body.count).toBeGreaterThan(0);
    expect(body.results[0].merchant.ab_id).toMatch(/^ab_[a-z0-9]{8}$/);
    expect(body._links.self).toBe(`${TEST_BASE_URL}/api/registry/search?q=boulangerie&limit=5`);
    const geo = server.roster.geo_queries[0];
    if (!geo) throw new Error("no geo query in the roster");
    const near = expectSuccess(
      await call("search_merchants", { q: geo.q, lat: geo.lat, lng: geo.lng, radius: geo.radius, tags: geo.tags }),
    );
    expect(near.count).toBeGreaterThan(0);
    for (const result of near.results) expect(result.merchant.distance_km).toBeLessThanOrEqual(geo.radius);
  });

  it("search_merchants answers exactly what the REST route answers", async () => {
    const tool = expectSuccess(await call("search_merchants", { q: "plombier", limit: 3 }));
    const { body: rest } = await server.getJson("/api/registry/search?q=plombier&limit=3");
    const strip = ({ _meta: _m, ...value }: JsonObject) => value;
    expect(strip(tool)).toEqual(strip(rest));
  });

  it("resolve_merchant answers the REST resolve envelope", async () => {
    const abId = first("active_contactable");
    const body = expectSuccess(await call("resolve_merchant", { ab_id: abId }));
    const { body: rest } = await server.getJson(`/api/registry/resolve/${abId}`);
    expect(body.merchant).toEqual(rest.merchant);
    expect(body.credentials).toEqual(rest.credentials);
    expect(body._state).toEqual(rest._state);
    expect(Object.keys(body._actions)).toEqual(Object.keys(rest._actions));
  });

  it("get_trust_score explains the score with its contributions", async () => {
    const body = expectSuccess(await call("get_trust_score", { ab_id: first("order_ready") }));
    const { trust, contributions } = body.data;
    expect(trust.score).toBe(trust.breakdown.total);
    const sum = contributions.reduce((total: number, item: JsonObject) => total + item.points, 0);
    expect(sum).toBe(trust.score);
  });

  it("check_availability answers from the opening hours in the merchant's time zone", async () => {
    const body = expectSuccess(
      await call("check_availability", { ab_id: first("active_contactable"), at: "2026-11-03T10:30:00+01:00" }),
    );
    expect(body.data.time_zone).toBe("Europe/Paris");
    expect(body.data.checked_at).toBe("2026-11-03T10:30:00+01:00");
    expect(body.data.local_weekday).toBe("mardi");
    expect(typeof body.data.summary).toBe("string");
    if (body.data.hours_declared) expect(body.data.week).toHaveLength(7);
  });

  it("compare_merchants compares side by side, with distances from a point", async () => {
    const ids = [first("active_contactable"), first("order_ready"), first("probation")];
    const body = expectSuccess(await call("compare_merchants", { ab_ids: ids, lat: 48.8566, lng: 2.3522 }));
    expect(body.data.merchants.map((merchant: JsonObject) => merchant.ab_id)).toEqual(ids);
    for (const merchant of body.data.merchants) {
      expect(typeof merchant.distance_km).toBe("number");
      expect(merchant.trust.score).toBe(merchant.trust.breakdown.total);
    }
    expect(body.data.leaders.trust_score.length).toBeGreaterThan(0);
    expect(body.data.leaders.distance_km.length).toBeGreaterThan(0);
  });

  it("get_product_details lists products, or one by id", async () => {
    const abId = first("active_contactable");
    const all = expectSuccess(await call("get_product_details", { ab_id: abId }));
    expect(all.data.products.length).toBeGreaterThan(0);
    const product = all.data.products[0];
    const one = expectSuccess(await call("get_product_details", { ab_id: abId, product_id: product.product_id }));
    expect(one.data.products).toHaveLength(1);
    expect(one.data.products[0].name).toBe(product.name);
  });

  it("check_certifications gives credentials with proof levels", async () => {
    const body = expectSuccess(await call("check_certifications", { ab_id: first("order_ready") }));
    expect(body.data.identity.siret).toMatch(/^\d{14}$/);
    expect(body.data.credentials.length).toBeGreaterThan(0);
    for (const credential of body.data.credentials) {
      expect(["official_source_verified", "machine_consistent", "merchant_declared"]).toContain(
        credential.proof_status,
      );
    }
    expect(body.data.proof_summary.official_source_verified).toBeGreaterThan(0);
  });

  it("get_lead_fields gives the merchant's lead contract", async () => {
    const body = expectSuccess(await call("get_lead_fields", { ab_id: first("active_contactable") }));
    expect(body.data.can_contact).toBe(true);
    expect(body.data.lead_contract.endpoint).toBe(`${TEST_BASE_URL}/api/contact/brick`);
    expect(body.data.lead_contract.sector_fields_path).toBe("metadata");
  });

  it("submit_lead sends the contract's example payload; a second time is a duplicate", async () => {
    const abId = first("active_contactable");
    const fields = expectSuccess(await call("get_lead_fields", { ab_id: abId }));
    const payload = { ...fields.data.lead_contract.example_payload, contact_email: "mcp.lead@example.fr" };
    const created = expectSuccess(await call("submit_lead", payload));
    expect(created.lead_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.tracking_status).toBe("received");
    expect(created.deduplicated).toBe(false);
    const again = expectSuccess(await call("submit_lead", payload));
    expect(again.deduplicated).toBe(true);
    expect(again.lead_id).toBe(created.lead_id);
  });

  it("submit_lead tells callers apart as the REST route does: another agent gets its own lead, the same client its first one", async () => {
    const abId = first("active_contactable");
    const fields = expectSuccess(await call("get_lead_fields", { ab_id: abId }));
    const payload = { ...fields.data.lead_contract.example_payload, contact_email: "mcp.callers@example.fr" };
    const anonymous = expectSuccess(await call("submit_lead", payload));
    expect(anonymous.deduplicated).toBe(false);

    const agent = await connect({ authorization: `Bearer ${await approvedKey(2)}` });
    try {
      const other = expectSuccess(await call("submit_lead", payload, agent));
      expect(other.deduplicated).toBe(false);
      expect(other.lead_id).not.toBe(anonymous.lead_id);
      expect(other.tracking_token).not.toBe(anonymous.tracking_token);
    } finally {
      await agent.close();
    }

    // The anonymous client posting the same lead over REST is the same caller.
    const rest = await server.getJson("/api/contact/brick", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(payload),
    });
    expect(rest.status).toBe(200);
    expect(rest.body.lead_id).toBe(anonymous.lead_id);
    expect(rest.body.tracking_token).toBe(anonymous.tracking_token);
  });

  it("contact_merchant sends a contact lead, then check_lead_status and send_lead_message follow it", async () => {
    const created = expectSuccess(
      await call("contact_merchant", {
        ab_id: first("active_contactable"),
        contact_name: "Camille Martin",
        contact_email: "camille.contact@example.fr",
        message: "Bonjour, êtes-vous ouverts le dimanche ?",
        preferred_contact: "email",
      }),
    );
    expect(created._actions.lead_status.href).toBe(`${TEST_BASE_URL}/api/leads/${created.lead_id}`);
    const status = expectSuccess(
      await call("check_lead_status", { lead_id: created.lead_id, tracking_token: created.tracking_token }),
    );
    expect(status.data.lead_type).toBe("contact");
    expect(["received", "delivered", "failed"]).toContain(status.data.tracking_status);
    const sent = expectSuccess(
      await call("send_lead_message", {
        lead_id: created.lead_id,
        tracking_token: created.tracking_token,
        message: "Je précise : plutôt en fin de matinée.",
      }),
    );
    expect(sent.data.status).toBe("queued");
    expect(sent.data.messages_count).toBe(1);
  });

  it("contact_service writes to the platform team", async () => {
    const body = expectSuccess(
      await call("contact_service", {
        type: "support",
        name: "Agent de test",
        email: "agent@example.fr",
        message: "Une fiche semble en double.",
      }),
    );
    expect(body.status).toBe("received");
    expect(body.contact_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("applies the REST routes' permission rule: a level-1 key writes to the platform team, not to merchants", async () => {
    const key = await approvedKey(1);
    const reader = await connect({ authorization: `Bearer ${key}` });
    try {
      const contact = { type: "support", name: "Lecteur", email: "lecteur@example.fr", message: "Une question." };
      expect(expectSuccess(await call("contact_service", contact, reader)).status).toBe("received");
      const rest = await server.getJson("/api/contact/platform", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify(contact),
      });
      expect(rest.status).toBe(201);
      const lead = {
        ab_id: first("active_contactable"),
        contact_name: "Lecteur",
        contact_email: "lecteur@example.fr",
        lead_type: "contact",
      };
      const refused = await call("submit_lead", lead, reader);
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent.error.code).toBe("FORBIDDEN");
      const restLead = await server.getJson("/api/contact/brick", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify(lead),
      });
      expect(restLead.status).toBe(403);
    } finally {
      await reader.close();
    }
  });

  it("quote_order_readiness tells why an order cannot be placed and which lead to send (level 3 key)", async () => {
    const key = await approvedKey(3);
    const commercial = await connect({ authorization: `Bearer ${key}` });
    try {
      const abId = first("order_ready");
      const profile = await server.getJson(`/api/registry/resolve/${abId}`);
      const productId = profile.body.products[0].id;
      const body = expectSuccess(
        await call("quote_order_readiness", { ab_id: abId, product_ids: [productId], quantities: [2] }, commercial),
      );
      expect(body.data.ready).toBe(false);
      expect(body.data.blocked_because).toContain("order_rail_disabled");
      expect(body.data.lead_instead.example_payload.ab_id).toBe(abId);
      expect(body._actions[0].rel).toBe("create_lead");
    } finally {
      await commercial.close();
    }
  });
});

describe("business failures come back as isError with guidance", () => {
  it("an unknown merchant says to search", async () => {
    const guidance = expectFailure(await call("resolve_merchant", { ab_id: "ab_zzzzzzzz" }), "MERCHANT_NOT_FOUND");
    expect(guidance).toContain("search_merchants");
  });

  it("an archived merchant is the same 404", async () => {
    expectFailure(await call("get_trust_score", { ab_id: first("archived") }), "MERCHANT_NOT_FOUND");
  });

  it("a lead to a merchant that cannot be contacted is CONTACT_DISABLED with the reasons", async () => {
    const result = await call("submit_lead", {
      ab_id: first("contact_disabled"),
      contact_name: "Camille Martin",
      contact_email: "camille@example.fr",
      lead_type: "contact",
    });
    const guidance = expectFailure(result, "CONTACT_DISABLED");
    expect(result.structuredContent.error.blocked_because.length).toBeGreaterThan(0);
    expect(guidance).toContain("another merchant");
  });

  it("quote_order_readiness without a level-3 key says to send a lead instead", async () => {
    const guidance = expectFailure(await call("quote_order_readiness", { ab_id: first("order_ready") }), "FORBIDDEN");
    expect(guidance).toContain("submit_lead");
  });

  it("quote_order_readiness without any key says a key is needed, not that the key lacks a permission", async () => {
    const guidance = expectFailure(await call("quote_order_readiness", { ab_id: first("order_ready") }), "FORBIDDEN");
    expect(guidance).toContain("This tool needs an API key");
    expect(guidance).not.toContain("The API key you presented");
  });

  it("quote_order_readiness with a key that lacks the permission says so", async () => {
    const reader = await connect({ "x-api-key": await approvedKey(1) });
    try {
      const result = await call("quote_order_readiness", { ab_id: first("order_ready") }, reader);
      const guidance = expectFailure(result, "FORBIDDEN");
      expect(guidance).toContain("The API key you presented does not carry the permission");
    } finally {
      await reader.close();
    }
  });

  it("a wrong tracking token answers like an unknown lead", async () => {
    expectFailure(
      await call("check_lead_status", { lead_id: "00000000-0000-4000-8000-000000000000", tracking_token: "nope" }),
      "NOT_FOUND",
    );
  });

  it("an unknown product names the valid ones", async () => {
    const result = await call("get_product_details", { ab_id: first("active_contactable"), product_id: "nope" });
    const guidance = expectFailure(result, "VALIDATION_ERROR");
    expect(guidance).toMatch(/products of ab_[a-z0-9]{8}: [0-9a-f-]{36}/);
  });

  it("a REST error envelope and the tool's structuredContent are the same", async () => {
    const tool = await call("resolve_merchant", { ab_id: "ab_zzzzzzzz" });
    const { body: rest } = await server.getJson("/api/registry/resolve/ab_zzzzzzzz");
    const strip = ({ _meta: _m, _links: _l, ...value }: JsonObject) => value;
    expect(strip(tool.structuredContent)).toEqual(strip(rest));
  });
});

describe("every tool with invalid arguments", () => {
  const INVALID: Record<string, Record<string, unknown>> = {
    search_merchants: { q: "", limit: 500 },
    resolve_merchant: { ab_id: "AB-123" },
    contact_merchant: { ab_id: "ab_aaaaaaaa", contact_name: "X", contact_email: "not-an-email", message: "" },
    get_trust_score: {},
    check_availability: { ab_id: "ab_aaaaaaaa", at: "tomorrow" },
    compare_merchants: { ab_ids: ["ab_aaaaaaaa"] },
    check_lead_status: { lead_id: "42", tracking_token: "" },
    send_lead_message: { lead_id: "00000000-0000-4000-8000-000000000000", tracking_token: "t" },
    get_lead_fields: { ab_id: 12 },
    submit_lead: { ab_id: "ab_aaaaaaaa", contact_name: "X", contact_email: "x@example.fr", lead_type: "purchase" },
    get_product_details: { ab_id: "ab_aaaaaaaa", colour: "red" },
    check_certifications: { ab_id: null },
    contact_service: { type: "complaint", name: "X", email: "x@example.fr", message: "Hello" },
    quote_order_readiness: { ab_id: "ab_aaaaaaaa", quantities: [1] },
  };

  it.each(TOOL_NAMES)("%s answers VALIDATION_ERROR naming the bad arguments and the valid ones", async (name) => {
    const args = INVALID[name];
    if (!args) throw new Error(`no invalid arguments for ${name}`);
    // quote_order_readiness needs its permission first: check the arguments with a level-3 key.
    const via = name === "quote_order_readiness" ? await connect({ "x-api-key": await approvedKey(3) }) : client;
    try {
      const result = await call(name, args, via);
      const guidance = expectFailure(result, "VALIDATION_ERROR");
      expect(result.structuredContent.data.issues.length).toBeGreaterThan(0);
      expect(guidance).toContain("Invalid arguments:");
      expect(guidance).toContain(`Arguments of ${name}:`);
    } finally {
      if (via !== client) await via.close();
    }
  });

  it("lists valid values for an enum", async () => {
    const result = await call("submit_lead", {
      ab_id: "ab_aaaaaaaa",
      contact_name: "X",
      contact_email: "x@example.fr",
      lead_type: "purchase",
    });
    expect(result.content[0]?.text).toContain("estimation, contact, rdv, quote");
  });

  it("names unknown arguments and the accepted ones", async () => {
    const result = await call("search_merchants", { q: "pain", city: "Lyon" });
    expect(result.content[0]?.text).toContain("city: is not a field of this request; allowed fields: q, tags");
  });
});

describe("protocol faults through the SDK client", () => {
  it("an unknown tool is a JSON-RPC -32602 error, not a tool result", async () => {
    const failure = await client.callTool({ name: "book_table", arguments: {} }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: -32602 });
    // The SDK client adds its own "MCP error -32602: " once; the server's message is not prefixed again.
    expect((failure as Error).message).toMatch(
      /^MCP error -32602: Unknown tool: book_table\. Available tools: search_merchants, /,
    );
  });
});

/** Registers an agent at `level` and approves it in the database, as the operator command does. */
async function approvedKey(level: number): Promise<string> {
  const { body } = await server.getJson("/api/agents/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      agent_name: `mcp-test-${level}`,
      contact_email: "agent@example.fr",
      requested_level: level,
    }),
  });
  if (!body.api_key) throw new Error(`registration failed: ${JSON.stringify(body)}`);
  if (body.status === "pending_verification") await approve(body.agent_id);
  return body.api_key as string;
}

async function approve(agentId: string): Promise<void> {
  const { openDatabase } = await import("../../src/store/db.ts");
  const { createAgentRepository } = await import("../../src/store/agent-repository.ts");
  const { applyAgentCommand } = await import("../../src/domain/agents/operator.ts");
  const db = openDatabase(`${server.dataDir}/abeille.db`);
  try {
    await applyAgentCommand({ agents: createAgentRepository(db), now: () => new Date() }, agentId, "approve");
  } finally {
    db.$client.close();
  }
}
