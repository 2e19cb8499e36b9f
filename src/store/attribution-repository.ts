import type { Db } from "./db.ts";
import { and, eq, gt, isNull, sql } from "./drizzle.ts";
import { attributionSessions, leads, orders } from "./schema.ts";

export interface AttributionSession {
  sessionId: string;
  agentId: string | null;
  abId: string | null;
  evidenceLevel: string;
  referrer: string | null;
  campaign: Record<string, string> | null;
  userAgentFamily: string | null;
  createdAt: string;
  expiresAt: string;
  convertedAt: string | null;
  leadId: string | null;
  orderId: string | null;
}

export interface AttributionRepository {
  insert(session: AttributionSession): void;
  findById(sessionId: string): AttributionSession | null;
  /**
   * Marks an open, unexpired session converted in one conditional UPDATE: of two concurrent
   * conversions exactly one wins. False when the session was converted or expired meanwhile.
   */
  convert(sessionId: string, conversion: { leadId: string | null; orderId: string | null; at: string }): boolean;
  /** The merchant of a lead or order, or null when it does not exist. */
  /** The merchant a lead went to and the agent that sent it (null: anonymous), or null. */
  leadOwner(leadId: string): ConversionTarget | null;
  orderOwner(orderId: string): ConversionTarget | null;
}

export interface ConversionTarget {
  abId: string;
  agentId: string | null;
}

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
    insert(session) {
      db.insert(attributionSessions).values(session).run();
    },
    findById(sessionId) {
      return byId.get({ id: sessionId }) ?? null;
    },
    convert(sessionId, conversion) {
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
    leadOwner(leadId) {
      return leadById.get({ id: leadId }) ?? null;
    },
    orderOwner(orderId) {
      return orderById.get({ id: orderId }) ?? null;
    },
  };
}
