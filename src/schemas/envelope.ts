import { z } from "zod";

export const PROTOCOL = "abeille/hateoas";
export const PROTOCOL_VERSION = "1.0";

export const actionFieldSchema = z.object({
  name: z.string(),
  type: z.string(),
  required: z.boolean(),
});

export const actionSchema = z
  .object({
    rel: z.string(),
    method: z.enum(["GET", "POST", "PUT", "DELETE"]),
    href: z.string(),
    title: z.string(),
    fields: z.array(actionFieldSchema),
  })
  .meta({ id: "Action" });
export type Action = z.infer<typeof actionSchema>;

export const metaSchema = z
  .object({
    protocol: z.literal(PROTOCOL),
    version: z.literal(PROTOCOL_VERSION),
    timestamp: z.iso.datetime(),
    request_id: z.string().optional(),
  })
  .meta({ id: "Meta" });
export type Meta = z.infer<typeof metaSchema>;

export const linksSchema = z.record(z.string(), z.string()).meta({ id: "Links" });

export const merchantStatusSchema = z.enum(["PROBATION", "ACTIVE", "PAUSED", "SUSPENDED", "ARCHIVED"]);
export type MerchantStatus = z.infer<typeof merchantStatusSchema>;

export const merchantStateSchema = z
  .object({
    trust_score: z.number().int().min(0).max(100),
    merchant_status: merchantStatusSchema,
    payment_setup: z.boolean(),
    can_receive_leads: z.boolean(),
    can_contact: z.boolean(),
    can_receive_orders: z.boolean(),
    can_order: z.boolean(),
    blocked_because: z.array(z.string()),
  })
  .meta({ id: "MerchantState" });
export type MerchantState = z.infer<typeof merchantStateSchema>;

export const errorBodySchema = z.object({
  code: z.string(),
  message: z.string(),
  blocked_because: z.array(z.string()).optional(),
});

export const errorEnvelopeSchema = z
  .object({
    success: z.literal(false),
    data: z.union([
      z.null(),
      z.object({
        issues: z.array(
          z.object({
            path: z.string(),
            message: z.string(),
            suggestions: z
              .array(z.string())
              .optional()
              .meta({ description: "Values the argument may take instead (an unknown place's closest names)" }),
          }),
        ),
      }),
    ]),
    error: errorBodySchema,
    _actions: z.array(actionSchema),
    _links: linksSchema,
    _state: z.null(),
    _meta: metaSchema,
  })
  .meta({ id: "ErrorEnvelope" });
