import { z } from "zod";
import { OFFICIAL_SOURCE_NAMES, SIGNAL_SOURCES } from "../domain/trust/signal-catalog.ts";
import { MATCHED_FIELDS, SEARCH_DEGRADATIONS } from "../search/search-index.ts";
import { abIdSchema, described, emptyAsUndefined, isOneLine, isoDateTime, ONE_LINE_MESSAGE } from "./common.ts";
import { actionSchema, merchantStateSchema } from "./envelope.ts";

export const SEARCH_LIMIT_MAX = 50;
export const SEARCH_RADIUS_MAX_KM = 1000;
export const SEARCH_QUERY_MAX = 200;
export const SEARCH_TAGS_MAX = 10;

/** The longest place name `near` takes (the longest commune name is 45 characters). */
export const SEARCH_NEAR_MAX = 100;

const FLAG_MESSAGE = "must be true or false (true, false, 1 or 0 in a query string)";

/**
 * An instant, ISO 8601 with its offset (2026-12-24T18:30:00+01:00, or Z): a time without one
 * would be read in some zone the caller did not say.
 */
const instant = z.iso.datetime({
  offset: true,
  message: "must be an ISO 8601 date-time with its offset, like 2026-12-24T18:30:00+01:00",
});

/**
 * The search's arguments, each with its rules, as JSON values (what the MCP tool and the A2A skill
 * take); the query string's form (the REST route) is derived from them below, so both read the
 * same arguments with the same bounds and messages, and the same rules across them (searchRules).
 */
const searchArguments = {
  q: z
    .string({ message: "is required (the text to search for)" })
    .trim()
    .min(1, "must not be empty")
    .max(SEARCH_QUERY_MAX, `must be at most ${SEARCH_QUERY_MAX} characters`),
  tags: z
    .array(
      z
        .string()
        .trim()
        .min(1, "each tag must not be empty")
        .max(50, "each tag must be at most 50 characters")
        .regex(/^[^,]+$/, "each tag must not contain a comma"),
    )
    .max(SEARCH_TAGS_MAX, `at most ${SEARCH_TAGS_MAX} tags`),
  lat: z
    .number({ message: "must be a number" })
    .min(-90, "must be between -90 and 90")
    .max(90, "must be between -90 and 90"),
  lng: z
    .number({ message: "must be a number" })
    .min(-180, "must be between -180 and 180")
    .max(180, "must be between -180 and 180"),
  radius: z
    .number({ message: "must be a number" })
    .positive("must be a positive number of kilometres")
    .max(SEARCH_RADIUS_MAX_KM, `must be at most ${SEARCH_RADIUS_MAX_KM} km`),
  near: z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(SEARCH_NEAR_MAX, `must be at most ${SEARCH_NEAR_MAX} characters`)
    .refine(isOneLine, ONE_LINE_MESSAGE),
  limit: z
    .number({ message: "must be a number" })
    .int("must be an integer")
    .min(1, "must be at least 1")
    .max(SEARCH_LIMIT_MAX, `must be at most ${SEARCH_LIMIT_MAX}`),
  semantic: z.boolean({ message: FLAG_MESSAGE }),
  open_now: z.boolean({ message: FLAG_MESSAGE }),
  open_at: instant,
  at: instant,
  cursor: z
    .string()
    .max(200, "must be at most 200 characters")
    .regex(/^[A-Za-z0-9_-]+$/, "must be a next_cursor of an earlier answer to the same query"),
};

const SEARCH_DESCRIPTIONS: { [Name in keyof typeof searchArguments]: string } = {
  q: "Text to search for: a trade, a product or a name, in French or English (e.g. boulangerie)",
  tags: `Product tags (at most ${SEARCH_TAGS_MAX} of 50 characters each); every tag must be carried by one of the merchant's products`,
  lat: "Latitude of the point to search around, in degrees (WGS 84); with lng. Without radius: every match, nearer first among comparable ones",
  lng: "Longitude of the point to search around, in degrees (WGS 84); with lat",
  radius: `Only the merchants within this many km of the point (lat/lng or near), at most ${SEARCH_RADIUS_MAX_KM}; without it, no distance cut`,
  near: 'A French town or a postal code to search around, for callers without coordinates ("Lyon", "Saint-Denis (93)", "69003"); instead of lat/lng',
  limit: `How many results to return (1 to ${SEARCH_LIMIT_MAX}, default 10)`,
  semantic: "true to ask for vector (semantic) retrieval; retrieval_degraded says when it is not available",
  open_now:
    "true: only the merchants open at the request's time (or at `at`), by their hours, exceptions and French public holidays; false or absent: no filter",
  open_at: "Only the merchants open at this instant (ISO 8601 with offset, e.g. 2026-12-24T18:30:00+01:00)",
  at: "The instant each result's merchant.opening is read at, and open_now's (ISO 8601 with offset); default now",
  cursor: "The next_cursor of an earlier answer to the same query, for its next page",
};

type SearchArguments = { [Name in keyof typeof searchArguments]: z.output<(typeof searchArguments)[Name]> };

/** The rules across arguments: a point is lat and lng together, or near, never both; a radius needs one. */
function searchRules(value: Partial<SearchArguments>, context: z.RefinementCtx): void {
  if ((value.lat === undefined) !== (value.lng === undefined)) {
    context.addIssue({
      code: "custom",
      path: [value.lat === undefined ? "lat" : "lng"],
      message: "lat and lng must be given together",
    });
  }
  if (value.near !== undefined && value.lat !== undefined) {
    context.addIssue({ code: "custom", path: ["near"], message: "give near or lat and lng, not both" });
  }
  if (value.radius !== undefined && value.lat === undefined && value.near === undefined) {
    context.addIssue({ code: "custom", path: ["radius"], message: "radius needs lat and lng, or near" });
  }
}

const { q: queryArgument, ...optionalArguments } = searchArguments;

/** The search's arguments as JSON (the search_merchants tool, the A2A skill): unknown ones refused. */
export const searchInputSchema = z
  .strictObject(
    described(
      {
        q: queryArgument,
        ...(Object.fromEntries(
          Object.entries(optionalArguments).map(([name, schema]) => [name, schema.optional()]),
        ) as {
          [Name in keyof typeof optionalArguments]: z.ZodOptional<(typeof optionalArguments)[Name]>;
        }),
      },
      SEARCH_DESCRIPTIONS,
    ),
  )
  .superRefine(searchRules);
export type SearchQueryInput = z.output<typeof searchInputSchema>;

/** A query-string value: empty means "not given". */
const fromQuery = <Schema extends z.ZodType>(read: (text: string) => unknown, schema: Schema) =>
  z.preprocess((value) => (value === "" || value === undefined ? undefined : read(String(value))), schema.optional());
const asNumber = (text: string) => (text.trim() === "" ? Number.NaN : Number(text));
const asFlag = (text: string) =>
  text === "true" || text === "1" ? true : text === "false" || text === "0" ? false : text;
const asList = (text: string) =>
  text.length > 500
    ? [text]
    : text
        .split(",")
        .map((tag) => tag.trim())
        .filter(Boolean);
/** A query string turns an unencoded "+" into a space: the offset of "...T18:30:00+01:00" comes back. */
const asInstant = (text: string) => text.replace(/(T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?) (\d{2}:?\d{2})$/, "$1+$2");
const asText = (text: string) => text;

/** The same arguments in a query string (GET /api/registry/search): numbers, flags and lists read from text. */
export const searchQuerySchema = z
  .object(
    described(
      {
        q: searchArguments.q,
        tags: fromQuery(asList, searchArguments.tags),
        lat: fromQuery(asNumber, searchArguments.lat),
        lng: fromQuery(asNumber, searchArguments.lng),
        radius: fromQuery(asNumber, searchArguments.radius),
        near: fromQuery(asText, searchArguments.near),
        limit: fromQuery(asNumber, searchArguments.limit),
        semantic: fromQuery(asFlag, searchArguments.semantic),
        open_now: fromQuery(asFlag, searchArguments.open_now),
        open_at: fromQuery(asInstant, searchArguments.open_at),
        at: fromQuery(asInstant, searchArguments.at),
        cursor: fromQuery(asText, searchArguments.cursor),
      },
      SEARCH_DESCRIPTIONS,
    ),
  )
  .superRefine(searchRules);

export const searchProductSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  price: z.string(),
  tags: z.array(z.string()),
});

/**
 * How far a merchant is verified right now: declared (no identity check valid today), verified
 * (identity checked by an official source, and the check has not expired), certified (verified,
 * with a trust score at merchant_ready or more).
 */
export const trustLevelSchema = z.enum(["certified", "verified", "declared"]).meta({
  id: "TrustLevel",
  description:
    "declared: no identity check valid now; verified: identity checked by an official source and not expired; certified: verified with a trust score of merchant_ready or more",
});

/** Whether a merchant is open, read at the request's instant (or `at`) on the Paris clock. */
export const merchantOpeningSchema = z
  .object({
    open_now: z.boolean().nullable().meta({
      description:
        "Open at the instant, by the usual week, the merchant's dated exceptions and the French public holidays; null when the hours do not say (none declared, the day not declared, a public holiday without an exception)",
    }),
    today: z.string().nullable().meta({
      description:
        'The day\'s hours: "06:30-13:30, 15:30-19:30", "closed", "09:00-12:00 (exception: <the merchant\'s note>)", "public holiday (<name>): hours not declared"; null when unknown',
    }),
    next_change: z.iso.datetime({ offset: true }).nullable().meta({
      description:
        "The next instant it opens (closed or unknown now) or closes (open now), on the days the hours speak of, within 31 days, with the Paris offset; null when none",
    }),
  })
  .meta({ id: "MerchantOpening" });
export type MerchantOpening = z.infer<typeof merchantOpeningSchema>;

/** The place a search was made around when `near` named it. */
export const searchPlaceSchema = z
  .object({
    name: z.string(),
    department: z.string(),
    postal_code: z.string(),
    lat: z.number(),
    lng: z.number(),
  })
  .meta({
    id: "SearchPlace",
    description: "The commune `near` was read as, and the point searched around (its centre)",
  });

export const searchResultSchema = z
  .object({
    merchant: z.object({
      ab_id: abIdSchema,
      name: z.string(),
      address: z.string(),
      city: z.string(),
      sector: z.string(),
      trade: z.string(),
      rating: z.number().nullable(),
      review_count: z.number().int().nullable(),
      trust_score: z.number().int().min(0).max(100),
      trust_level: trustLevelSchema,
      distance_km: z.number().optional(),
      opening: merchantOpeningSchema,
    }),
    products: z.array(searchProductSchema),
    /** Blended relevance (text, trust, distance), 0-100; comparable within one answer only. */
    score: z.number().min(0).max(100),
    /** Where the query matched: the identifier, the name, the trade, a product, a tag, the place, the description; meaning: by vector similarity (semantic=true). */
    matched: z.array(z.enum(MATCHED_FIELDS)),
    _actions: z.array(actionSchema),
    _state: merchantStateSchema,
  })
  .meta({ id: "SearchResultItem" });
export type SearchResult = z.infer<typeof searchResultSchema>;

export const searchAnswerSchema = z.object({
  query: z.string(),
  /** When `near` was given: the commune it was read as. */
  place: searchPlaceSchema.optional(),
  results: z.array(searchResultSchema),
  count: z.number().int(),
  /** How many merchants match in all (exact below 1,000 on either engine; at most 1,000). */
  estimated_total: z.number().int().min(0),
  /** Pass it back as `cursor` with the same query for the next page; null on the last page. */
  next_cursor: z.string().nullable(),
  /** With no result: what to try next (widen the radius, drop the tags, search without the town). */
  recovery: z.array(actionSchema).optional(),
  retrieval_degraded: z.enum(SEARCH_DEGRADATIONS).optional(),
});
export type SearchAnswer = z.infer<typeof searchAnswerSchema>;

export const trustBreakdownSchema = z
  .object({
    experience: z.number().int().min(0).max(25),
    expertise: z.number().int().min(0).max(25),
    authority: z.number().int().min(0).max(25),
    trust: z.number().int().min(0).max(25),
    total: z.number().int().min(0).max(100),
  })
  .meta({ id: "TrustBreakdown" });

export const credentialSchema = z
  .object({
    key: z.string(),
    label: z.string(),
    status: z.string(),
    proof_status: z.string(),
    source: z.enum(SIGNAL_SOURCES),
    source_url: z.string().nullable(),
    verified_at: z.string().nullable(),
    recorded_at: z.string(),
    expires_at: z.string().nullable().meta({
      description: "Until when the check holds; afterwards it counts for nothing until checked again (null: no end)",
    }),
    component: z.enum(["experience", "expertise", "authority", "trust"]),
    points: z.number().int(),
    evidence_url: z.string().nullable(),
  })
  .meta({ id: "Credential" });
export type Credential = z.infer<typeof credentialSchema>;

export const merchantSourceSchema = z
  .object({
    source: z.enum(OFFICIAL_SOURCE_NAMES).meta({
      description:
        "The official source: sirene (INSEE's register: its monthly stock, API Sirene's daily changes), bodacc (BODACC's announcements), recherche-entreprises (the API Recherche d'entreprises the live check asks)",
    }),
    confirmed_at: z.string().meta({
      description:
        "When the source last said what the registry holds (a stock's date, the day API Sirene processed the record, the BODACC file's last publication, the live check)",
    }),
    changed_at: z.string().nullable().meta({
      description:
        "When the source's own record last changed, where it says (INSEE's last processing of the establishment, the BODACC announcement a check rests on); null when it does not say",
    }),
  })
  .meta({ id: "MerchantSource" });
export type MerchantSource = z.infer<typeof merchantSourceSchema>;

/**
 * The business closed, as an official source records it (docs/decisions.md, "Issue 37: only what
 * is in business"); null while it is in business. A closed merchant still resolves, saying so, and
 * is never a search hit.
 */
export const merchantClosureSchema = z
  .object({
    closed_on: z.iso.date(),
    source: z.enum(["sirene", "bodacc"]),
    source_url: z.url(),
    label: z.string(),
    announcement_id: z.string().nullable(),
    recorded_at: z.iso.datetime(),
  })
  .nullable()
  .meta({ id: "MerchantClosure" });
export type MerchantClosureView = z.infer<typeof merchantClosureSchema>;

export const resolvedMerchantSchema = z.object({
  merchant: z.object({
    ab_id: abIdSchema,
    name: z.string(),
    legal_name: z.string(),
    siret: z.string(),
    address: z.string(),
    phone: z.string().nullable(),
    website: z.string().nullable(),
    sector: z.string(),
    trade: z.string(),
    naf_code: z.string(),
    /** The NAF 2025 code of the same activity, when SIRENE gives one (its reference nomenclature from 2027). */
    naf_code_2025: z.string().nullable(),
    closure: merchantClosureSchema,
    trust: z.object({ score: z.number().int(), status: trustLevelSchema, breakdown: trustBreakdownSchema }),
    /** The official sources that speak for the merchant, and how fresh what each says is. */
    sources: z.array(merchantSourceSchema),
  }),
  products: z.array(z.object({ id: z.string(), name: z.string(), description: z.string(), price: z.string() })),
  credentials: z.array(credentialSchema),
});
export type ResolvedMerchant = z.infer<typeof resolvedMerchantSchema>;

export const abIdParamsSchema = z.object(
  described(
    { ab_id: abIdSchema },
    { ab_id: "The merchant's identifier (ab_ and 8 lowercase letters or digits), from a search result" },
  ),
);

/** The change feed's page size when not asked for, and its most. */
export const CHANGES_DEFAULT_LIMIT = 100;
export const CHANGES_MAX_LIMIT = 1_000;

export const changesQuerySchema = z.object({
  since: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^\d{1,15}$/, "must be a cursor from a previous answer's next_cursor")
      .optional()
      .meta({ description: "The next_cursor of the previous page; absent: from the beginning" }),
  ),
  limit: z
    .preprocess(
      emptyAsUndefined,
      z.coerce
        .number({ message: `must be a whole number from 1 to ${CHANGES_MAX_LIMIT}` })
        .int(`must be a whole number from 1 to ${CHANGES_MAX_LIMIT}`)
        .min(1, `must be a whole number from 1 to ${CHANGES_MAX_LIMIT}`)
        .max(CHANGES_MAX_LIMIT, `must be a whole number from 1 to ${CHANGES_MAX_LIMIT}`)
        .default(CHANGES_DEFAULT_LIMIT),
    )
    .meta({ description: `Changes per page (1 to ${CHANGES_MAX_LIMIT}, ${CHANGES_DEFAULT_LIMIT} when absent)` }),
});

export const merchantChangeSchema = z
  .object({
    ab_id: abIdSchema,
    revision: z.number().int().min(1),
    change: z.enum(["created", "updated", "withdrawn"]),
    changed_at: isoDateTime,
  })
  .meta({ id: "MerchantChange" });

export const changesAnswerSchema = z.object({
  changes: z.array(merchantChangeSchema),
  next_cursor: z.string().meta({ description: "Pass as `since` for the changes after these (also when none came)" }),
  has_more: z.boolean().meta({ description: "More changes are waiting past next_cursor" }),
});
export type ChangesAnswer = z.infer<typeof changesAnswerSchema>;
