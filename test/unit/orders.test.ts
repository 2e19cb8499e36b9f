import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Product } from "../../src/domain/merchant.ts";
import { createOrder } from "../../src/domain/orders/create-order.ts";
import { itemStatus, merchantOrderReasons, orderAmount, priceItems } from "../../src/domain/orders/order-rules.ts";
import { quoteOrderReadiness } from "../../src/domain/orders/quote-order-readiness.ts";
import { isServiceError, type ServiceError } from "../../src/errors/service-error.ts";
import type { Checkout, CheckoutRequest, PaymentProvider } from "../../src/payments/payment-provider.ts";
import { PaymentProviderError } from "../../src/payments/payment-provider.ts";
import { type CreateOrderBody, createOrderBodySchema } from "../../src/schemas/orders.ts";
import { seedDemoRegistry } from "../../src/seed/seed-demo.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import {
  createMerchantReads,
  createMerchantRepository,
  type MerchantReads,
  type MerchantRepository,
} from "../../src/store/merchant-repository.ts";
import { createOrderRepository, type OrderRepository } from "../../src/store/order-repository.ts";

const NOW = new Date("2026-11-01T10:00:00.000Z");
const BASE = "http://abeille.test";
let dir: string;
let db: Db;
let merchants: MerchantRepository;
/** The same reads, synchronous: for the fixtures chosen with Array.find. */
let reads: MerchantReads;
let orders: OrderRepository;
let orderReady: string[];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "abeille-orders-"));
  db = openDatabase(path.join(dir, "abeille.db"));
  const summary = await seedDemoRegistry(db, { count: 300, seed: 7, now: NOW, dataDir: dir, rosterFile: null });
  merchants = createMerchantRepository(db);
  reads = createMerchantReads(db);
  orders = createOrderRepository(db);
  orderReady = summary.roster.cases.order_ready;
}, 60_000);
afterAll(() => {
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A provider that records what it was asked and answers like a hosted checkout. */
function recordingProvider(fail = false) {
  const calls: CheckoutRequest[] = [];
  const provider: PaymentProvider = {
    name: "stripe",
    async createCheckout(request): Promise<Checkout> {
      calls.push(request);
      if (fail) throw new PaymentProviderError("refused", "account_invalid");
      return {
        provider: "stripe",
        sessionId: `cs_test_${calls.length}`,
        paymentIntentId: null,
        clientSecret: null,
        url: `https://checkout.stripe.test/c/pay/cs_test_${calls.length}`,
        amount: request.lineItems.reduce((sum, item) => sum + item.unitAmount * item.quantity, 0),
        currency: request.currency,
        expiresAt: request.expiresAt,
      };
    },
  };
  return { provider, calls };
}

const product = (overrides: Partial<Product>): Product =>
  ({ productId: "p", name: "P", priceCents: 1000, pricingModel: "fixed", ...overrides }) as Product;

/** The first order-ready merchant with a fixed-price product, and that product. */
function priced(): { abId: string; product: Product } {
  for (const abId of orderReady) {
    const found = reads.findProfile(abId)?.products.find((p) => itemStatus(p) === "priced");
    if (found) return { abId, product: found };
  }
  throw new Error("no order-ready merchant with a fixed price");
}

const deps = (provider: PaymentProvider | null, orderRailEnabled = true) => ({
  merchants,
  orders,
  payments: provider,
  baseUrl: BASE,
  orderRailEnabled,
  now: () => NOW,
  paymentAccountFor: orders.paymentAccountFor,
});

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    if (isServiceError(error)) return error;
    throw error;
  }
  throw new Error("expected a ServiceError");
}

describe("order rules", () => {
  it("charges fixed prices only", () => {
    expect(itemStatus(null)).toBe("not_found");
    expect(itemStatus(product({ priceCents: null, pricingModel: "on_quote" }))).toBe("on_quote");
    expect(itemStatus(product({ pricingModel: "from" }))).toBe("price_not_fixed");
    expect(itemStatus(product({ pricingModel: "hourly" }))).toBe("price_not_fixed");
    expect(itemStatus(product({}))).toBe("priced");
  });

  it("computes the amount from stored prices", () => {
    const items = priceItems(
      [product({ productId: "a", priceCents: 250 }), product({ productId: "b", priceCents: 1999 })],
      ["a", "b"],
      [4, 3],
    );
    expect(orderAmount(items)).toBe(4 * 250 + 3 * 1999);
    expect(orderAmount(priceItems([product({ productId: "a", pricingModel: "from" })], ["a"], [1]))).toBeNull();
  });

  it("names every merchant-side reason, the rail first", () => {
    expect(
      merchantOrderReasons({ railEnabled: false, status: "PROBATION", trustScore: 40, paymentReady: false }),
    ).toEqual(["order_rail_disabled", "merchant_not_active", "trust_score_below_order_minimum", "payment_not_setup"]);
    expect(merchantOrderReasons({ railEnabled: true, status: "ACTIVE", trustScore: 55, paymentReady: true })).toEqual(
      [],
    );
  });
});

describe("order body", () => {
  const valid = { merchant_id: "ab_aaaaaaaa", product_ids: ["p1"], quantities: [1], fulfillment_type: "pickup" };
  const address = {
    street: "1 rue de la Paix",
    city: "Paris",
    postal_code: "75002",
    country: "FR",
    phone: "+33 1 23 45 67 89",
  };

  it("accepts the spec's shape", () => {
    expect(createOrderBodySchema.safeParse(valid).success).toBe(true);
    expect(
      createOrderBodySchema.safeParse({ ...valid, fulfillment_type: "delivery", delivery_address: address }).success,
    ).toBe(true);
  });

  it.each([
    ["an unknown field", { ...valid, price: 1 }],
    ["a malformed merchant id", { ...valid, merchant_id: "shop-1" }],
    ["no products", { ...valid, product_ids: [], quantities: [] }],
    [
      "51 products",
      { ...valid, product_ids: Array.from({ length: 51 }, (_, i) => `p${i}`), quantities: Array(51).fill(1) },
    ],
    ["quantities of another length", { ...valid, quantities: [1, 2] }],
    ["a zero quantity", { ...valid, quantities: [0] }],
    ["a fractional quantity", { ...valid, quantities: [1.5] }],
    ["a quantity of 1000", { ...valid, quantities: [1000] }],
    ["a repeated product", { ...valid, product_ids: ["p1", "p1"], quantities: [1, 1] }],
    ["an unknown fulfillment type", { ...valid, fulfillment_type: "drone" }],
    ["delivery without address", { ...valid, fulfillment_type: "delivery" }],
    ["pickup with an address", { ...valid, delivery_address: address }],
    ["a foreign address", { ...valid, fulfillment_type: "delivery", delivery_address: { ...address, country: "BE" } }],
    [
      "a 4-digit postal code",
      { ...valid, fulfillment_type: "delivery", delivery_address: { ...address, postal_code: "7500" } },
    ],
    [
      "an address without phone",
      { ...valid, fulfillment_type: "delivery", delivery_address: { ...address, phone: undefined } },
    ],
    ["a bad email", { ...valid, user_email: "nope" }],
    ["notes over 1000 characters", { ...valid, customer_notes: "x".repeat(1001) }],
  ])("refuses %s", (_label, body) => {
    expect(createOrderBodySchema.safeParse(body).success).toBe(false);
  });
});

describe("quoteOrderReadiness", () => {
  it("is blocked by the closed rail and names the lead to send instead", async () => {
    const { abId, product: item } = priced();
    const readiness = await quoteOrderReadiness(deps(null, false), {
      ab_id: abId,
      product_ids: [item.productId],
      quantities: [2],
    });
    expect(readiness.ready).toBe(false);
    expect(readiness.blocked_because).toEqual(["order_rail_disabled"]);
    expect(readiness.merchant_can_receive_orders).toBe(true);
    expect(readiness.amount).toBe((item.priceCents ?? 0) * 2);
    expect(readiness.order_endpoint).toBeNull();
    expect(readiness.lead_instead?.endpoint).toBe(`${BASE}/api/contact/brick`);
    expect(readiness.lead_instead?.example_payload).toMatchObject({ ab_id: abId, lead_type: "quote" });
    expect(String(readiness.lead_instead?.example_payload.message)).toContain(`2 × ${item.name}`);
  });

  it("is ready with the rail open, a ready merchant and fixed prices", async () => {
    const { abId, product: item } = priced();
    const readiness = await quoteOrderReadiness(deps(null), { ab_id: abId, product_ids: [item.productId] });
    expect(readiness).toMatchObject({ ready: true, blocked_because: [], amount: item.priceCents, currency: "eur" });
    expect(readiness.order_endpoint).toBe(`${BASE}/api/orders/create`);
    expect(readiness.lead_instead).toBeNull();
  });

  it("names unpriced and unknown products", async () => {
    const abId = orderReady.find((id) =>
      reads.findProfile(id)?.products.some((p) => itemStatus(p) === "on_quote"),
    ) as string;
    const onQuote = reads.findProfile(abId)?.products.find((p) => itemStatus(p) === "on_quote") as Product;
    const readiness = await quoteOrderReadiness(deps(null), { ab_id: abId, product_ids: [onQuote.productId, "nope"] });
    expect(readiness.ready).toBe(false);
    expect(readiness.blocked_because).toEqual(["product_not_found", "product_on_quote"]);
    expect(readiness.amount).toBeNull();
    expect(readiness.items.map((item) => item.status)).toEqual(["on_quote", "not_found"]);
  });

  it("answers the merchant alone without products, and 404 for unknown merchants", async () => {
    const { abId } = priced();
    expect(await quoteOrderReadiness(deps(null), { ab_id: abId })).toMatchObject({
      ready: false,
      amount: null,
      items: [],
    });
    await expect(quoteOrderReadiness(deps(null), { ab_id: "ab_zzzzzzzz" })).rejects.toThrow(/No active merchant/);
  });

  it("reports a merchant without payment setup", async () => {
    const row = db.$client
      .prepare("SELECT ab_id FROM merchants WHERE status = 'ACTIVE' AND payment_setup = 0 LIMIT 1")
      .get() as { ab_id: string };
    const readiness = await quoteOrderReadiness(deps(null), { ab_id: row.ab_id });
    expect(readiness.blocked_because).toContain("payment_not_setup");
    expect(readiness.merchant_can_receive_orders).toBe(false);
  });
});

describe("createOrder", () => {
  const body = (abId: string, productId: string, quantity = 1): CreateOrderBody => ({
    merchant_id: abId,
    product_ids: [productId],
    quantities: [quantity],
    fulfillment_type: "pickup",
  });
  const caller = { agentId: "agt_test", clientAddress: "127.0.0.1" };

  it("answers ORDER_DISABLED while the rail is closed", async () => {
    const { abId, product: item } = priced();
    const error = await failure(
      createOrder(deps(recordingProvider().provider, false), body(abId, item.productId), caller),
    );
    expect(error.code).toBe("ORDER_DISABLED");
    expect(error.details.blockedBecause).toEqual(["order_rail_disabled"]);
  });

  it("opens a checkout on the merchant's account for the server-side amount and stores the order", async () => {
    const { abId, product: item } = priced();
    const { provider, calls } = recordingProvider();
    const answer = await createOrder(
      deps(provider),
      { ...body(abId, item.productId, 3), user_email: "c@x.fr" },
      caller,
    );
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      accountId: await orders.paymentAccountFor(abId),
      currency: "eur",
      lineItems: [{ name: item.name, unitAmount: item.priceCents, quantity: 3 }],
      customerEmail: "c@x.fr",
      metadata: { order_id: answer.order_id, ab_id: abId },
    });
    expect(calls[0]?.accountId).toMatch(/^acct_/);
    expect(answer.payment).toMatchObject({ amount: (item.priceCents ?? 0) * 3, currency: "eur", client_secret: null });
    expect(await orders.findById(answer.order_id)).toMatchObject({
      status: "payment_pending",
      amountCents: (item.priceCents ?? 0) * 3,
      agentId: "agt_test",
      checkoutUrl: answer.payment.payment_link,
    });
  });

  it("replays an Idempotency-Key and refuses it for another body", async () => {
    const { abId, product: item } = priced();
    const { provider, calls } = recordingProvider();
    const first = await createOrder(deps(provider), body(abId, item.productId, 2), caller, "key-1");
    const again = await createOrder(deps(provider), body(abId, item.productId, 2), caller, "key-1");
    expect(again.order_id).toBe(first.order_id);
    expect(again.replayed).toBe(true);
    expect(calls).toHaveLength(1);
    const error = await failure(createOrder(deps(provider), body(abId, item.productId, 5), caller, "key-1"));
    expect(error.code).toBe("CONFLICT");
  });

  it("refuses products of another merchant, unpriced products and delivery from a merchant that does not deliver", async () => {
    const { abId, product: item } = priced();
    const { provider } = recordingProvider();
    const other = orderReady.find((id) => id !== abId) as string;
    expect((await failure(createOrder(deps(provider), body(other, item.productId), caller))).code).toBe(
      "VALIDATION_ERROR",
    );

    const withFrom = orderReady.find((id) => reads.findProfile(id)?.products.some((p) => p.pricingModel === "from"));
    const fromProduct = reads.findProfile(withFrom as string)?.products.find((p) => p.pricingModel === "from");
    const unpriced = await failure(
      createOrder(deps(provider), body(withFrom as string, fromProduct?.productId ?? ""), caller),
    );
    expect(unpriced.code).toBe("ORDER_DISABLED");
    expect(unpriced.details.blockedBecause).toEqual(["product_price_not_fixed"]);

    const pickupOnly = orderReady.find(
      (id) =>
        !reads.findProfile(id)?.merchant.deliveryEnabled &&
        reads.findProfile(id)?.products.some((p) => itemStatus(p) === "priced"),
    ) as string;
    const pickupProduct = reads.findProfile(pickupOnly)?.products.find((p) => itemStatus(p) === "priced") as Product;
    const delivery = await failure(
      createOrder(
        deps(provider),
        {
          ...body(pickupOnly, pickupProduct.productId),
          fulfillment_type: "delivery",
          delivery_address: {
            street: "1 rue A",
            city: "Lyon",
            postal_code: "69001",
            country: "FR",
            phone: "0400000000",
          },
        },
        caller,
      ),
    );
    expect(delivery.code).toBe("VALIDATION_ERROR");
  });

  it("answers 403 ORDER_TRUST_TOO_LOW for a merchant without payment setup", async () => {
    const row = db.$client
      .prepare(
        "SELECT m.ab_id, p.product_id FROM merchants m JOIN products p ON p.ab_id = m.ab_id WHERE m.status = 'ACTIVE' AND m.payment_setup = 0 AND p.pricing_model = 'fixed' LIMIT 1",
      )
      .get() as { ab_id: string; product_id: string };
    const error = await failure(
      createOrder(deps(recordingProvider().provider), body(row.ab_id, row.product_id), caller),
    );
    expect(error.code).toBe("ORDER_TRUST_TOO_LOW");
    expect(error.details.blockedBecause).toContain("payment_not_setup");
  });

  it("creates nothing when the provider refuses", async () => {
    const { abId, product: item } = priced();
    const before = db.$client.prepare("SELECT count(*) AS n FROM orders").get() as { n: number };
    const error = await failure(
      createOrder(deps(recordingProvider(true).provider), body(abId, item.productId), caller),
    );
    expect(error.code).toBe("PAYMENT_UNAVAILABLE");
    expect(db.$client.prepare("SELECT count(*) AS n FROM orders").get()).toEqual(before);
    expect((await failure(createOrder(deps(null), body(abId, item.productId), caller))).code).toBe(
      "PAYMENT_UNAVAILABLE",
    );
  });
});
