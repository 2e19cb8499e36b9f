import { z } from "zod";
import { described, hasOnlyLineControls, isOneLine, MULTI_LINE_MESSAGE, ONE_LINE_MESSAGE } from "./common.ts";
import { type AllowedFields, emailSchema, PHONE_PATTERN } from "./leads.ts";

/** POST /api/contact/platform (spec: type, name <= 100, email, phone <= 20, company <= 200, message 1..1000). */
export const PLATFORM_CONTACT_TYPES = ["merchant_inquiry", "partnership", "support"] as const;
export type PlatformContactType = (typeof PLATFORM_CONTACT_TYPES)[number];

export const PLATFORM_CONTACT_LIMITS = { name: 100, phone: 20, company: 200, message: 1000 } as const;

const charCount = (text: string) => [...text].length;
const requiredText = z.string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") });
const nullAsAbsent = (value: unknown) => (value === null ? undefined : value);

const bounded = (max: number, min: number, multiline = false) =>
  requiredText
    .trim()
    .refine((value) => charCount(value) >= min, { message: "must not be empty" })
    .refine((value) => charCount(value) <= max, { message: `must be at most ${max} characters` })
    .refine(multiline ? hasOnlyLineControls : isOneLine, {
      message: multiline ? MULTI_LINE_MESSAGE : ONE_LINE_MESSAGE,
    })
    // The bounds count characters, as JSON Schema's do: the documents and tool schemas show them.
    .meta({ ...(min > 0 ? { minLength: min } : {}), maxLength: max });

export const platformContactRequestSchema = z
  .strictObject(
    described(
      {
        type: z.enum(PLATFORM_CONTACT_TYPES, {
          error: (issue) =>
            issue.input === undefined ? "is required" : `must be one of: ${PLATFORM_CONTACT_TYPES.join(", ")}`,
        }),
        name: bounded(PLATFORM_CONTACT_LIMITS.name, 1),
        email: emailSchema,
        phone: z.preprocess(
          nullAsAbsent,
          z
            .string({ error: "must be a string" })
            .trim()
            .max(PLATFORM_CONTACT_LIMITS.phone, `must be at most ${PLATFORM_CONTACT_LIMITS.phone} characters`)
            .regex(
              PHONE_PATTERN,
              "must be a phone number (digits, spaces, dots, dashes, parentheses, optional leading +)",
            )
            .optional(),
        ),
        company: z.preprocess(nullAsAbsent, bounded(PLATFORM_CONTACT_LIMITS.company, 0).optional()),
        message: bounded(PLATFORM_CONTACT_LIMITS.message, 1, true),
      },
      {
        type: "What the message is about: a merchant's inquiry, a partnership, or support",
        name: "The sender's name",
        email: "The sender's email address; the platform team answers there",
        phone: "The sender's phone number, if they want a call",
        company: "The sender's company, if any",
        message: "The message to the platform team",
      },
    ),
  )
  .meta({ id: "PlatformContactRequest" });
export type PlatformContactRequest = z.output<typeof platformContactRequestSchema>;

export const PLATFORM_CONTACT_FIELDS: AllowedFields = { "": Object.keys(platformContactRequestSchema.shape) };

export const platformContactCreatedSchema = z
  .object({ contact_id: z.uuid(), status: z.literal("received") })
  .meta({ id: "PlatformContactReceipt" });
