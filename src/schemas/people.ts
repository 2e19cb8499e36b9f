import { z } from "zod";
import { described, emptyAsUndefined, isOneLine } from "./common.ts";

/** The front door's search form (GET /): a trade and a town, as a person types them. */
export const PEOPLE_FIELD_MAX = 100;

const field = z.preprocess(
  emptyAsUndefined,
  z
    .string()
    .max(PEOPLE_FIELD_MAX, `must be at most ${PEOPLE_FIELD_MAX} characters`)
    .refine(isOneLine, "must be one line of text")
    .optional(),
);

export const peopleQuerySchema = z.object(
  described(
    {
      metier: field,
      ville: field,
      // A checkbox: sent as "1" when ticked, absent otherwise.
      ouvert: z.preprocess(
        emptyAsUndefined,
        z.literal("1", { message: "must be 1 (the box ticked) or absent" }).optional(),
      ),
    },
    {
      metier: `A trade or a product, as a person types it (e.g. boulangerie), at most ${PEOPLE_FIELD_MAX} characters`,
      ville: `A town name or a postal code (e.g. Lyon, 69003), at most ${PEOPLE_FIELD_MAX} characters`,
      ouvert: "1: only the merchants open now (the form's « Ouvert maintenant » box)",
    },
  ),
);

export const sitemapPartParamsSchema = z.object({
  page: z.coerce
    .number({ message: "must be a whole number from 1" })
    .int("must be a whole number from 1")
    .min(1, "must be a whole number from 1")
    .max(10_000, "must be at most 10000")
    .meta({ description: "The file's number, from 1, as /sitemap.xml lists it" }),
});
