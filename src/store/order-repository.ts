/** Orders, on both engines: an order and its Idempotency-Key stored in one transaction. */
import type { OrderRepository } from "../domain/orders/order-store.ts";
import { and, eq, sql } from "./drizzle.ts";
import { idempotencyKeys, merchants, orders } from "./schema.ts";
import { byKey, inTransaction, rows, run, type StoreDb } from "./store-db.ts";

export type { OrderIdempotency, OrderItem, OrderRecord, OrderRepository } from "../domain/orders/order-store.ts";

const text = (name: string) => sql.placeholder(name);

export function createOrderRepository(db: StoreDb): OrderRepository {
  const byId = byKey(db, orders, orders.orderId, "orderId");
  const accountOf = db
    .select({ paymentSetup: merchants.paymentSetup, paymentAccountId: merchants.paymentAccountId })
    .from(merchants)
    .where(eq(merchants.abId, text("abId")))
    .prepare();
  const idempotent = db
    .select({ requestHash: idempotencyKeys.requestHash, orderId: idempotencyKeys.resourceId })
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.scope, text("scope")), eq(idempotencyKeys.key, text("key"))))
    .prepare();
  return {
    insert: (order, idempotency = null) =>
      inTransaction(db, function* (tx) {
        const inserted = yield* rows(
          tx
            .insert(orders)
            .values(order)
            .onConflictDoNothing({ target: orders.orderId })
            .returning({ orderId: orders.orderId }),
        );
        if (inserted.length === 0) return "duplicate" as const;
        if (idempotency) {
          yield* run(
            tx.insert(idempotencyKeys).values({
              scope: idempotency.scope,
              key: idempotency.key,
              requestHash: idempotency.requestHash,
              resourceId: order.orderId,
              createdAt: order.createdAt,
            }),
          );
        }
        return "inserted" as const;
      }),
    async findIdempotent(scope, key) {
      return (await idempotent.get({ scope, key })) ?? null;
    },
    async findById(orderId) {
      const row = await byId.get({ orderId });
      if (!row) return null;
      const { anonymizedAt: _anonymizedAt, ...order } = row;
      return { ...order, fulfillmentType: order.fulfillmentType === "delivery" ? "delivery" : "pickup" };
    },
    async paymentAccountFor(abId) {
      const row = await accountOf.get({ abId });
      return row?.paymentSetup && row.paymentAccountId ? row.paymentAccountId : null;
    },
  };
}
