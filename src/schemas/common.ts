import { z } from "zod";
import { validationError } from "../errors/service-error.ts";

export const AB_ID_PATTERN = /^ab_[a-z0-9]{8}$/;

export const abIdSchema = z
  .string()
  .regex(AB_ID_PATTERN, "must match ^ab_[a-z0-9]{8}$ (ab_ followed by 8 lowercase letters or digits)")
  .meta({ id: "MerchantId", description: "Merchant identifier", example: "ab_3k9x2m7q" });

export const uuidSchema = z.uuid();

/**
 * An object's fields, each with its description: the type asks for one per field, so no
 * parameter or body member reaches the OpenAPI document or a tool schema undescribed.
 */
export function described<Shape extends Record<string, z.ZodType>>(
  shape: Shape,
  descriptions: { [Field in keyof Shape]: string },
): Shape {
  const result: Record<string, z.ZodType> = {};
  for (const [name, field] of Object.entries(shape)) {
    result[name] = field.meta({ description: descriptions[name] as string });
  }
  return result as Shape;
}

/** Query-string values arrive as strings; an empty value means "not given". */
export const emptyAsUndefined = (value: unknown) => (value === "" ? undefined : value);

export const queryBoolean = z.preprocess(
  emptyAsUndefined,
  z
    .enum(["true", "false", "1", "0"], { message: "must be true, false, 1 or 0" })
    .transform((value) => value === "true" || value === "1")
    .optional(),
);

export const isoDateTime = z.iso.datetime();

// C0 controls, DEL and C1 controls. In a name or any one-line field they could rewrite an
// operator's terminal (escape sequences) or add lines to an email (CR/LF); multi-line fields
// (messages) keep line breaks and tabs only.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters refused.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the same, line breaks and tabs allowed.
const CONTROL_CHARACTERS_BUT_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

export const ONE_LINE_MESSAGE = "must be one line of text, without control characters";
export const MULTI_LINE_MESSAGE = "must not contain control characters other than line breaks and tabs";

export function isOneLine(value: string): boolean {
  return !CONTROL_CHARACTERS.test(value);
}

export function hasOnlyLineControls(value: string): boolean {
  return !CONTROL_CHARACTERS_BUT_LINES.test(value);
}

// Text read from the official files is not refused for its control characters (a register's row
// is what it is) but cleaned of them: the C0 and C1 controls (NUL, TAB, ESC, ...) and DEL, and the
// bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) and the Arabic
// letter mark (U+061C), which can reverse how a name reads on a page or a terminal. A tab or a line
// break between two words becomes one space; the rest are dropped.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the line controls are what is replaced.
const LINE_CONTROLS = /[\t\n\u000b\u000c\r\u0085\u2028\u2029]+/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters removed.
const CONTROLS_AND_BIDI = /[\u0000-\u001f\u007f-\u009f\u061c\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const CONTROLS_AND_BIDI_ALL = new RegExp(CONTROLS_AND_BIDI.source, "g");

/** Official text without control characters nor bidirectional overrides (see above). */
export function withoutControlCharacters(value: string): string {
  // Most text has none: one test, no copy (an import cleans millions of fields).
  if (!CONTROLS_AND_BIDI.test(value)) return value;
  return value.replace(LINE_CONTROLS, " ").replace(CONTROLS_AND_BIDI_ALL, "");
}

/** Idempotency-Key (leads, orders, the MCP lead tools): 1 to 255 printable ASCII characters. */
export const IDEMPOTENCY_KEY_MAX = 255;
export const IDEMPOTENCY_KEY_RULE = `1 to ${IDEMPOTENCY_KEY_MAX} printable ASCII characters`;
export const idempotencyKeySchema = z
  .string()
  .min(1, "must not be empty")
  .max(IDEMPOTENCY_KEY_MAX, `must be at most ${IDEMPOTENCY_KEY_MAX} characters`)
  .regex(/^[\x20-\x7e]+$/, "must be printable ASCII characters");

/** The Idempotency-Key header, read with the one rule: null when absent; VALIDATION_ERROR naming the header. */
export function parseIdempotencyKey(header: string | null): string | null {
  if (header === null) return null;
  const parsed = idempotencyKeySchema.safeParse(header);
  if (parsed.success) return parsed.data;
  throw validationError(
    parsed.error.issues.map((issue) => ({ path: "Idempotency-Key", message: issue.message })),
    `Idempotency-Key must be ${IDEMPOTENCY_KEY_RULE}`,
  );
}
