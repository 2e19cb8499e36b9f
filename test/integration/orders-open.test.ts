import { execFileSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orderCreatedSchema } from "../../src/schemas/orders.ts";
import { expectErrorEnvelope, expectMeta } from "../helpers/envelope.ts";
import { FAKE_STRIPE_SECRET_KEY, type FakeStripe, startFakeStripe } from "../helpers/fake-stripe.ts";
import { type JsonObject, startTestServer, TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

let stripe: FakeStripe;
let server: TestServer;
let transactional: string;
let inquirer: string;
const root = path.resolve(import.meta.dirname, "../..");

/**
 * SQL on the server's database from another process: opening the file in this process (which
 * hosts the server) would drop SQLite's POSIX locks on it.
 */
function sql<Row = JsonObject>(query: string, ...params: (string | number)[]): Row[] {
  const script = `
    const Database = require("better-sqlite3");
    const db = new Database(process.argv[1]);
    const statement = db.prepare(process.argv[2]);
    const params = JSON.parse(process.argv[3]);
    const rows = statement.reader ? statement.all(...params) : (statement.run(...params), []);
    process.stdout.write(JSON.stringify(rows));`;
  const out = execFileSync(
    process.execPath,
    ["-e", script, path.join(server.dataDir, "abeille.db"), query, JSON.stringify(params)],
    { cwd: root, encoding: "utf8" },
  );
  return JSON.parse(out) as Row[];
}

function agentsCommand(...args: string[]): string {
  return execFileSync(process.execPath, ["jobs/agents.ts", ...args], {
    cwd: root,
    env: { ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: "warn" },
    encoding: "utf8",
  });
}

async function register(level: number): Promise<JsonObject> {
  const { body } = await server.getJson("/api/agents/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      agent_name: `Buyer L${level}`,
      contact_email: "buyer@agent.example",
      requested_level: level,
    }),
  });
  return body;
}

beforeAll(async () => {
  stripe = await startFakeStripe();
  server = await startTestServer({
    count: 300,
    env: {
      PUBLIC_ORDER_RAIL_ENABLED: "true",
      STRIPE_SECRET_KEY: FAKE_STRIPE_SECRET_KEY,
      STRIPE_API_BASE: stripe.url,
    },
  });
  const level4 = await register(4);
  agentsCommand("approve", level4.agent_id);
  transactional = level4.api_key;
  inquirer = (await register(2)).api_key;
});
afterAll(async () => {
  await server?.close();
  await stripe?.close();
});

const order = (body: unknown, key: string | null = transactional, headers: Record<string, string> = {}) =>
  server.getJson("/api/orders/create", {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { "x-api-key": key } : {}), ...headers },
    body: JSON.stringify(body),
  });

interface Priced {
  abId: string;
  productId: string;
  name: string;
  cents: number;
  account: string;
  delivers: boolean;
}

/** Order-ready merchants and one product each sold at a fixed price ("12.50 EUR"), through the API. */
async function pricedMerchants(): Promise<Priced[]> {
  const found: Priced[] = [];
  for (const abId of server.roster.cases.order_ready ?? []) {
    const { body } = await server.getJson(`/api/registry/resolve/${abId}`);
    const product = body.products.find((p: JsonObject) => /^\d+\.\d{2} EUR$/.test(p.price));
    if (!product) continue;
    const [row] = sql<{ payment_account_id: string; delivery_enabled: number }>(
      "SELECT payment_account_id, delivery_enabled FROM merchants WHERE ab_id = ?",
      abId,
    );
    found.push({
      abId,
      productId: product.id,
      name: product.name,
      cents: Math.round(Number.parseFloat(product.price) * 100),
      account: row?.payment_account_id ?? "",
      delivers: row?.delivery_enabled === 1,
    });
  }
  return found;
}

const pickup = (target: Priced, quantity = 1) => ({
  merchant_id: target.abId,
  product_ids: [target.productId],
  quantities: [quantity],
  fulfillment_type: "pickup",
});

describe("POST /api/orders/create with the rail open", () => {
  let merchants: Priced[];
  beforeAll(async () => {
    merchants = await pricedMerchants();
    expect(merchants.length).toBeGreaterThan(2);
  });

  it("needs orders:write: anonymous callers and level-2 keys get 403 FORBIDDEN", async () => {
    const target = merchants[0] as Priced;
    for (const key of [null, inquirer]) {
      const { status, body } = await order(pickup(target), key);
      expect(status).toBe(403);
      expectErrorEnvelope(body, "FORBIDDEN");
      expect(body.error.message).toContain("orders:write");
    }
  });

  it("opens a Stripe Checkout on the merchant's connected account and stores the order", async () => {
    const target = merchants[0] as Priced;
    const before = stripe.requests.length;
    const { status, body, headers } = await order({
      ...pickup(target, 3),
      user_email: "client@example.fr",
      customer_notes: "Merci",
    });
    expect(status).toBe(201);
    expect(headers.get("cache-control")).toBe("no-store");
    expect(body.success).toBe(true);
    expect(orderCreatedSchema.safeParse(body).error).toBeUndefined();
    expect(body.order_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.status).toBe("payment_pending");
    expect(body.payment).toMatchObject({
      provider: "stripe",
      amount: target.cents * 3,
      currency: "eur",
      client_secret: null,
      payment_intent_id: null,
    });
    expect(body.payment.payment_link).toMatch(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/);
    expect(body.items).toEqual([
      {
        product_id: target.productId,
        name: target.name,
        quantity: 3,
        unit_amount: target.cents,
        line_amount: target.cents * 3,
      },
    ]);
    expect(Array.isArray(body._actions)).toBe(false);
    expect(body._actions.pay).toMatchObject({ method: "GET", href: body.payment.payment_link });
    expect(body._actions.attribution_convert.href).toBe(`${TEST_BASE_URL}/api/attribution/convert`);
    expect(body._state).toMatchObject({ can_order: true, can_receive_orders: true, payment_setup: true });
    expectMeta(body);

    expect(stripe.requests.length).toBe(before + 1);
    const sent = stripe.requests.at(-1);
    expect(sent?.path).toBe("/v1/checkout/sessions");
    expect(sent?.headers["stripe-account"]).toBe(target.account);
    expect(sent?.headers["idempotency-key"]).toBe(`abeille-order-${body.order_id}`);
    expect(sent?.params).toMatchObject({
      mode: "payment",
      client_reference_id: body.order_id,
      customer_email: "client@example.fr",
      metadata: { order_id: body.order_id, ab_id: target.abId },
      line_items: [{ quantity: "3", price_data: { currency: "eur", unit_amount: String(target.cents) } }],
    });

    const [stored] = sql(
      "SELECT status, amount_cents, agent_id, checkout_url, payment_provider FROM orders WHERE order_id = ?",
      body.order_id,
    );
    expect(stored).toMatchObject({
      status: "payment_pending",
      amount_cents: target.cents * 3,
      checkout_url: body.payment.payment_link,
      payment_provider: "stripe",
    });
    expect(stored?.agent_id).toMatch(/^agt_/);
  });

  it("replays an Idempotency-Key and refuses its reuse for another order", async () => {
    const target = merchants[1] as Priced;
    const headers = { "idempotency-key": "order-42" };
    const first = await order(pickup(target, 2), transactional, headers);
    expect(first.status).toBe(201);
    const calls = stripe.requests.length;
    const again = await order(pickup(target, 2), transactional, headers);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.order_id).toBe(first.body.order_id);
    expect(again.body.payment.payment_link).toBe(first.body.payment.payment_link);
    expect(stripe.requests.length).toBe(calls);
    const other = await order(pickup(target, 5), transactional, headers);
    expect(other.status).toBe(409);
    expectErrorEnvelope(other.body, "CONFLICT");
    // The one Idempotency-Key rule of leads and orders (src/schemas/common.ts).
    const malformed = await order(pickup(target, 1), transactional, { "idempotency-key": "k".repeat(256) });
    expect(malformed.status).toBe(400);
    expect(malformed.body.data.issues).toEqual([
      { path: "Idempotency-Key", message: "must be at most 255 characters" },
    ]);
  });

  it("validates the body strictly (400 VALIDATION_ERROR)", async () => {
    const target = merchants[0] as Priced;
    for (const body of [
      {},
      { ...pickup(target), quantities: [1, 2] },
      { ...pickup(target), quantities: [0] },
      { ...pickup(target), merchant_id: "nope" },
      { ...pickup(target), fulfillment_type: "delivery" },
      { ...pickup(target), amount: 1 },
      { ...pickup(target), product_ids: ["not-a-product-of-this-merchant"] },
    ]) {
      const { status, body: answer } = await order(body);
      expect(status, JSON.stringify(body)).toBe(400);
      expectErrorEnvelope(answer, "VALIDATION_ERROR");
    }
  });

  it("takes a delivery order to a French address from a merchant that delivers", async () => {
    const target = merchants.find((merchant) => merchant.delivers);
    if (!target) return;
    const { status, body } = await order({
      ...pickup(target),
      fulfillment_type: "delivery",
      delivery_address: {
        street: "3 rue des Lilas",
        city: "Lyon",
        postal_code: "69003",
        country: "FR",
        phone: "+33 4 78 00 00 00",
      },
    });
    expect(status).toBe(201);
    expect(body.fulfillment_type).toBe("delivery");
  });

  it("answers 404 for an unknown merchant", async () => {
    const { status, body } = await order({ ...pickup(merchants[0] as Priced), merchant_id: "ab_zzzzzzzz" });
    expect(status).toBe(404);
    expectErrorEnvelope(body, "MERCHANT_NOT_FOUND");
  });

  it("answers ORDER_DISABLED for products without a fixed price: send a lead", async () => {
    const rows = sql<{ ab_id: string; product_id: string; pricing_model: string }>(
      `SELECT p.ab_id, p.product_id, p.pricing_model FROM products p JOIN merchants m ON m.ab_id = p.ab_id
       WHERE p.pricing_model IN ('on_quote', 'from') AND m.ab_id IN (${(server.roster.cases.order_ready ?? []).map(() => "?").join(",")})`,
      ...(server.roster.cases.order_ready ?? []),
    );
    for (const model of ["on_quote", "from"]) {
      const row = rows.find((candidate) => candidate.pricing_model === model);
      if (!row) continue;
      const { status, body } = await order({
        merchant_id: row.ab_id,
        product_ids: [row.product_id],
        quantities: [1],
        fulfillment_type: "pickup",
      });
      expect(status).toBe(400);
      expectErrorEnvelope(body, "ORDER_DISABLED");
      expect(body.error.blocked_because).toEqual([
        model === "on_quote" ? "product_on_quote" : "product_price_not_fixed",
      ]);
      expect(body._actions[0].rel).toBe("create_lead");
    }
  });

  it("answers 403 ORDER_TRUST_TOO_LOW below trust 55 or without payment setup", async () => {
    // An active merchant below 55 given a connected account: trust alone refuses it.
    let lowTrust: string | null = null;
    for (const abId of server.roster.cases.active_contactable ?? []) {
      const { body } = await server.getJson(`/api/registry/resolve/${abId}`);
      if (body._state.trust_score < 55) {
        lowTrust = abId;
        break;
      }
    }
    expect(lowTrust).not.toBeNull();
    sql(
      "UPDATE merchants SET payment_setup = 1, payment_account_id = 'acct_lowtrust0001' WHERE ab_id = ?",
      lowTrust ?? "",
    );
    const [product] = sql<{ product_id: string }>(
      "SELECT product_id FROM products WHERE ab_id = ? LIMIT 1",
      lowTrust ?? "",
    );
    const low = await order({
      merchant_id: lowTrust,
      product_ids: [product?.product_id],
      quantities: [1],
      fulfillment_type: "pickup",
    });
    expect(low.status).toBe(403);
    expectErrorEnvelope(low.body, "ORDER_TRUST_TOO_LOW");
    expect(low.body.error.blocked_because).toEqual(["trust_score_below_order_minimum"]);

    // An order-ready merchant whose payment setup is withdrawn.
    const target = merchants[2] as Priced;
    sql("UPDATE merchants SET payment_setup = 0 WHERE ab_id = ?", target.abId);
    const unpaid = await order(pickup(target));
    sql("UPDATE merchants SET payment_setup = 1 WHERE ab_id = ?", target.abId);
    expect(unpaid.status).toBe(403);
    expectErrorEnvelope(unpaid.body, "ORDER_TRUST_TOO_LOW");
    expect(unpaid.body.error.blocked_because).toEqual(["payment_not_setup"]);
  });

  it("answers ORDER_DISABLED for a merchant that is not ACTIVE", async () => {
    const abId = server.roster.cases.probation?.[0] ?? server.roster.cases.paused?.[0];
    const [product] = sql<{ product_id: string }>(
      "SELECT product_id FROM products WHERE ab_id = ? LIMIT 1",
      abId ?? "",
    );
    const { status, body } = await order({
      merchant_id: abId,
      product_ids: [product?.product_id],
      quantities: [1],
      fulfillment_type: "pickup",
    });
    expect(status).toBe(400);
    expectErrorEnvelope(body, "ORDER_DISABLED");
    expect(body.error.blocked_because).toContain("merchant_not_active");
  });

  it("answers 502 PAYMENT_UNAVAILABLE and stores nothing when Stripe refuses the account", async () => {
    const target = merchants[0] as Priced;
    const [{ n: before } = { n: 0 }] = sql<{ n: number }>("SELECT count(*) AS n FROM orders");
    stripe.refuseAccounts.add(target.account);
    const { status, body } = await order(pickup(target));
    stripe.refuseAccounts.delete(target.account);
    expect(status).toBe(502);
    expectErrorEnvelope(body, "PAYMENT_UNAVAILABLE");
    expect(body._actions[0].rel).toBe("create_lead");
    const [{ n: after } = { n: 0 }] = sql<{ n: number }>("SELECT count(*) AS n FROM orders");
    expect(after).toBe(before);
  });

  it("lets an attribution session be converted by the order", async () => {
    const target = merchants[0] as Priced;
    const created = await order(pickup(target));
    const session = await server.getJson("/api/attribution/session", {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": transactional },
      body: JSON.stringify({ ab_id: target.abId, utm_source: "chatgpt.com", utm_medium: "ai_agent" }),
    });
    expect(session.status).toBe(201);
    const converted = await server.getJson("/api/attribution/convert", {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": transactional },
      body: JSON.stringify({ session_id: session.body.data.session_id, order_id: created.body.order_id }),
    });
    expect(converted.status).toBe(200);
    expect(converted.body.data).toMatchObject({ conversion: "order", order_id: created.body.order_id });
  });
});
