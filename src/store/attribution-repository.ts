/** Attribution sessions, on both engines: of two concurrent conversions of one session exactly one wins. */
import type { AttributionRepository } from "../domain/attribution/attribution-store.ts";
import { and, eq, gt, isNull, sql } from "./drizzle.ts";
import { attributionSessions, leads, orders } from "./schema.ts";
import { byKey, type StoreDb } from "./store-db.ts";

export type {
  AttributionRepository,
  AttributionSession,
  ConversionTarget,
} from "../domain/attribution/attribution-store.ts";

const text = (name: string) => sql.placeholder(name);

export function createAttributionRepository(db: StoreDb): AttributionRepository {
  const byId = byKey(db, attributionSessions, attributionSessions.sessionId, "id");
  const leadById = db
    .select({ abId: leads.abId, agentId: leads.agentId })
    .from(leads)
    .where(eq(leads.leadId, text("id")))
    .prepare();
  const orderById = db
    .select({ abId: orders.abId, agentId: orders.agentId })
    .from(orders)
    .where(eq(orders.orderId, text("id")))
    .prepare();
  return {
    async insert(session) {
      await db.insert(attributionSessions).values(session);
    },
    async findById(sessionId) {
      return (await byId.get({ id: sessionId })) ?? null;
    },
    async convert(sessionId, conversion) {
      const converted = await db
        .update(attributionSessions)
        .set({ convertedAt: conversion.at, leadId: conversion.leadId, orderId: conversion.orderId })
        .where(
          and(
            eq(attributionSessions.sessionId, sessionId),
            isNull(attributionSessions.convertedAt),
            gt(attributionSessions.expiresAt, conversion.at),
          ),
        )
        .returning({ sessionId: attributionSessions.sessionId });
      return converted.length === 1;
    },
    async leadOwner(leadId) {
      return (await leadById.get({ id: leadId })) ?? null;
    },
    async orderOwner(orderId) {
      return (await orderById.get({ id: orderId })) ?? null;
    },
  };
}
