import type { Db } from "./db.ts";
import { and, eq, sql } from "./drizzle.ts";
import { idempotencyKeys, merchants, orders } from "./schema.ts";

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
  insert(order: OrderRecord, idempotency?: OrderIdempotency | null): "inserted" | "duplicate";
  /** The order an Idempotency-Key already created for this caller, with the request's hash. */
  findIdempotent(scope: string, key: string): { requestHash: string; orderId: string } | null;
  findById(orderId: string): OrderRecord | null;
  /** The merchant's connected payment account (Stripe acct_...), or null when none is set up. */
  paymentAccountFor(abId: string): string | null;
}

export function createOrderRepository(db: Db): OrderRepository {
  const byId = db
    .select()
    .from(orders)
    .where(eq(orders.orderId, sql.placeholder("orderId") as unknown as string))
    .prepare();
  const accountOf = db
    .select({ paymentSetup: merchants.paymentSetup, paymentAccountId: merchants.paymentAccountId })
    .from(merchants)
    .where(eq(merchants.abId, sql.placeholder("abId") as unknown as string))
    .prepare();
  const idempotent = db
    .select({ requestHash: idempotencyKeys.requestHash, orderId: idempotencyKeys.resourceId })
    .from(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.scope, sql.placeholder("scope") as unknown as string),
        eq(idempotencyKeys.key, sql.placeholder("key") as unknown as string),
      ),
    )
    .prepare();
  const insertTx = db.$client.transaction((order: OrderRecord, idempotency: OrderIdempotency | null) => {
    const inserted = db.insert(orders).values(order).onConflictDoNothing({ target: orders.orderId }).run();
    if (inserted.changes === 0) return "duplicate" as const;
    if (idempotency) {
      db.insert(idempotencyKeys)
        .values({
          scope: idempotency.scope,
          key: idempotency.key,
          requestHash: idempotency.requestHash,
          resourceId: order.orderId,
          createdAt: order.createdAt,
        })
        .run();
    }
    return "inserted" as const;
  });
  return {
    insert(order, idempotency = null) {
      return insertTx.immediate(order, idempotency);
    },
    findIdempotent(scope, key) {
      return idempotent.get({ scope, key }) ?? null;
    },
    findById(orderId) {
      const row = byId.get({ orderId });
      if (!row) return null;
      const { anonymizedAt: _anonymizedAt, ...order } = row;
      return { ...order, fulfillmentType: order.fulfillmentType === "delivery" ? "delivery" : "pickup" };
    },
    paymentAccountFor(abId) {
      const row = accountOf.get({ abId });
      return row?.paymentSetup && row.paymentAccountId ? row.paymentAccountId : null;
    },
  };
}
