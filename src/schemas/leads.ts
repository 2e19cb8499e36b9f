import { z } from "zod";
import { LEAD_FIELD_LIMITS, LEAD_TYPES } from "../domain/lead-contract.ts";
import { type ValidationIssue, validationError } from "../errors/service-error.ts";
import {
  AB_ID_PATTERN,
  described,
  hasOnlyLineControls,
  isOneLine,
  MULTI_LINE_MESSAGE,
  ONE_LINE_MESSAGE,
} from "./common.ts";
import { spaceFormBodySchema } from "./merchant-space.ts";

/*
 * Requests of the lead operations: creation (POST /api/contact/brick), status and follow-up
 * messages. The single source for validation, types, the OpenAPI document and the MCP tool
 * schemas. Limits come from the lead contract (LEAD_FIELD_LIMITS), which the decision card
 * publishes, so the document and the endpoint cannot disagree.
 */

export const INTENT_URGENCIES = ["immediate", "within_week", "within_month", "within_quarter", "exploring"] as const;
export const PREFERRED_CONTACTS = ["email", "phone", "whatsapp", "both"] as const;
export const INTENT_TEXT_MAX = 200;
export const INTENT_MAX = 100;
export const BRICK_ID_MAX = 200;
export const LEAD_MESSAGE_MAX = 2000;
/** The header the form of a merchant's page sends its form token in (src/domain/leads/page-form-token.ts). */
export const LEAD_FORM_TOKEN_HEADER = "x-lead-form-token";
/** A page form token is 43 characters; longer values are refused rather than compared. */
export const LEAD_FORM_TOKEN_MAX = 100;
/** A lead's tracking token: what every reader of one accepts, at most. */
export const TRACKING_TOKEN_MAX = 200;

/** Phone numbers: digits, spaces, dots, dashes, parentheses, an optional leading +; 6 to 20 characters. */
export const PHONE_PATTERN = /^\+?[0-9 .()-]{6,20}$/;

/** Characters as people count them (code points), not UTF-16 units. */
const charCount = (text: string) => [...text].length;

/**
 * A string field: required or optional; `null` counts as "not given" for optional fields. One line
 * unless `multiline` (a message): no control characters either way but line breaks and tabs there.
 */
function text(options: { max: number; min?: number; trim?: boolean; multiline?: boolean }) {
  let schema = z.string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") });
  if (options.trim) schema = schema.trim();
  const min = options.min ?? 0;
  return (
    schema
      .refine((value) => charCount(value) >= min, { message: min === 1 ? "must not be empty" : `at least ${min}` })
      .refine((value) => charCount(value) <= options.max, { message: `must be at most ${options.max} characters` })
      .refine(options.multiline ? hasOnlyLineControls : isOneLine, {
        message: options.multiline ? MULTI_LINE_MESSAGE : ONE_LINE_MESSAGE,
      })
      // The bounds count characters, as JSON Schema's do: the documents and tool schemas show them.
      .meta({ ...(min > 0 ? { minLength: min } : {}), maxLength: options.max })
  );
}

const optional = <Schema extends z.ZodType>(schema: Schema) =>
  z.preprocess((value) => (value === null ? undefined : value), schema.optional());

export const emailSchema = z
  .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
  .trim()
  .max(LEAD_FIELD_LIMITS.contact_email, `must be at most ${LEAD_FIELD_LIMITS.contact_email} characters`)
  .pipe(z.email({ message: "must be an email address" }))
  .meta({ format: "email", minLength: 3 });

export const phoneSchema = z
  .string({ error: "must be a string" })
  .trim()
  .max(LEAD_FIELD_LIMITS.contact_phone, `must be at most ${LEAD_FIELD_LIMITS.contact_phone} characters`)
  .regex(PHONE_PATTERN, "must be a phone number (digits, spaces, dots, dashes, parentheses, optional leading +)");

const enumOf = <const Values extends readonly [string, ...string[]]>(values: Values) =>
  z.enum(values, { error: `must be one of: ${values.join(", ")}` });

export const intentDataSchema = z
  .strictObject(
    described(
      {
        urgency: optional(enumOf(INTENT_URGENCIES)),
        budget_range: optional(text({ max: INTENT_TEXT_MAX })),
        project_type: optional(text({ max: INTENT_TEXT_MAX })),
        timeline: optional(text({ max: INTENT_TEXT_MAX })),
        preferred_contact: optional(enumOf(PREFERRED_CONTACTS)),
      },
      {
        urgency: "How soon the person needs it",
        budget_range: "The person's budget, in their words (e.g. 500-1000 EUR)",
        project_type: "What kind of project or purchase it is",
        timeline: "When the person wants it done, in their words",
        preferred_contact: "How the person prefers to be contacted",
      },
    ),
  )
  .meta({ id: "IntentData" });
export type IntentData = z.output<typeof intentDataSchema>;

export const leadRequestSchema = z
  .strictObject(
    described(
      {
        ab_id: z
          .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
          .regex(AB_ID_PATTERN, "must match ^ab_[a-z0-9]{8}$ (ab_ followed by 8 lowercase letters or digits)"),
        contact_name: text({ max: LEAD_FIELD_LIMITS.contact_name, min: 1, trim: true }),
        contact_email: emailSchema,
        contact_phone: optional(phoneSchema),
        lead_type: z.enum(LEAD_TYPES, {
          error: (issue) => (issue.input === undefined ? "is required" : `must be one of: ${LEAD_TYPES.join(", ")}`),
        }),
        message: optional(text({ max: LEAD_FIELD_LIMITS.message, multiline: true })),
        ai_context: optional(text({ max: LEAD_FIELD_LIMITS.ai_context, multiline: true })),
        intent_data: optional(intentDataSchema),
        /** Sector fields; checked against the merchant's lead contract once the merchant is known. */
        metadata: optional(z.record(z.string(), z.unknown(), { error: "must be an object" })),
        /** The product (brick) the lead is about: its brick_id, its product_id, or brk_<ab_id>_<slug>. */
        brick_id: optional(text({ max: BRICK_ID_MAX, min: 1, trim: true })),
        /** The agent's short label for what the person wants (e.g. request_quote). */
        intent: optional(text({ max: INTENT_MAX, min: 1, trim: true })),
      },
      {
        ab_id: "The merchant the lead is for (ab_ and 8 lowercase letters or digits)",
        contact_name: "The name of the person to contact (the person, not the agent)",
        contact_email: "The person's email address; the merchant answers there",
        contact_phone: "The person's phone number, if they gave one",
        lead_type: "What the person asks for; the merchant's decision card lists the types it accepts",
        message: "The person's request, in their words",
        ai_context:
          "What the agent knows of the conversation that helps the merchant answer (shown to the merchant as such)",
        intent_data: "Structured details of the request (urgency, budget, project, timeline, preferred contact)",
        metadata: "Sector fields the merchant's lead contract asks for (see its decision card)",
        brick_id: "The product the lead is about: its brick_id, its product_id, or brk_<ab_id>_<slug>",
        intent: "The agent's short label for what the person wants (e.g. request_quote)",
      },
    ),
  )
  .meta({ id: "LeadRequest" });
export type LeadRequest = z.output<typeof leadRequestSchema>;

export const followUpMessageSchema = z
  .strictObject(
    described(
      {
        /** The tracking token may come in the body or in the X-Tracking-Token header. */
        tracking_token: optional(text({ max: TRACKING_TOKEN_MAX, min: 1, trim: true })),
        message: text({ max: LEAD_MESSAGE_MAX, min: 1, trim: true, multiline: true }),
      },
      {
        tracking_token: "The lead's tracking token from its creation answer (or send it in X-Tracking-Token)",
        message: "The follow-up message to the merchant",
      },
    ),
  )
  .meta({ id: "LeadFollowUpMessage" });
export type FollowUpMessageRequest = z.output<typeof followUpMessageSchema>;

/** A field name of the page's lead form (`metadata.<sector field>` at most), and a value, at most. */
export const LEAD_FORM_NAME_MAX = 100;
/** Twice the longest field: a longer message is refused next to its field, not as an unreadable form. */
export const LEAD_FORM_VALUE_MAX = 2 * LEAD_FIELD_LIMITS.message;

/**
 * The lead form of a merchant's page as a browser posts it without JavaScript
 * (application/x-www-form-urlencoded): the lead request's fields by name, each sector field as
 * `metadata.<name>`, and the page's form token. Read into a lead request by
 * src/publish/lead-form.ts, then checked by `leadRequestSchema` like any other.
 */
export const leadFormBodySchema = z
  .record(
    z.string().max(LEAD_FORM_NAME_MAX, `field names are at most ${LEAD_FORM_NAME_MAX} characters`),
    z.string().max(LEAD_FORM_VALUE_MAX, `must be at most ${LEAD_FORM_VALUE_MAX} characters`),
  )
  .meta({
    description:
      "The page's lead form fields: contact_name, contact_email, contact_phone, lead_type, message, the sector fields as metadata.<name>, and form_token (the page's form token)",
  });

/** What the tracking page's form reads: longer than any code, so a wrong paste is "no such request", not a broken form. */
export const TRACKING_FORM_CODE_MAX = 1000;

/** The tracking page's form (POST /suivi): the code a person pastes, read as given (any wrong code is "unknown"). */
export const trackingFormBodySchema = z.strictObject(
  described(
    {
      code: z.string().max(TRACKING_FORM_CODE_MAX, `must be at most ${TRACKING_FORM_CODE_MAX} characters`).optional(),
    },
    { code: "The lead's tracking code (its tracking token), as the lead form showed it" },
  ),
);

/** A merchant's answer to a lead, from its space (issue 25): longer than a follow-up, a quote may need it. */
export const LEAD_ANSWER_MAX = 4000;
/** What a merchant does with a lead from its space: answer it (the lead stays open), or close it handled or declined. */
export const LEAD_RESPONSE_OUTCOMES = ["answered", "handled", "declined"] as const;

/**
 * The merchant's response to a lead (the form of /pro/{ab_id}/demandes/{lead_id}): an answer
 * emailed to the person, and what becomes of the lead. An empty answer counts as none; `answered`
 * needs one, `handled` and `declined` take one or none. Other fields of the form (its CSRF token)
 * are the page's and are not read here.
 */
export const leadResponseSchema = z
  .object(
    described(
      {
        answer: z.preprocess(
          (value) => (typeof value === "string" && value.trim() === "" ? undefined : value),
          text({ max: LEAD_ANSWER_MAX, min: 1, trim: true, multiline: true }).optional(),
        ),
        outcome: enumOf(LEAD_RESPONSE_OUTCOMES),
      },
      {
        answer: "The merchant's answer, emailed to the person who wrote",
        outcome: "answered (the lead stays open), handled or declined",
      },
    ),
  )
  .refine((response) => response.outcome !== "answered" || response.answer !== undefined, {
    path: ["answer"],
    message: "is required to answer",
  })
  .meta({ id: "LeadResponse" });
export type LeadResponse = z.output<typeof leadResponseSchema>;

/**
 * The response form as the browser posts it (POST /pro/{ab_id}/demandes/{lead_id}): the space's
 * CSRF token, then the fields as typed, bounded but not judged here, so that a wrong answer is
 * shown again next to its field in French (leadResponseSchema judges it).
 */
export const leadResponseFormSchema = spaceFormBodySchema.extend(
  described(
    {
      answer: z
        .string()
        .max(2 * LEAD_ANSWER_MAX, `must be at most ${2 * LEAD_ANSWER_MAX} characters`)
        .optional(),
      outcome: z.string().max(20, "must be at most 20 characters").optional(),
    },
    {
      answer: "The merchant's answer, emailed to the person who wrote",
      outcome: "answered (the lead stays open), handled or declined",
    },
  ),
);
export type LeadResponseForm = z.output<typeof leadResponseFormSchema>;

/** A lead of a listing in the merchant space: any text, a lead or listing not the person's is NOT_FOUND. */
export const merchantLeadParamsSchema = z.object(
  described(
    {
      ab_id: z.string().max(40, "must be at most 40 characters"),
      lead_id: z.string().max(60, "must be at most 60 characters"),
    },
    { ab_id: "The listing (ab_...)", lead_id: "The lead's id" },
  ),
);
export const merchantLeadsParamsSchema = merchantLeadParamsSchema.pick({ ab_id: true });

export const merchantLeadsQuerySchema = z.object(
  described(
    {
      page: z.coerce
        .number({ message: "must be a whole number from 1" })
        .int("must be a whole number from 1")
        .min(1, "must be a whole number from 1")
        .max(100_000, "must be at most 100000")
        .optional(),
    },
    { page: "The page of the list, from 1 (newest leads first)" },
  ),
);

export const merchantLeadQuerySchema = z.object(
  described(
    { fait: z.string().max(20, "must be at most 20 characters").optional() },
    { fait: "What was just done (answered, handled, declined), said at the top of the page" },
  ),
);

export const leadIdParamsSchema = z.object({
  lead_id: z.uuid({ message: "must be a lead id (uuid)" }).meta({ description: "The lead_id its creation answered" }),
});

// The Idempotency-Key rule has one home: src/schemas/common.ts.
export { IDEMPOTENCY_KEY_MAX, idempotencyKeySchema } from "./common.ts";

/**
 * Parses a strict request object, turning zod's one "unrecognized keys" issue into one issue per
 * unknown field that names the allowed fields, so an agent sees exactly what to drop or rename.
 */
export function parseStrictRequest<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  allowedFields: AllowedFields,
): z.output<Schema> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw validationError(strictIssues(parsed.error, allowedFields));
}

/** The fields each strict object accepts, keyed by its path ("" for the body itself). */
export type AllowedFields = Record<string, readonly string[]>;

export function strictIssues(error: z.ZodError, allowedFields: AllowedFields): ValidationIssue[] {
  return error.issues.flatMap((issue): ValidationIssue[] => {
    const base = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      const allowed = allowedFields[base]?.join(", ") ?? "see the API description";
      return issue.keys.map((key) => ({
        path: base ? `${base}.${key}` : key,
        message: `is not a field of this request; allowed fields: ${allowed}`,
      }));
    }
    if (issue.code === "invalid_type" && issue.path.length === 0) {
      return [{ path: "", message: "the body must be a JSON object" }];
    }
    return [{ path: base, message: issue.message }];
  });
}

export const LEAD_REQUEST_FIELDS: AllowedFields = {
  "": Object.keys(leadRequestSchema.shape),
  intent_data: Object.keys(intentDataSchema.shape),
};
export const FOLLOW_UP_FIELDS: AllowedFields = { "": Object.keys(followUpMessageSchema.shape) };

/** The answer fields of lead creation (spec "Lead record"), for the OpenAPI document. */
export const leadCreatedSchema = z
  .object({
    lead_id: z.uuid(),
    tracking_token: z.string(),
    tracking_status: z.enum(["received", "delivered", "failed"]),
    deduplicated: z.boolean(),
  })
  .meta({ id: "LeadRecord" });
