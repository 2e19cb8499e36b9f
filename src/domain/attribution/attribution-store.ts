/**
 * The storage this part of the domain needs (a port): src/store/attribution-repository.ts implements it.
 */

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
  insert(session: AttributionSession): Promise<void>;
  findById(sessionId: string): Promise<AttributionSession | null>;
  /**
   * Marks an open, unexpired session converted in one conditional UPDATE: of two concurrent
   * conversions exactly one wins. False when the session was converted or expired meanwhile.
   */
  convert(
    sessionId: string,
    conversion: { leadId: string | null; orderId: string | null; at: string },
  ): Promise<boolean>;
  /** The merchant a lead went to and the agent that sent it (null: anonymous), or null. */
  leadOwner(leadId: string): Promise<ConversionTarget | null>;
  orderOwner(orderId: string): Promise<ConversionTarget | null>;
}

export interface ConversionTarget {
  abId: string;
  agentId: string | null;
}
