import { readFileSync } from "node:fs";
import { z } from "zod";
import { tradeForNaf } from "../domain/sectors.ts";
import { isValidSiret, vatFromSiren } from "../domain/siret.ts";
import { hasOnlyLineControls, isOneLine, MULTI_LINE_MESSAGE, ONE_LINE_MESSAGE } from "./common.ts";

/**
 * A merchant declaration: what a merchant or an operator declares about a business (identity as
 * declared, contact, description, offer, hours, zones). One schema for `merchants add`, for
 * `merchants update` (every field optional but the SIRET, which never changes) and for the bulk
 * import; the store keeps only what it validated. Words allowed in closed lists come from
 * data/merchant-vocabulary.json.
 */

const vocabularySchema = z.object({
  format: z.literal(1),
  days: z.array(z.string()).length(7),
  languages: z.array(z.string().regex(/^[a-z]{2}$/)).min(1),
  brick_types: z.array(z.string()).min(1),
  pricing_models: z.array(z.string()).min(1),
  inventory_statuses: z.array(z.string()).min(1),
});

export const merchantVocabulary = vocabularySchema.parse(
  JSON.parse(readFileSync(new URL("../../data/merchant-vocabulary.json", import.meta.url), "utf8")),
);

export const oneOf = (words: string[]) =>
  z.string().refine((value) => words.includes(value), `must be one of ${words.join(", ")}`);

/** Missing fields say so, rather than zod's "expected string, received undefined". */
export const required = (kind: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? "is required" : `must be ${kind}`),
});

export const oneLine = (max: number) =>
  z
    .string(required("a string"))
    .trim()
    .min(1, "must not be empty")
    .max(max, `must be at most ${max} characters`)
    .refine(isOneLine, ONE_LINE_MESSAGE);

export const text = (max: number) =>
  z
    .string(required("a string"))
    .trim()
    .min(1, "must not be empty")
    .max(max, `must be at most ${max} characters`)
    .refine(hasOnlyLineControls, MULTI_LINE_MESSAGE);

/**
 * The longest a merchant's identity and address may be, in characters: what a declaration may
 * say, and what a row of an official file may bring (the imports hold SIRENE's columns to the limit
 * of the field each fills: src/import/sirene/row-check.ts).
 */
export const MERCHANT_TEXT_LIMITS = {
  legal_name: 200,
  business_name: 120,
  street: 200,
  city: 100,
} as const;

const postalCode = z.string().regex(/^(?:0[1-9]|[1-8]\d|9[0-8])\d{3}$/, "must be a French postal code (5 digits)");
const serviceZone = oneLine(100).refine(
  // An empty zone is already refused as empty; say it once.
  (zone) => zone === "" || (/^\d+$/.test(zone) ? /^(?:0[1-9]|[1-8]\d|9[0-8])\d{3}$/.test(zone) : /\p{L}/u.test(zone)),
  "must be a French postal code (5 digits) or a commune name",
);
export const httpUrl = z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }).max(500);
const tag = z
  .string()
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "must be lowercase words joined by hyphens")
  .max(40);
export const slug = z
  .string()
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "must be lowercase words joined by hyphens")
  .max(80);
/** 09:00-12:30, several ranges separated by commas, or "fermé". */
const dayHours = z
  .string()
  .regex(
    /^(?:fermé|(?:[01]\d|2[0-4]):[0-5]\d-(?:[01]\d|2[0-4]):[0-5]\d(?:,(?:[01]\d|2[0-4]):[0-5]\d-(?:[01]\d|2[0-4]):[0-5]\d)*)$/,
    'must be "fermé" or ranges like 09:00-12:30,14:00-18:00',
  );

/** How many dated exceptions a merchant keeps, and how many days one may span (a summer closure fits). */
export const HOURS_EXCEPTIONS_MAX = 30;
export const HOURS_EXCEPTION_MAX_DAYS = 92;

const daysBetween = (from: string, to: string) =>
  (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000;

/**
 * A dated exception to the usual week: a closure for the holidays (`from` to `to`, "fermé"), other
 * hours on a date; `to` defaults to `from`. Read by the opening rule (src/domain/availability/opening.ts).
 */
export const hoursExceptionSchema = z
  .strictObject({
    from: z.iso.date(required("a date like 2026-12-24")),
    to: z.iso.date("must be a date like 2026-12-24").optional(),
    hours: dayHours,
    note: oneLine(100).nullable().optional(),
  })
  .superRefine((exception, context) => {
    if (exception.to === undefined) return;
    const days = daysBetween(exception.from, exception.to);
    if (days < 0) context.addIssue({ code: "custom", path: ["to"], message: "must not be before from" });
    else if (days >= HOURS_EXCEPTION_MAX_DAYS) {
      context.addIssue({
        code: "custom",
        path: ["to"],
        message: `must be within ${HOURS_EXCEPTION_MAX_DAYS} days of from`,
      });
    }
  })
  .transform((exception) => ({
    from: exception.from,
    to: exception.to ?? exception.from,
    hours: exception.hours,
    note: exception.note ?? null,
  }));

/** The exceptions, in date order, none overlapping another (a date has one set of hours). */
const hoursExceptionsSchema = z
  .array(hoursExceptionSchema)
  .max(HOURS_EXCEPTIONS_MAX, `must hold at most ${HOURS_EXCEPTIONS_MAX} exceptions`)
  .superRefine((exceptions, context) => {
    const byDate = [...exceptions.entries()].sort(([, a], [, b]) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
    for (let position = 1; position < byDate.length; position += 1) {
      const [index, exception] = byDate[position] as [number, { from: string }];
      const previous = byDate[position - 1]?.[1] as { to: string };
      if (exception.from <= previous.to) {
        context.addIssue({ code: "custom", path: [index, "from"], message: "overlaps another exception" });
      }
    }
  })
  .transform((exceptions) => [...exceptions].sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0)));

export const siretSchema = z
  .string(required("a string of 14 digits"))
  .regex(/^\d{14}$/, "must be 14 digits")
  .refine(isValidSiret, "is not a valid SIRET (its check digit is wrong)");

export const productDeclarationSchema = z.strictObject({
  /** Stable within the merchant: an update that keeps the slug keeps the product (and its brick id). */
  slug: slug.optional(),
  name: oneLine(120),
  description: text(1_000),
  brick_type: oneOf(merchantVocabulary.brick_types),
  pricing_model: oneOf(merchantVocabulary.pricing_models),
  price_cents: z.int().min(0).max(100_000_000).nullable().optional(),
  inventory_status: oneOf(merchantVocabulary.inventory_statuses).optional(),
  tags: z.array(tag).max(12).optional(),
  image_url: httpUrl.nullable().optional(),
  external_url: httpUrl.nullable().optional(),
});

const declarationShape = {
  siret: siretSchema,
  legal_name: oneLine(MERCHANT_TEXT_LIMITS.legal_name),
  business_name: oneLine(MERCHANT_TEXT_LIMITS.business_name),
  naf_code: z
    .string(required("a NAF code like 43.22A"))
    .regex(/^\d{2}\.\d{2}[A-Z]$/, "must be a NAF code like 43.22A")
    .refine((code) => tradeForNaf(code) !== undefined, "is not a trade the registry covers (see data/naf-trades.json)"),
  address: z.strictObject(
    {
      street: oneLine(MERCHANT_TEXT_LIMITS.street),
      postal_code: postalCode,
      city: oneLine(MERCHANT_TEXT_LIMITS.city),
    },
    required("an object with street, postal_code and city"),
  ),
  /** The company's registration at the commerce court's registry, as printed: "RCS Lyon 123 456 789". */
  rcs: oneLine(120)
    .regex(/^RCS .+ \d{3} \d{3} \d{3}$/, 'must read like "RCS Lyon 123 456 789"')
    .nullable()
    .optional(),
  /** The intra-community VAT number (FR, a two-digit key, the SIREN). */
  vat_number: z
    .string()
    .regex(/^FR\d{11}$/, "must be FR followed by 11 digits")
    .nullable()
    .optional(),
  email: z.email("must be an email address").max(254).nullable().optional(),
  phone: z
    .string()
    .regex(/^\+33 ?[1-9](?: ?\d{2}){4}$/, "must be a French number in international form, like +33 6 12 34 56 78")
    .nullable()
    .optional(),
  website: httpUrl.nullable().optional(),
  description: text(2_000).nullable().optional(),
  hours: z
    .record(z.string(), dayHours)
    .refine(
      (hours) => Object.keys(hours).every((day) => merchantVocabulary.days.includes(day)),
      `days must be among ${merchantVocabulary.days.join(", ")}`,
    )
    .nullable()
    .optional(),
  /** Dated exceptions to the usual week (closures, other hours on a date). */
  hours_exceptions: hoursExceptionsSchema.optional(),
  /** Where the merchant works: postal codes or commune names ("69002", "Villeurbanne"). */
  zones: z.array(serviceZone).max(100).optional(),
  languages: z.array(oneOf(merchantVocabulary.languages)).min(1).max(10).optional(),
  delivery: z
    .strictObject({ enabled: z.boolean(), radius_km: z.number().positive().max(500).nullable().optional() })
    .optional(),
  /** How the merchant wants to be spoken of; agents read it from the decision card when published. */
  brand_voice: z
    .strictObject({
      tone: oneLine(100),
      values: z.array(oneLine(100)).max(10),
      do: z.array(oneLine(200)).max(10),
      dont: z.array(oneLine(200)).max(10),
      /** Where agents meet it (the AI digest unless said otherwise). */
      consumer_surface: z
        .string()
        .regex(/^[a-z_]{1,40}$/, "must be a surface name like ai_digest")
        .default("ai_digest"),
      is_published: z.boolean(),
    })
    .nullable()
    .optional(),
  /** The company's creation date (annuaire-entreprises.data.gouv.fr shows it). */
  founded_on: z.iso.date(required("a date like 2019-04-01")),
  products: z.array(productDeclarationSchema).max(200).optional(),
};

/**
 * Where the company numbers a declaration gives disagree with its SIRET: the RCS entry and the VAT
 * number both carry the SIREN (the VAT number with its check key). The update checks them too.
 */
export function companyNumberIssues(
  siret: string,
  numbers: { rcs?: string | null; vat_number?: string | null },
): { path: string; message: string }[] {
  const siren = siret.slice(0, 9);
  const issues: { path: string; message: string }[] = [];
  if (numbers.rcs && numbers.rcs.slice(-11).replaceAll(" ", "") !== siren) {
    issues.push({ path: "rcs", message: `must end with the SIREN of the SIRET (${siren})` });
  }
  if (numbers.vat_number && numbers.vat_number !== vatFromSiren(siren)) {
    issues.push({ path: "vat_number", message: `is not the VAT number of SIREN ${siren}` });
  }
  return issues;
}

export const merchantDeclarationSchema = z.strictObject(declarationShape).superRefine((declaration, context) => {
  for (const issue of companyNumberIssues(declaration.siret, declaration)) {
    context.addIssue({ code: "custom", path: [issue.path], message: issue.message });
  }
  const slugs = new Set<string>();
  declaration.products?.forEach((product, index) => {
    const key = product.slug ?? product.name;
    if (slugs.has(key))
      context.addIssue({ code: "custom", path: ["products", index, "slug"], message: "is used twice" });
    slugs.add(key);
  });
});

/** The fields an update may change: every declared one but the SIRET, the merchant's identity. */
export const UPDATABLE_FIELDS = Object.keys(declarationShape).filter((name) => name !== "siret");

/**
 * An update: any declared field but the SIRET; a field given replaces the stored one (products by
 * slug). A field it does not know is refused with the list of those it may change.
 */
export const merchantUpdateSchema = z
  .strictObject(
    Object.fromEntries(
      Object.entries(declarationShape)
        .filter(([name]) => name !== "siret")
        .map(([name, schema]) => [name, schema.optional()]),
    ) as { [Key in Exclude<keyof typeof declarationShape, "siret">]: z.ZodOptional<(typeof declarationShape)[Key]> },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? `${issue.keys.map((key) => JSON.stringify(key)).join(", ")}: not a field an update may change (${UPDATABLE_FIELDS.join(", ")})`
          : undefined,
    },
  )
  .refine((update) => Object.keys(update).length > 0, "an update must change at least one field");

export type MerchantDeclaration = z.output<typeof merchantDeclarationSchema>;
export type MerchantUpdate = z.output<typeof merchantUpdateSchema>;
export type ProductDeclaration = z.output<typeof productDeclarationSchema>;
