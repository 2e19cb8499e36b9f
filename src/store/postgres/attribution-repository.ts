/** Attribution sessions on PostgreSQL: of two concurrent conversions of one session exactly one wins. */
import type { AttributionRepository } from "../../domain/attribution/attribution-store.ts";
import type { Asynchronous } from "./asynchronous.ts";
import { and, eq, gt, isNull } from "./drizzle.ts";
import { attributionSessions, leads, orders } from "./schema.ts";
import type { PostgresStore } from "./store.ts";

export function createPostgresAttributionRepository({ db }: PostgresStore): Asynchronous<AttributionRepository> {
  return {
    async insert(session) {
      await db.insert(attributionSessions).values(session);
    },
    async findById(sessionId) {
      const [row] = await db.select().from(attributionSessions).where(eq(attributionSessions.sessionId, sessionId));
      return row ?? null;
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
      const [row] = await db
        .select({ abId: leads.abId, agentId: leads.agentId })
        .from(leads)
        .where(eq(leads.leadId, leadId));
      return row ?? null;
    },
    async orderOwner(orderId) {
      const [row] = await db
        .select({ abId: orders.abId, agentId: orders.agentId })
        .from(orders)
        .where(eq(orders.orderId, orderId));
      return row ?? null;
    },
  };
}
