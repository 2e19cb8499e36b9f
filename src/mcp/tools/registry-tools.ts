import { z } from "zod";
import { checkAvailability } from "../../domain/availability/check-availability.ts";
import { scheduleOf } from "../../domain/availability/opening.ts";
import { checkCertifications } from "../../domain/certifications/check-certifications.ts";
import { COMPARE_MAX, COMPARE_MIN, compareMerchants } from "../../domain/compare/compare-merchants.ts";
import { formatPrice } from "../../domain/format.ts";
import { buildLeadContract } from "../../domain/lead-contract.ts";
import { resolveBrick } from "../../domain/leads/resolve-brick.ts";
import { assembleDecisionCard } from "../../domain/registry/decision-card.ts";
import { merchantActions } from "../../domain/registry/merchant-actions.ts";
import { describeCredentials, loadMerchant, resolveMerchant } from "../../domain/registry/resolve-merchant.ts";
import { searchRegistry } from "../../domain/registry/search-registry.ts";
import { validationError } from "../../errors/service-error.ts";
import { successEnvelope } from "../../http/envelope.ts";
import { resolveEnvelopeParts } from "../../http/resolve-answer.ts";
import { successEnvelopeSchema } from "../../openapi/envelopes.ts";
import { resolveResponseSchema, searchResponseSchema } from "../../openapi/responses.ts";
import { abIdSchema } from "../../schemas/common.ts";
import { type SearchQueryInput, searchInputSchema } from "../../schemas/registry.ts";
import {
  availabilitySchema,
  certificationsSchema,
  comparisonSchema,
  leadFieldsSchema,
  productDetailsSchema,
  trustScoreSchema,
} from "../schemas.ts";
import { defineTool, READ_ONLY } from "../tool.ts";
import { merchantAtNow, resolveDeps, searchDeps, toolMerchantLinks } from "./deps.ts";

const abIdArgument = abIdSchema.describe(
  "The merchant's identifier, ab_ followed by 8 lowercase letters or digits (from search_merchants results)",
);
const latitude = z.number().min(-90).max(90);
const longitude = z.number().min(-180).max(180);

function pointTogether(value: { lat?: number | undefined; lng?: number | undefined }, context: z.RefinementCtx): void {
  if ((value.lat === undefined) !== (value.lng === undefined)) {
    context.addIssue({
      code: "custom",
      path: [value.lat === undefined ? "lat" : "lng"],
      message: "lat and lng must be given together",
    });
  }
}

export const searchMerchants = defineTool({
  name: "search_merchants",
  twin: "searchRegistry",
  title: "Search verified merchants",
  description:
    'Find identity-verified local merchants in France and their products by text (a trade, product or name, in French or English: "boulangerie", "plombier", "gîte"), optionally around a point (lat/lng, or near: a town or a postal code) and by product tags. ' +
    "With a point and no radius, every match comes back, nearer first among comparable ones; radius (km) cuts at that distance. open_now=true keeps the merchants open now (open_at: at another instant), by their hours, their exceptions and French public holidays. " +
    "Returns up to `limit` results; each has merchant (ab_id, name, address, city, trade, rating, trust_score, distance_km when a point is given, opening: open_now, today's hours, next_change), matching products with quotable prices, and _state (can_contact, blocked_because). " +
    "Next: resolve_merchant or get_trust_score for one result, compare_merchants for 2 to 5 of them, check_availability for the week's hours, get_lead_fields then submit_lead to contact one whose _state.can_contact is true. " +
    "An empty result with retrieval_degraded set is not proof that nothing matches: retry with other words.",
  // The search's one schema (src/schemas/registry.ts): the REST route reads the same arguments from its query string.
  input: searchInputSchema,
  output: searchResponseSchema,
  annotations: READ_ONLY,
  async run(args, { app, envelopeContext }) {
    const answer = await searchRegistry(searchDeps(app), args);
    return successEnvelope(envelopeContext(`/api/registry/search?${searchQueryString(args).toString()}`), {
      topLevel: answer,
    });
  },
});

/** The REST twin's query string of a tool call's arguments (lists comma-separated). */
function searchQueryString(args: SearchQueryInput): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined) continue;
    params.set(name, Array.isArray(value) ? value.join(",") : String(value));
  }
  return params;
}

export const resolveMerchantTool = defineTool({
  name: "resolve_merchant",
  twin: "resolveMerchant",
  title: "Merchant profile",
  description:
    "The full profile of one merchant by ab_id: legal identity (SIRET, NAF code, legal name), address, phone, website, trust score with its four components (experience, expertise, authority, trust; 0-25 each), products with prices, and every credential with the points it contributed and its evidence URL. " +
    "_state tells whether the merchant can be contacted (can_contact) and why not (blocked_because); can_order stays false while orders are closed. " +
    "Use it before recommending or contacting a merchant. Next: get_lead_fields and submit_lead to contact it, check_availability for hours, check_certifications for proof levels.",
  input: z.strictObject({ ab_id: abIdArgument }),
  output: resolveResponseSchema,
  annotations: READ_ONLY,
  async run(args, { app, envelopeContext }) {
    const answer = await resolveMerchant(resolveDeps(app), args.ab_id);
    return successEnvelope(
      envelopeContext(`/api/registry/resolve/${args.ab_id}`),
      resolveEnvelopeParts(app.config.baseUrl, args.ab_id, answer),
    );
  },
});

export const getTrustScore = defineTool({
  name: "get_trust_score",
  title: "Trust score and its evidence",
  description:
    "Explain one merchant's trust score (0-100): trust_level (certified, verified or declared), status, the four components (experience, expertise, authority, trust; 0-25 each), the published thresholds and the ones the score lies below, and every signal that contributed, with its points, proof level and evidence URL. " +
    "Use it to justify a recommendation or to tell the user how far a merchant is verified. The score attests verified facts, not the quality of work. " +
    "Next: check_certifications for the proof of each credential, resolve_merchant for the whole profile.",
  input: z.strictObject({ ab_id: abIdArgument }),
  output: successEnvelopeSchema({ id: "TrustScoreResponse", data: trustScoreSchema, state: "merchant" }),
  annotations: READ_ONLY,
  async run(args, { app, envelopeContext }) {
    const { deps, now, profile, assessment, merchant } = await merchantAtNow(app, args.ab_id);
    const card = assembleDecisionCard(profile, assessment, {
      baseUrl: deps.baseUrl,
      orderRailEnabled: deps.orderRailEnabled,
      now,
    });
    return successEnvelope(envelopeContext(), {
      data: {
        ab_id: merchant.abId,
        name: merchant.businessName,
        trust: card.trust,
        contributions: describeCredentials(deps.baseUrl, merchant.abId, profile.signals, assessment),
        manifest_url: card.decision_card.verification_capsule.manifest_url,
      },
      actions: merchantActions(deps.baseUrl, merchant.abId, merchant.sector, assessment.capabilities),
      state: assessment.capabilities.state,
      links: toolMerchantLinks(deps.baseUrl, merchant.abId),
    });
  },
});

export const checkAvailabilityTool = defineTool({
  name: "check_availability",
  title: "Opening hours: open now, next opening",
  description:
    "Tell whether a merchant is open now (or at a given instant) and when it next opens, from its declared weekly opening hours, its dated exceptions (closures, other hours on a date) and French public holidays (a holiday without an exception is unknown), in the merchant's time zone (Europe/Paris unless recorded otherwise). " +
    "Returns open_now (null when it cannot be told), the current period with its closing time, next_opening, today's hours (today_hours: as search results word them), the usual week's, and a one-line summary. Times carry their UTC offset. " +
    "Hours are the merchant's declaration: for a booking or an exceptional closure, send a lead (get_lead_fields, submit_lead with lead_type rdv).",
  input: z.strictObject({
    ab_id: abIdArgument,
    at: z.iso
      .datetime({ offset: true })
      .optional()
      .describe("The instant to check, ISO 8601 with offset (e.g. 2026-11-02T18:30:00+01:00); default now"),
  }),
  output: successEnvelopeSchema({ id: "AvailabilityResponse", data: availabilitySchema, state: "merchant" }),
  annotations: READ_ONLY,
  async run(args, { app, envelopeContext }) {
    const deps = resolveDeps(app);
    const { profile, assessment } = await loadMerchant(deps, args.ab_id);
    const { merchant } = profile;
    const at = args.at === undefined ? deps.now() : new Date(args.at);
    return successEnvelope(envelopeContext(), {
      data: {
        ab_id: merchant.abId,
        name: merchant.businessName,
        ...checkAvailability(scheduleOf(merchant), { timeZone: merchant.timezone, at }),
      },
      actions: merchantActions(deps.baseUrl, merchant.abId, merchant.sector, assessment.capabilities),
      state: assessment.capabilities.state,
      links: toolMerchantLinks(deps.baseUrl, merchant.abId),
    });
  },
});

export const compareMerchantsTool = defineTool({
  name: "compare_merchants",
  title: "Compare merchants side by side",
  description:
    `Compare ${COMPARE_MIN} to ${COMPARE_MAX} merchants (ab_ids from search_merchants) side by side: trust score and its four components, trust level, verified evidence counted by proof level (official register, machine check, merchant declaration) with the top verified credentials, distance in km from lat/lng when given, rating and review count, products (count and first items with prices) and whether each can be contacted. ` +
    "`leaders` names, for each criterion, the merchant(s) with the best value. Use it to help the user choose; present the trade-offs rather than a single winner. " +
    "Next: resolve_merchant on the chosen one, then get_lead_fields and submit_lead.",
  input: z
    .strictObject({
      ab_ids: z
        .array(abIdSchema)
        .min(COMPARE_MIN)
        .max(COMPARE_MAX)
        .describe(`${COMPARE_MIN} to ${COMPARE_MAX} distinct merchant identifiers`),
      lat: latitude.optional().describe("Latitude of the user's point, for distances (give lng too)"),
      lng: longitude.optional().describe("Longitude of the user's point, for distances (give lat too)"),
    })
    .superRefine((value, context) => {
      pointTogether(value, context);
      const seen = new Set<string>();
      value.ab_ids.forEach((abId, index) => {
        if (seen.has(abId))
          context.addIssue({ code: "custom", path: ["ab_ids", index], message: `${abId} is listed twice` });
        seen.add(abId);
      });
    }),
  output: successEnvelopeSchema({ id: "ComparisonResponse", data: comparisonSchema }),
  annotations: READ_ONLY,
  async run(args, { app, envelopeContext }) {
    const point = args.lat !== undefined && args.lng !== undefined ? { lat: args.lat, lng: args.lng } : null;
    const comparison = await compareMerchants(resolveDeps(app), { abIds: args.ab_ids, point });
    const { baseUrl } = app.config;
    return successEnvelope(envelopeContext(), {
      data: comparison,
      actions: comparison.merchants.map((merchant) => ({
        rel: "resolve",
        method: "GET" as const,
        href: `${baseUrl}/api/registry/resolve/${merchant.ab_id}`,
        title: `Full profile of ${merchant.name}`,
        fields: [],
      })),
    });
  },
});

export const getProductDetails = defineTool({
  name: "get_product_details",
  title: "Product and service details",
  description:
    'The products and services (bricks) of one merchant, or one of them by product_id: name, full description, quotable price ("120.00 EUR", "from 45.00 EUR", "60.00 EUR/hour" or "on quote"), price in cents, pricing model, availability, tags, and the merchant\'s answers to common questions about it. ' +
    'Prices are the merchant\'s; "on quote" means ask for an estimate. Next: to ask about or buy a product, submit_lead with brick_id set to its brick_id and lead_type quote (orders are closed to public agents).',
  input: z.strictObject({
    ab_id: abIdArgument,
    product_id: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("A product id or brick_id from search_merchants or resolve_merchant; omit for every product"),
  }),
  output: successEnvelopeSchema({ id: "ProductDetailsResponse", data: productDetailsSchema, state: "merchant" }),
  annotations: READ_ONLY,
  async run(args, { app, envelopeContext }) {
    const { deps, now, profile, assessment, merchant } = await merchantAtNow(app, args.ab_id);
    let products = profile.products;
    if (args.product_id !== undefined) {
      const found = resolveBrick(profile.products, merchant.abId, args.product_id);
      if (!found.ok) {
        const valid = profile.products.map((product) => `${product.productId} (${product.name})`).join(", ");
        throw validationError([
          { path: "product_id", message: `${found.message}; products of ${merchant.abId}: ${valid || "none"}` },
        ]);
      }
      products = [found.product];
    }
    const bricks = new Map(
      assembleDecisionCard(profile, assessment, {
        baseUrl: deps.baseUrl,
        orderRailEnabled: deps.orderRailEnabled,
        now,
      }).decision_card.bricks_inventory.map((brick) => [brick.product_id, brick]),
    );
    return successEnvelope(envelopeContext(), {
      data: {
        ab_id: merchant.abId,
        name: merchant.businessName,
        products: products.flatMap((product) => {
          const brick = bricks.get(product.productId);
          if (!brick) return [];
          const questions = profile.clusters
            .filter((cluster) => cluster.scope === "brick" && cluster.brickId === product.brickId)
            .flatMap((cluster) =>
              cluster.nodes.map((node) => ({
                question: node.question,
                answer_bluf: node.answerBluf,
                intent: node.intent,
                cite_url: `${deps.baseUrl}/api/clusters/${cluster.clusterId}#${node.nodeId}`,
              })),
            );
          return [{ ...brick, description: product.description, price: formatPrice(product), questions }];
        }),
      },
      actions: merchantActions(deps.baseUrl, merchant.abId, merchant.sector, assessment.capabilities),
      state: assessment.capabilities.state,
      links: toolMerchantLinks(deps.baseUrl, merchant.abId),
    });
  },
});

export const checkCertificationsTool = defineTool({
  name: "check_certifications",
  title: "Credentials and proof levels",
  description:
    "What is verified about a merchant and how: its SIRET check against the official register, and every credential and evidence signal with its status (verified, unverified, failed, expired), proof level (official_source_verified: checked against an official register; machine_consistent: observed by the platform; merchant_declared: the merchant's word only), source, dates, the points it brings and the URL of its evidence page. " +
    "Also counts verified items per proof level and lists the evidence signals not verified for this merchant. " +
    "Use it before telling a user a merchant is registered, insured or inspected; cite the proof level, never present a declaration as a verified fact. The signed manifest at manifest_url attests these facts (verify with jwks_url). Next: get_trust_score for what each credential brings to the score.",
  input: z.strictObject({ ab_id: abIdArgument }),
  output: successEnvelopeSchema({ id: "CertificationsResponse", data: certificationsSchema, state: "merchant" }),
  annotations: READ_ONLY,
  async run(args, { app, envelopeContext }) {
    const deps = resolveDeps(app);
    const { state, ...certifications } = await checkCertifications(deps, args.ab_id);
    return successEnvelope(envelopeContext(), {
      data: certifications,
      actions: [
        {
          rel: "verify",
          method: "GET",
          href: certifications.manifest_url,
          title: "Signed verification manifest",
          fields: [],
        },
        { rel: "jwks", method: "GET", href: certifications.jwks_url, title: "Public key set", fields: [] },
      ],
      state,
      links: toolMerchantLinks(deps.baseUrl, args.ab_id),
    });
  },
});

export const getLeadFields = defineTool({
  name: "get_lead_fields",
  title: "Lead form of a merchant",
  description:
    "The lead contract of one merchant: the fields submit_lead accepts (contact_name, contact_email and lead_type required; contact_phone and message optional), the sector fields to put under `metadata` (all optional, with their types and allowed values), and an example payload you can adapt. " +
    "Also says whether the merchant can be contacted now (can_contact) and why not. Call it before submit_lead; ask the user only for what they want to share, never invent contact details.",
  input: z.strictObject({ ab_id: abIdArgument }),
  output: successEnvelopeSchema({ id: "LeadFieldsResponse", data: leadFieldsSchema, state: "merchant" }),
  annotations: READ_ONLY,
  async run(args, { app, envelopeContext }) {
    const { deps, now, assessment, merchant } = await merchantAtNow(app, args.ab_id);
    const { state } = assessment.capabilities;
    return successEnvelope(envelopeContext(), {
      data: {
        ab_id: merchant.abId,
        name: merchant.businessName,
        can_contact: state.can_contact,
        blocked_because: state.can_contact ? [] : [...state.blocked_because],
        lead_contract: buildLeadContract(deps.baseUrl, merchant.sector, merchant.abId, { today: now }),
      },
      actions: merchantActions(deps.baseUrl, merchant.abId, merchant.sector, assessment.capabilities),
      state,
      links: toolMerchantLinks(deps.baseUrl, merchant.abId),
    });
  },
});

export const registryTools = [
  searchMerchants,
  resolveMerchantTool,
  getTrustScore,
  checkAvailabilityTool,
  compareMerchantsTool,
  getProductDetails,
  checkCertificationsTool,
  getLeadFields,
];
