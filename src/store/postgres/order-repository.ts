/** Orders on PostgreSQL: an order and its Idempotency-Key stored in one transaction. */
import type { OrderRepository } from "../../domain/orders/order-store.ts";
import type { Asynchronous } from "./asynchronous.ts";
import { and, eq } from "./drizzle.ts";
import { idempotencyKeys, merchants, orders } from "./schema.ts";
import type { PostgresStore } from "./store.ts";

export function createPostgresOrderRepository({ db }: PostgresStore): Asynchronous<OrderRepository> {
  return {
    insert: (order, idempotency = null) =>
      db.transaction(async (tx) => {
        const inserted = await tx
          .insert(orders)
          .values(order)
          .onConflictDoNothing({ target: orders.orderId })
          .returning({ orderId: orders.orderId });
        if (inserted.length === 0) return "duplicate" as const;
        if (idempotency) {
          await tx.insert(idempotencyKeys).values({
            scope: idempotency.scope,
            key: idempotency.key,
            requestHash: idempotency.requestHash,
            resourceId: order.orderId,
            createdAt: order.createdAt,
          });
        }
        return "inserted" as const;
      }),
    async findIdempotent(scope, key) {
      const [row] = await db
        .select({ requestHash: idempotencyKeys.requestHash, orderId: idempotencyKeys.resourceId })
        .from(idempotencyKeys)
        .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)));
      return row ?? null;
    },
    async findById(orderId) {
      const [row] = await db.select().from(orders).where(eq(orders.orderId, orderId));
      if (!row) return null;
      const { anonymizedAt: _anonymizedAt, ...order } = row;
      return { ...order, fulfillmentType: order.fulfillmentType === "delivery" ? "delivery" : "pickup" };
    },
    async paymentAccountFor(abId) {
      const [row] = await db
        .select({ paymentSetup: merchants.paymentSetup, paymentAccountId: merchants.paymentAccountId })
        .from(merchants)
        .where(eq(merchants.abId, abId));
      return row?.paymentSetup && row.paymentAccountId ? row.paymentAccountId : null;
    },
  };
}
