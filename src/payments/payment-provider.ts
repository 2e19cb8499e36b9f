/**
 * The payment step of an order, behind one interface. The real implementation opens a hosted
 * checkout on the merchant's own connected payment account (src/payments/stripe-checkout.ts):
 * the customer pays the merchant directly and the service never holds funds.
 */

export interface CheckoutLineItem {
  name: string;
  /** Unit price in cents. */
  unitAmount: number;
  quantity: number;
}

export interface CheckoutRequest {
  orderId: string;
  /** The merchant's connected account (Stripe: acct_...). Funds go there, never to the platform. */
  accountId: string;
  currency: "eur";
  lineItems: CheckoutLineItem[];
  customerEmail: string | null;
  successUrl: string;
  cancelUrl: string;
  metadata: Record<string, string>;
  /** Sent to the provider so that a retried call cannot open two checkouts. */
  idempotencyKey: string;
  /** When the checkout closes (ISO 8601); Stripe accepts 30 minutes to 24 hours ahead. */
  expiresAt: string;
}

export interface Checkout {
  provider: string;
  /** The provider's checkout id (Stripe: cs_...). */
  sessionId: string;
  /** Null for a hosted checkout until the customer confirms (Stripe creates the PaymentIntent then). */
  paymentIntentId: string | null;
  /** Null for a hosted checkout (only embedded checkouts have one). */
  clientSecret: string | null;
  /** The hosted checkout page the customer pays on. */
  url: string;
  /** Total in cents as the provider computed it. */
  amount: number;
  currency: string;
  expiresAt: string | null;
}

export interface PaymentProvider {
  readonly name: string;
  createCheckout(request: CheckoutRequest): Promise<Checkout>;
}

/** The provider refused or could not be reached: no order is created. */
export class PaymentProviderError extends Error {
  override name = "PaymentProviderError";
  readonly providerCode: string | null;

  constructor(message: string, providerCode: string | null = null) {
    super(message);
    this.providerCode = providerCode;
  }
}
