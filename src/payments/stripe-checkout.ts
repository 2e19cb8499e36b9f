import type Stripe from "stripe";
import { type Checkout, type CheckoutRequest, type PaymentProvider, PaymentProviderError } from "./payment-provider.ts";

export interface StripeCheckoutOptions {
  secretKey: string;
  /** Another API base (a local fake in tests, stripe-mock): scheme, host and port are used. */
  apiBase?: string | null;
  timeoutMs?: number;
  maxNetworkRetries?: number;
}

/**
 * Stripe Checkout as a direct charge on the merchant's connected account: every call carries
 * `Stripe-Account: <acct_...>`, so the session, the PaymentIntent and the funds belong to the
 * merchant; the platform takes no application fee and never holds the money.
 */
export function createStripeCheckoutProvider(options: StripeCheckoutOptions): PaymentProvider {
  const base = options.apiBase ? new URL(options.apiBase) : null;
  const protocol = base?.protocol === "http:" ? "http" : "https";
  // The SDK is loaded on the first checkout: most servers never open the order rail, and it
  // weighs on every process's start-up and memory.
  let loading: Promise<{ stripe: Stripe; StripeError: typeof Stripe.errors.StripeError }> | null = null;
  const client = () =>
    (loading ??= import("stripe").then(({ default: StripeSdk }) => ({
      stripe: new StripeSdk(options.secretKey, {
        maxNetworkRetries: options.maxNetworkRetries ?? 2,
        timeout: options.timeoutMs ?? 15_000,
        telemetry: false,
        appInfo: { name: "abeille" },
        ...(base ? { host: base.hostname, port: base.port || (protocol === "http" ? "80" : "443"), protocol } : {}),
      }),
      StripeError: StripeSdk.errors.StripeError,
    })));

  return {
    name: "stripe",
    async createCheckout(request: CheckoutRequest): Promise<Checkout> {
      const { stripe, StripeError } = await client();
      let session: Stripe.Checkout.Session;
      try {
        session = await stripe.checkout.sessions.create(
          {
            mode: "payment",
            line_items: request.lineItems.map((item) => ({
              quantity: item.quantity,
              price_data: {
                currency: request.currency,
                unit_amount: item.unitAmount,
                product_data: { name: item.name.slice(0, 250) },
              },
            })),
            client_reference_id: request.orderId,
            ...(request.customerEmail ? { customer_email: request.customerEmail } : {}),
            metadata: request.metadata,
            payment_intent_data: { metadata: request.metadata },
            expires_at: Math.floor(Date.parse(request.expiresAt) / 1000),
            success_url: request.successUrl,
            cancel_url: request.cancelUrl,
          },
          { stripeAccount: request.accountId, idempotencyKey: request.idempotencyKey },
        );
      } catch (error) {
        if (error instanceof StripeError) {
          throw new PaymentProviderError(`Stripe refused the checkout (${error.type})`, error.code ?? error.type);
        }
        throw new PaymentProviderError("Stripe could not be reached");
      }
      if (!session.url) throw new PaymentProviderError("Stripe answered a checkout without a URL");
      const paymentIntent = session.payment_intent;
      return {
        provider: "stripe",
        sessionId: session.id,
        paymentIntentId: typeof paymentIntent === "string" ? paymentIntent : (paymentIntent?.id ?? null),
        clientSecret: session.client_secret,
        url: session.url,
        amount: session.amount_total ?? request.lineItems.reduce((sum, i) => sum + i.unitAmount * i.quantity, 0),
        currency: session.currency ?? request.currency,
        expiresAt: typeof session.expires_at === "number" ? new Date(session.expires_at * 1000).toISOString() : null,
      };
    },
  };
}

/** The provider the configuration allows, or null when no Stripe key is set (orders then answer 502). */
export function paymentProviderFromConfig(stripe: { secretKey: string | null; apiBase: string | null }) {
  return stripe.secretKey
    ? createStripeCheckoutProvider({ secretKey: stripe.secretKey, apiBase: stripe.apiBase })
    : null;
}
