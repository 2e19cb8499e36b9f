import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorEnvelope } from "../helpers/envelope.ts";
import { type JsonObject, startTestServer, TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

// The default: PUBLIC_ORDER_RAIL_ENABLED unset, so the order rail is closed.
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ count: 60 });
});
afterAll(async () => {
  await server?.close();
});

const create = (init: RequestInit) => server.getJson("/api/orders/create", { method: "POST", ...init });

function expectOrderDisabled(status: number, body: JsonObject): void {
  expect(status).toBe(400);
  expectErrorEnvelope(body, "ORDER_DISABLED");
  expect(body.error.blocked_because).toEqual(["order_rail_disabled"]);
  const lead = body._actions.find((action: JsonObject) => action.rel === "create_lead");
  expect(lead).toMatchObject({ method: "POST", href: `${TEST_BASE_URL}/api/contact/brick` });
  expect(lead.fields.map((field: JsonObject) => field.name)).toEqual(
    expect.arrayContaining(["ab_id", "contact_name", "contact_email", "lead_type"]),
  );
}

describe("POST /api/orders/create while the rail is closed", () => {
  it("answers ORDER_DISABLED with recovery actions to lead creation, whatever the body", async () => {
    const abId = server.roster.cases.order_ready?.[0];
    const json = { "content-type": "application/json" };
    const bodies: RequestInit[] = [
      {
        headers: json,
        body: JSON.stringify({ merchant_id: abId, product_ids: ["x"], quantities: [1], fulfillment_type: "pickup" }),
      },
      { headers: json, body: "{}" },
      { headers: json, body: "" },
      { headers: json, body: "{not json" },
      { headers: json, body: "[1, 2, 3]" },
      { headers: { "content-type": "text/plain" }, body: "hello" },
      {},
      { headers: json, body: JSON.stringify({ padding: "x".repeat(70 * 1024) }) },
    ];
    for (const init of bodies) {
      const { status, body } = await create(init);
      expectOrderDisabled(status, body);
    }
  });

  it("answers ORDER_DISABLED to agents of every level, not FORBIDDEN", async () => {
    const registration = await server.getJson("/api/agents/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ agent_name: "Reader", contact_email: "r@example.fr", requested_level: 1 }),
    });
    const { status, body } = await create({ headers: { "x-api-key": registration.body.api_key }, body: "{}" });
    expectOrderDisabled(status, body);
  });

  it("still answers 401 for a bad key (a wrong key is never silently ignored)", async () => {
    const { status, body } = await create({ headers: { authorization: `Bearer abk_${"x".repeat(40)}` }, body: "{}" });
    expect(status).toBe(401);
    expectErrorEnvelope(body, "UNAUTHORIZED");
  });

  it("shows can_order false with order_rail_disabled on an order-ready merchant", async () => {
    const { body } = await server.getJson(`/api/registry/resolve/${server.roster.cases.order_ready?.[0]}`);
    expect(body._state).toMatchObject({ can_order: false, can_receive_orders: true });
    expect(body._state.blocked_because).toContain("order_rail_disabled");
  });

  it("answers other methods with 405", async () => {
    const { status, headers } = await server.getJson("/api/orders/create");
    expect(status).toBe(405);
    expect(headers.get("allow")).toContain("POST");
  });
});
