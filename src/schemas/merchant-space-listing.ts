import { z } from "zod";
import { QA_ANSWER_MAX } from "../domain/merchants/review-qa-answer.ts";
import { described } from "./common.ts";

/**
 * The listing pages of the merchant space (`/pro/{ab_id}`, src/pages/pro/[ab_id]/): their forms as
 * a browser posts them, read into the declaration by src/publish/pro/listing-form.ts (the
 * declaration schema checks them there: one schema), and the lead email's confirmation link.
 */
const FIELD_NAME_MAX = 60;
/** The longest field a listing form has: a Q&A answer (a description is shorter). */
const FIELD_VALUE_MAX = QA_ANSWER_MAX;

export const listingFormBodySchema = z
  .record(
    z.string().max(FIELD_NAME_MAX, `field names are at most ${FIELD_NAME_MAX} characters`),
    z.string().max(FIELD_VALUE_MAX, `must be at most ${FIELD_VALUE_MAX} characters`),
  )
  .meta({
    description:
      "One section's form of the listing page: csrf (the session's token), section (coordonnees, horaires, produits, voix, e-mail, question, statut) and that section's fields, named by the declaration's paths (phone, hours.lundi, products.0.name, brand_voice.tone...)",
  });

/** The lead email's confirmation link (GET shows a button, POST confirms), and its form. */
export const leadEmailConfirmationQuerySchema = z.object(
  described(
    { jeton: z.string().max(100, "must be at most 100 characters").optional() },
    { jeton: "The token of the link sent to the new lead email" },
  ),
);
export const leadEmailConfirmationFormSchema = leadEmailConfirmationQuerySchema;

/** Any text: a malformed id is the same 404 page as another merchant's listing (never a parse error). */
export const listingSpaceParamsSchema = z.object(
  described(
    { ab_id: z.string().max(40) },
    { ab_id: "The listing (ab_...), one the signed-in person holds a claim on" },
  ),
);
