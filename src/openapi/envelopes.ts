import { z } from "zod";
import {
  actionSchema,
  errorEnvelopeSchema,
  linksSchema,
  merchantStateSchema,
  metaSchema,
} from "../schemas/envelope.ts";

/**
 * zod schemas of whole answers in the navigation envelope, as `successEnvelope` and
 * `errorEnvelope` (src/http/envelope.ts) build them. The OpenAPI document describes every route's
 * answers with these, and each MCP tool's output schema is the envelope its structuredContent
 * carries, so the REST and tool surfaces are described by one set of schemas.
 */

export interface EnvelopeShape {
  /** Schema id (components.schemas name). */
  id: string;
  description?: string;
  /** Fields the contract puts at the top level of the envelope (search, resolve, leads, ...). */
  topLevel?: z.ZodRawShape;
  /** The payload in `data`; null when the operation lists its fields at the top level. */
  data?: z.ZodType;
  /** `_actions` is an array, except in resolve, lead creation and order answers (keyed by rel). */
  actions?: "array" | "object";
  /** `_state`: the merchant state, the merchant state or null, or always null. */
  state?: "merchant" | "nullable" | "none";
}

export const actionsArraySchema = z.array(actionSchema);
export const actionsByRelSchema = z.record(z.string(), actionSchema).meta({ id: "ActionsByRel" });

export function successEnvelopeSchema(shape: EnvelopeShape) {
  const state =
    shape.state === "merchant"
      ? merchantStateSchema
      : shape.state === "nullable"
        ? merchantStateSchema.nullable()
        : z.null();
  return z
    .object({
      success: z.literal(true),
      ...(shape.topLevel ?? {}),
      data: shape.data ?? z.null(),
      _actions: shape.actions === "object" ? actionsByRelSchema : actionsArraySchema,
      _links: linksSchema,
      _state: state,
      _meta: metaSchema,
    })
    .meta({ id: shape.id, ...(shape.description ? { description: shape.description } : {}) });
}

export { errorEnvelopeSchema };
