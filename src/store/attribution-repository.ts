import type { AttributionRepository } from "../domain/attribution/attribution-store.ts";
import type { Db } from "./db.ts";
import { and, eq, gt, isNull, sql } from "./drizzle.ts";
import { attributionSessions, leads, orders } from "./schema.ts";

export type {
  AttributionRepository,
  AttributionSession,
  ConversionTarget,
} from "../domain/attribution/attribution-store.ts";

const text = (name: string) => sql.placeholder(name) as unknown as string;

export function createAttributionRepository(db: Db): AttributionRepository {
  const byId = db
    .select()
    .from(attributionSessions)
    .where(eq(attributionSessions.sessionId, text("id")))
    .prepare();
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
      db.insert(attributionSessions).values(session).run();
    },
    async findById(sessionId) {
      return byId.get({ id: sessionId }) ?? null;
    },
    async convert(sessionId, conversion) {
      const result = db
        .update(attributionSessions)
        .set({ convertedAt: conversion.at, leadId: conversion.leadId, orderId: conversion.orderId })
        .where(
          and(
            eq(attributionSessions.sessionId, sessionId),
            isNull(attributionSessions.convertedAt),
            gt(attributionSessions.expiresAt, conversion.at),
          ),
        )
        .run();
      return result.changes === 1;
    },
    async leadOwner(leadId) {
      return leadById.get({ id: leadId }) ?? null;
    },
    async orderOwner(orderId) {
      return orderById.get({ id: orderId }) ?? null;
    },
  };
}
