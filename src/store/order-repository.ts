import type { OrderIdempotency, OrderRecord, OrderRepository } from "../domain/orders/order-store.ts";
import type { Db } from "./db.ts";
import { and, eq, sql } from "./drizzle.ts";
import { idempotencyKeys, merchants, orders } from "./schema.ts";

export type { OrderIdempotency, OrderItem, OrderRecord, OrderRepository } from "../domain/orders/order-store.ts";

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
    async insert(order, idempotency = null) {
      return insertTx.immediate(order, idempotency);
    },
    async findIdempotent(scope, key) {
      return idempotent.get({ scope, key }) ?? null;
    },
    async findById(orderId) {
      const row = byId.get({ orderId });
      if (!row) return null;
      const { anonymizedAt: _anonymizedAt, ...order } = row;
      return { ...order, fulfillmentType: order.fulfillmentType === "delivery" ? "delivery" : "pickup" };
    },
    async paymentAccountFor(abId) {
      const row = accountOf.get({ abId });
      return row?.paymentSetup && row.paymentAccountId ? row.paymentAccountId : null;
    },
  };
}
