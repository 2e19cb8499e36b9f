import { z } from "zod";
import { abIdSchema } from "../schemas/common.ts";
import { decisionCardDocumentSchema } from "../schemas/decision-card.ts";
import { LEAD_RESPONSE_OUTCOMES, leadCreatedSchema } from "../schemas/leads.ts";
import { platformContactCreatedSchema } from "../schemas/platform-contact.ts";
import { changesAnswerSchema, resolvedMerchantSchema, searchAnswerSchema } from "../schemas/registry.ts";
import { successEnvelopeSchema } from "./envelopes.ts";

/**
 * The success envelopes of the REST routes, one zod schema each. The OpenAPI document is
 * generated from them and the MCP tools with a REST twin publish them as their output schema.
 */

export const searchResponseSchema = successEnvelopeSchema({
  id: "SearchResponse",
  description: "Search answer: query, results and count at the top level of the envelope",
  topLevel: searchAnswerSchema.shape,
  state: "none",
});

export const changesResponseSchema = successEnvelopeSchema({
  id: "ChangesResponse",
  description: "A page of the change feed: changes, next_cursor and has_more at the top level of the envelope",
  topLevel: changesAnswerSchema.shape,
  state: "none",
});

export const resolveResponseSchema = successEnvelopeSchema({
  id: "ResolveResponse",
  description: "Resolved merchant: merchant, products and credentials at the top level; _actions keyed by rel",
  topLevel: resolvedMerchantSchema.shape,
  actions: "object",
  state: "merchant",
});

export const decisionCardResponseSchema = successEnvelopeSchema({
  id: "DecisionCardResponse",
  description: "The merchant decision card in data",
  data: decisionCardDocumentSchema,
  state: "merchant",
});

export const healthResponseSchema = successEnvelopeSchema({
  id: "HealthResponse",
  description: "The service answers; data.outbox tells how far behind email delivery is (read at most once a second)",
  data: z.object({
    status: z.literal("ok"),
    outbox: z.object({
      pending: z
        .number()
        .int()
        .nonnegative()
        .describe("Emails (leads, follow-ups, platform messages) not delivered yet"),
      oldest_pending_age_seconds: z
        .number()
        .int()
        .nonnegative()
        .nullable()
        .describe("Seconds since the oldest undelivered email was written; null when none waits"),
    }),
    search: z
      .object({
        engine: z.enum(["embedded", "meilisearch"]),
        state: z.enum(["ready", "building", "not_built", "catching_up", "unavailable"]),
        lag: z
          .object({
            merchants: z.number().int().nonnegative().describe("Merchants changed since the engine's cursor"),
            revisions: z.number().int().nonnegative().describe("Store revisions since the engine's cursor"),
          })
          .nullable(),
        fallback: z.enum(["embedded", "none"]).nullable(),
        build: z
          .object({
            done: z.number().int().nonnegative().describe("Merchants the full build has read so far"),
            total: z.number().int().nonnegative().describe("Merchants it reads in all, about"),
          })
          .optional()
          .describe("While a first full build is under way (state building): how far it is"),
      })
      .describe("The search engine, its state and how far behind the store it is (read at most once a second)"),
    store: z
      .object({
        engine: z.enum(["sqlite", "postgres"]),
        revision_notices: z
          .enum(["listening", "not_listening"])
          .nullable()
          .describe(
            "PostgreSQL: whether this instance hears the revision notices (not listening: its caches check the database on each request); null on SQLite",
          ),
      })
      .describe("The store this instance serves from (the answer is 503 STORE_UNAVAILABLE when it does not answer)"),
    limits: z
      .object({
        store: z.enum(["redis", "postgres", "file"]),
        state: z
          .enum(["ok", "failing"])
          .describe("failing: the limit store failed in the last 10 seconds (requests are let through meanwhile)"),
      })
      .describe("Where rate limits and quotas are counted (redis and postgres: one budget across every machine)"),
  }),
});

export const leadCreatedResponseSchema = successEnvelopeSchema({
  id: "LeadCreatedResponse",
  description:
    "Lead record at the top level (201 new lead; 200 an existing lead with deduplicated true); _actions keyed by rel",
  topLevel: leadCreatedSchema.shape,
  actions: "object",
  state: "merchant",
});

export const leadStatusSchema = z
  .object({
    lead_id: z.uuid(),
    tracking_status: z.enum(["received", "delivered", "failed"]),
    lead_type: z.enum(["estimation", "contact", "rdv", "quote"]),
    created_at: z.iso.datetime(),
    delivered_at: z.iso.datetime().nullable(),
    failed_at: z.iso.datetime().nullable(),
    merchant: z.object({ ab_id: abIdSchema, name: z.string() }),
    messages_count: z.number().int().min(0),
    messages_remaining: z.number().int().min(0),
    anonymized: z.boolean(),
    merchant_response: z
      .object({
        status: z
          .enum(["none", ...LEAD_RESPONSE_OUTCOMES])
          .describe(
            "What the merchant did in its Abeille space: none (nothing recorded; it may answer the person by email), answered, handled or declined",
          ),
        updated_at: z.iso.datetime().nullable(),
        answers: z
          .array(
            z.object({
              answer_id: z.uuid(),
              message: z.string().nullable().describe("The merchant's answer; null once the lead is anonymised"),
              created_at: z.iso.datetime(),
              delivery: z
                .enum(["queued", "sent", "failed"])
                .describe("The email carrying it to the person: queued, sent (accepted by their mailbox) or failed"),
            }),
          )
          .describe("The merchant's answers written in its space, oldest first; each is also emailed to the person"),
      })
      .describe("The merchant's own response, apart from tracking_status (which stays the delivery of the lead)"),
  })
  .meta({ id: "LeadStatus" });

export const leadStatusResponseSchema = successEnvelopeSchema({ id: "LeadStatusResponse", data: leadStatusSchema });

export const leadMessageSchema = z
  .object({
    message_id: z.uuid(),
    lead_id: z.uuid(),
    status: z.literal("queued"),
    created_at: z.iso.datetime(),
    messages_count: z.number().int().min(1),
    messages_remaining: z.number().int().min(0),
  })
  .meta({ id: "LeadFollowUp" });

export const leadMessageResponseSchema = successEnvelopeSchema({ id: "LeadMessageResponse", data: leadMessageSchema });

export const platformContactResponseSchema = successEnvelopeSchema({
  id: "PlatformContactResponse",
  description: "contact_id and status at the top level",
  topLevel: platformContactCreatedSchema.shape,
});
