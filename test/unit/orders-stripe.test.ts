import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PaymentProviderError } from "../../src/payments/payment-provider.ts";
import { createStripeCheckoutProvider } from "../../src/payments/stripe-checkout.ts";
import { FAKE_STRIPE_SECRET_KEY, type FakeStripe, startFakeStripe } from "../helpers/fake-stripe.ts";

let stripe: FakeStripe;
beforeAll(async () => {
  stripe = await startFakeStripe();
});
afterAll(async () => {
  await stripe.close();
});

const request = (overrides: Record<string, unknown> = {}) => ({
  orderId: "0b6f6f39-4f0e-4a4e-9d7c-3d0e0b8f2a11",
  accountId: "acct_merchant123",
  currency: "eur" as const,
  lineItems: [
    { name: "Pain de campagne", unitAmount: 420, quantity: 2 },
    { name: "Croissant", unitAmount: 130, quantity: 6 },
  ],
  customerEmail: "client@example.fr",
  successUrl: "http://abeille.test/m/ab_aaaaaaaa/?checkout=complete",
  cancelUrl: "http://abeille.test/m/ab_aaaaaaaa/?checkout=cancelled",
  metadata: { order_id: "0b6f6f39-4f0e-4a4e-9d7c-3d0e0b8f2a11", ab_id: "ab_aaaaaaaa" },
  idempotencyKey: "abeille-order-0b6f6f39",
  expiresAt: new Date(Date.now() + 23 * 3600 * 1000).toISOString(),
  ...overrides,
});

describe("Stripe Checkout provider (official client against the local fake)", () => {
  it("creates a payment-mode session on the merchant's connected account", async () => {
    const provider = createStripeCheckoutProvider({ secretKey: FAKE_STRIPE_SECRET_KEY, apiBase: stripe.url });
    const checkout = await provider.createCheckout(request());
    expect(checkout).toMatchObject({
      provider: "stripe",
      amount: 2 * 420 + 6 * 130,
      currency: "eur",
      paymentIntentId: null,
      clientSecret: null,
    });
    expect(checkout.sessionId).toMatch(/^cs_test_/);
    expect(checkout.url).toMatch(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/);

    const sent = stripe.requests.at(-1);
    expect(sent?.method).toBe("POST");
    expect(sent?.path).toBe("/v1/checkout/sessions");
    expect(sent?.headers["stripe-account"]).toBe("acct_merchant123");
    expect(sent?.headers["idempotency-key"]).toBe("abeille-order-0b6f6f39");
    expect(sent?.headers.authorization).toBe(`Bearer ${FAKE_STRIPE_SECRET_KEY}`);
    expect(sent?.headers["content-type"]).toMatch(/application\/x-www-form-urlencoded/);
    expect(sent?.params).toMatchObject({
      mode: "payment",
      client_reference_id: "0b6f6f39-4f0e-4a4e-9d7c-3d0e0b8f2a11",
      customer_email: "client@example.fr",
      metadata: { order_id: "0b6f6f39-4f0e-4a4e-9d7c-3d0e0b8f2a11", ab_id: "ab_aaaaaaaa" },
      payment_intent_data: { metadata: { ab_id: "ab_aaaaaaaa" } },
      line_items: [
        {
          quantity: "2",
          price_data: { currency: "eur", unit_amount: "420", product_data: { name: "Pain de campagne" } },
        },
        { quantity: "6", price_data: { currency: "eur", unit_amount: "130", product_data: { name: "Croissant" } } },
      ],
    });
    // A direct charge: no application fee, no transfer to or through the platform.
    expect(sent?.raw).not.toMatch(/application_fee|transfer_data|on_behalf_of/);
  });

  it("turns a refusal into a PaymentProviderError without leaking Stripe's message", async () => {
    stripe.refuseAccounts.add("acct_closed");
    const provider = createStripeCheckoutProvider({ secretKey: FAKE_STRIPE_SECRET_KEY, apiBase: stripe.url });
    const error = await provider.createCheckout(request({ accountId: "acct_closed" })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentProviderError);
    expect((error as PaymentProviderError).providerCode).toBe("account_invalid");
  });

  it("fails cleanly with a wrong secret key or an unreachable provider", async () => {
    const wrongKey = createStripeCheckoutProvider({ secretKey: "sk_test_wrong", apiBase: stripe.url });
    await expect(wrongKey.createCheckout(request())).rejects.toBeInstanceOf(PaymentProviderError);
    const unreachable = createStripeCheckoutProvider({
      secretKey: FAKE_STRIPE_SECRET_KEY,
      apiBase: "http://127.0.0.1:9",
      maxNetworkRetries: 0,
      timeoutMs: 2000,
    });
    await expect(unreachable.createCheckout(request())).rejects.toBeInstanceOf(PaymentProviderError);
  });
});
