/**
 * The storage this part of the domain needs (a port): src/store/order-repository.ts implements it.
 */

export interface OrderItem {
  product_id: string;
  quantity: number;
  unit_cents: number;
}

export interface OrderRecord {
  orderId: string;
  abId: string;
  items: OrderItem[];
  amountCents: number;
  currency: string;
  fulfillmentType: "pickup" | "delivery";
  deliveryAddress: Record<string, string> | null;
  userEmail: string | null;
  customerNotes: string | null;
  agentId: string | null;
  /** payment_pending, paid, cancelled */
  status: string;
  paymentProvider: string;
  paymentIntentId: string | null;
  checkoutUrl: string | null;
  createdAt: string;
}

export interface OrderIdempotency {
  scope: string;
  key: string;
  requestHash: string;
}

export interface OrderRepository {
  /**
   * Stores the order and, when given, its Idempotency-Key in one transaction. "duplicate" when an
   * order with this id exists already (a concurrent twin of an idempotent request won).
   */
  insert(order: OrderRecord, idempotency?: OrderIdempotency | null): Promise<"inserted" | "duplicate">;
  /** The order an Idempotency-Key already created for this caller, with the request's hash. */
  findIdempotent(scope: string, key: string): Promise<{ requestHash: string; orderId: string } | null>;
  findById(orderId: string): Promise<OrderRecord | null>;
  /** The merchant's connected payment account (Stripe acct_...), or null when none is set up. */
  paymentAccountFor(abId: string): Promise<string | null>;
}
