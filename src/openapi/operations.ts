import { z } from "zod";
import {
  SIGN_IN_LINK_REQUESTS_PER_EMAIL_HOURLY,
  SIGN_IN_LINK_VALID_MINUTES,
} from "../domain/merchant-space/sign-in-links.ts";
import type { ErrorCode } from "../errors/catalog.ts";
import type { Operation } from "../http/guard.ts";
import { MERCHANTS_PER_FILE } from "../publish/sitemap.ts";
import {
  agentRegistrationSchema,
  agentVerificationSchema,
  registerAgentBodySchema,
  verifyAgentQuerySchema,
} from "../schemas/agents.ts";
import {
  attributionConversionSchema,
  attributionSessionSchema,
  convertSessionBodySchema,
  openSessionBodySchema,
} from "../schemas/attribution.ts";
import {
  agentCardSchema,
  aiCatalogSchema,
  legacyAgentCardSchema,
  mcpDiscoveryShape,
  mcpServerCardSchema,
} from "../schemas/discovery.ts";
import { aiDigestSchema, clusterDocumentSchema, clusterListSchema, clusterParamsSchema } from "../schemas/documents.ts";
import {
  followUpMessageSchema,
  idempotencyKeySchema,
  LEAD_FORM_TOKEN_MAX,
  leadFormBodySchema,
  leadIdParamsSchema,
  leadRequestSchema,
  leadResponseFormSchema,
  merchantLeadParamsSchema,
  merchantLeadQuerySchema,
  merchantLeadsParamsSchema,
  merchantLeadsQuerySchema,
  TRACKING_TOKEN_MAX,
  trackingFormBodySchema,
} from "../schemas/leads.ts";
import {
  letterCodeFormBodySchema,
  signInLinkQuerySchema,
  signInLinkRequestBodySchema,
  signInLinkUseBodySchema,
} from "../schemas/letter-forms.ts";
import {
  claimFormBodySchema,
  signInCallbackQuerySchema,
  signInStartQuerySchema,
  spaceFormBodySchema,
  spaceHomeQuerySchema,
} from "../schemas/merchant-space.ts";
import {
  leadEmailConfirmationFormSchema,
  leadEmailConfirmationQuerySchema,
  listingFormBodySchema,
  listingSpaceParamsSchema,
} from "../schemas/merchant-space-listing.ts";
import { createOrderBodySchema, orderCreatedSchema } from "../schemas/orders.ts";
import { peopleQuerySchema, sitemapPartParamsSchema } from "../schemas/people.ts";
import { platformContactRequestSchema } from "../schemas/platform-contact.ts";
import { abIdParamsSchema, changesQuerySchema, searchQuerySchema } from "../schemas/registry.ts";
import {
  evidenceDataSchema,
  evidenceParamsSchema,
  jwksSchema,
  manifestDataSchema,
  manifestQuerySchema,
  publicKeyDataSchema,
} from "../schemas/signing.ts";
import { successEnvelopeSchema } from "./envelopes.ts";
import {
  jsonRpcErrorResponseSchema,
  jsonRpcRequestSchema,
  jsonRpcResponseSchema,
  mcpRequestBodySchema,
  mcpResponseBodySchema,
} from "./jsonrpc.ts";
import {
  changesResponseSchema,
  decisionCardResponseSchema,
  healthResponseSchema,
  leadCreatedResponseSchema,
  leadMessageResponseSchema,
  leadStatusResponseSchema,
  platformContactResponseSchema,
  resolveResponseSchema,
  searchResponseSchema,
} from "./responses.ts";

/**
 * Every route the service answers, described once: parameters and bodies by their zod schemas,
 * success answers by their envelope schemas, and the error codes each can answer (statuses come
 * from the error catalog). `src/openapi/document.ts` turns this table into OpenAPI 3.1; the
 * integration tests check real answers of every entry against the generated document.
 */

export interface HeaderSpec {
  readonly name: string;
  readonly description: string;
  readonly required?: boolean;
  readonly schema: z.ZodType;
}

export interface ResponseSpec {
  description: string;
  /** Body schema (JSON unless `contentType` says otherwise); omitted for answers without a body. */
  schema?: z.ZodType;
  /** For non-JSON bodies: the media type and a plain JSON Schema of it. */
  contentType?: string;
  headers?: readonly string[];
}

/**
 * One operation, described once: its route file serves it (`route(operation("id"), handler)` takes
 * the access rule and the request schemas from here), the OpenAPI document is built from the
 * table, and MCP tools that mirror an operation name it (test/unit/operation-routes.test.ts
 * checks that the three agree).
 */
export interface OperationSpec {
  readonly method: "get" | "post";
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly string[];
  /** The guard operation of the route: every operation but `open` can answer 401, 403, 429 and 503. */
  readonly access: Operation;
  readonly pathParams?: z.ZodObject;
  readonly query?: z.ZodObject;
  readonly headers?: readonly HeaderSpec[];
  readonly body?: z.ZodType;
  /** How the body comes: JSON (the default), or an HTML form's fields (application/x-www-form-urlencoded). */
  readonly bodyType?: "json" | "form";
  /** The body is JSON-RPC: malformed bodies are JSON-RPC errors, not VALIDATION_ERROR envelopes. */
  readonly jsonRpc?: boolean;
  readonly responses: Readonly<Record<string, ResponseSpec>>;
  /** Error codes of the operation itself; the generic ones (validation, guard, 500) are added. */
  readonly errors?: readonly ErrorCode[];
  readonly deprecated?: boolean;
}

const merchantState = "merchant" as const;

/** The top-level fields of a schema that already spells part of the envelope (success, _actions, _state). */
function topLevelOf(schema: z.ZodObject): z.ZodRawShape {
  const { success: _success, _actions, _state, ...rest } = schema.shape;
  return rest;
}

const documentCaching = ["ETag", "Cache-Control"];
const notModified: ResponseSpec = { description: "Not modified (If-None-Match matched the ETag)", headers: ["ETag"] };

const trackingTokenHeader: HeaderSpec = {
  name: "X-Tracking-Token",
  description: "The lead's tracking token (preferred to the token query parameter: it stays out of logs)",
  schema: z.string().max(TRACKING_TOKEN_MAX),
};

const leadFormTokenHeader: HeaderSpec = {
  name: "X-Lead-Form-Token",
  description:
    "Sent by the lead form of the merchant's page (/m/{ab_id}/), which carries it: a lead with its page's token is told to the merchant as typed by the person in that form. Programs do not send it; a lead without it, or with another value, is told as sent through the API",
  schema: z.string().max(LEAD_FORM_TOKEN_MAX),
};

const idempotencyHeader: HeaderSpec = {
  name: "Idempotency-Key",
  description: "Replays the first answer for the same body within 24 hours; another body with the same key is 409",
  schema: idempotencyKeySchema,
};

/** The answers of a JSON-RPC endpoint (/api/mcp, /api/a2a) besides the guard's refusals. */
function jsonRpcAnswers(badRequest: string) {
  return {
    "200": { description: "A JSON-RPC response (result or error)", schema: jsonRpcResponseSchema },
    "400": { description: badRequest, schema: jsonRpcErrorResponseSchema },
    "413": { description: "Body over 64 KiB (-32600)", schema: jsonRpcErrorResponseSchema },
    "415": { description: "Content-Type is not application/json (-32600)", schema: jsonRpcErrorResponseSchema },
    "500": { description: "Internal error (-32603)", schema: jsonRpcErrorResponseSchema },
  };
}

const OPERATION_TABLE = [
  {
    method: "get",
    path: "/api/registry/search",
    operationId: "searchRegistry",
    summary: "Search merchants and products",
    description:
      "Full-text search over merchants and their products, optionally within `radius` km of `lat`/`lng` and restricted to product `tags` (every tag must be carried). With `semantic=true` and no vector search available, `retrieval_degraded` says so: an empty result is then not proof that nothing matches.",
    tags: ["Registry"],
    access: "search",
    query: searchQuerySchema,
    responses: { "200": { description: "Search answer", schema: searchResponseSchema } },
    errors: ["SEARCH_UNAVAILABLE"],
  },
  {
    method: "get",
    path: "/api/registry/changes",
    operationId: "readChanges",
    summary: "The registry's change feed",
    description:
      "Every listed merchant that appeared (`created`), changed (`updated`) or stopped being listed (`withdrawn`: archived or suspended), in commit order, from the beginning or after `since`. Apply the pages in turn, passing each `next_cursor` back as `since`, to keep a copy of the registry honest; changes to merchants that are not listed do not appear.",
    tags: ["Registry"],
    access: "search",
    query: changesQuerySchema,
    responses: { "200": { description: "A page of changes", schema: changesResponseSchema } },
  },
  {
    method: "get",
    path: "/api/registry/resolve/{ab_id}",
    operationId: "resolveMerchant",
    summary: "Full merchant profile",
    description:
      "Identity, trust score with its breakdown, products and credentials. Archived and unknown merchants are 404.",
    tags: ["Registry"],
    access: "resolve",
    pathParams: abIdParamsSchema,
    responses: { "200": { description: "The merchant", schema: resolveResponseSchema } },
    errors: ["MERCHANT_NOT_FOUND"],
  },
  {
    method: "get",
    path: "/api/merchants/{ab_id}/decision-card",
    operationId: "getDecisionCard",
    summary: "Merchant decision card",
    tags: ["Merchant documents"],
    access: "read",
    pathParams: abIdParamsSchema,
    responses: { "200": { description: "The decision card", schema: decisionCardResponseSchema } },
    errors: ["MERCHANT_NOT_FOUND"],
  },
  {
    method: "get",
    path: "/api/registry/verify/{ab_id}",
    operationId: "getVerificationManifest",
    summary: "Signed verification manifest",
    description:
      "A freshly signed Ed25519 manifest (compact JWS) on every call; `snapshot=1` gives one valid 24 hours. Verify it with the key set at /.well-known/ab-public-keys.json. The signature attests the integrity of the envelope, not the truth of each claim.",
    tags: ["Trust"],
    access: "read",
    pathParams: abIdParamsSchema,
    query: manifestQuerySchema,
    responses: {
      "200": {
        description: "The manifest and its JWS",
        schema: successEnvelopeSchema({ id: "ManifestResponse", data: manifestDataSchema, state: merchantState }),
        headers: ["Cache-Control", "Last-Modified"],
      },
    },
    errors: ["MERCHANT_NOT_FOUND"],
  },
  {
    method: "get",
    path: "/api/verify/{signal}/{ab_id}",
    operationId: "getSignalEvidence",
    summary: "Evidence for one verification signal",
    tags: ["Trust"],
    access: "read",
    pathParams: evidenceParamsSchema,
    responses: {
      "200": {
        description: "The evidence and what it contributed to the trust score",
        schema: successEnvelopeSchema({ id: "EvidenceResponse", data: evidenceDataSchema, state: merchantState }),
      },
    },
    errors: ["MERCHANT_NOT_FOUND", "NOT_FOUND"],
  },
  {
    method: "get",
    path: "/api/trust/public-key",
    operationId: "getPublicKey",
    summary: "Active public key (legacy)",
    description:
      "Legacy alias: the key that signs now, as JWK and PEM. Prefer the key set at /.well-known/ab-public-keys.json.",
    tags: ["Trust"],
    access: "read",
    responses: {
      "200": {
        description: "The active key",
        schema: successEnvelopeSchema({ id: "PublicKeyResponse", data: publicKeyDataSchema }),
        headers: ["Cache-Control"],
      },
    },
  },
  {
    method: "get",
    path: "/api/trust/attestation/{ab_id}",
    operationId: "getTrustAttestation",
    summary: "Withdrawn trust attestation",
    description:
      "Retired: answers 410 TRUST_ATTESTATION_WITHDRAWN with recovery steps to the signed manifest and the key set.",
    tags: ["Trust"],
    access: "read",
    deprecated: true,
    pathParams: z.object({
      ab_id: z
        .string()
        .meta({ description: "Any merchant identifier: the route is retired and answers 410 for every one" }),
    }),
    responses: {},
    errors: ["TRUST_ATTESTATION_WITHDRAWN"],
  },
  {
    method: "get",
    path: "/.well-known/ab-public-keys.json",
    operationId: "getJwks",
    summary: "Public key set (JWKS)",
    description: "RFC 7517 key set, bare (not in the envelope) so that JOSE libraries read it as it is.",
    tags: ["Trust"],
    access: "open",
    responses: {
      "200": {
        description: "The key set",
        schema: jwksSchema,
        contentType: "application/jwk-set+json",
        headers: ["Cache-Control"],
      },
    },
  },
  {
    method: "post",
    path: "/api/contact/brick",
    operationId: "createLead",
    summary: "Send a lead to a merchant",
    description:
      "A contact, estimate, appointment or quote request. Sent again by the same caller (the same API key, or the same client address without a key) with the same merchant, contact email (trimmed, lower-cased) and lead type within 24 hours, it answers 200 with the first lead and `deduplicated: true`; a message the first lead does not carry yet is emailed to the merchant as a follow-up on it (409 CONFLICT past the follow-up limit). Another caller always gets a lead of its own. Keep the tracking token: lead status and follow-up messages need it.",
    tags: ["Leads"],
    access: "lead",
    headers: [idempotencyHeader, leadFormTokenHeader],
    body: leadRequestSchema,
    responses: {
      "201": { description: "Lead created", schema: leadCreatedResponseSchema, headers: ["Location"] },
      "200": {
        description: "An existing lead (the same caller's duplicate within 24 hours, or an idempotent replay)",
        schema: leadCreatedResponseSchema,
      },
    },
    errors: ["CONTACT_DISABLED", "MERCHANT_NOT_FOUND", "CONFLICT"],
  },
  {
    method: "get",
    path: "/api/leads/{lead_id}",
    operationId: "getLeadStatus",
    summary: "Status of a lead",
    description:
      "For the holder of the lead's tracking token; a wrong token answers exactly like an unknown lead (404). tracking_status is the delivery of the lead to the merchant; merchant_response is what the merchant did in its Abeille space (none, answered, handled, declined) and the answers it wrote there.",
    tags: ["Leads"],
    access: "read",
    pathParams: leadIdParamsSchema,
    query: z.object({
      token: z
        .string()
        .max(TRACKING_TOKEN_MAX)
        .optional()
        .meta({ description: "The tracking token, when the header cannot be sent" }),
    }),
    headers: [trackingTokenHeader],
    responses: { "200": { description: "The lead's status", schema: leadStatusResponseSchema } },
    errors: ["NOT_FOUND"],
  },
  {
    method: "post",
    path: "/api/leads/{lead_id}/messages",
    operationId: "sendLeadMessage",
    summary: "Follow-up message on a lead",
    tags: ["Leads"],
    access: "lead",
    pathParams: leadIdParamsSchema,
    headers: [trackingTokenHeader],
    body: followUpMessageSchema,
    responses: { "201": { description: "Message queued for the merchant", schema: leadMessageResponseSchema } },
    errors: ["NOT_FOUND", "CONTACT_DISABLED", "CONFLICT"],
  },
  {
    method: "post",
    path: "/api/contact/platform",
    operationId: "contactPlatform",
    summary: "Message to the platform team",
    tags: ["Platform"],
    access: "platform_contact",
    body: platformContactRequestSchema,
    responses: { "201": { description: "Message received", schema: platformContactResponseSchema } },
  },
  {
    method: "post",
    path: "/api/orders/create",
    operationId: "createOrder",
    summary: "Create an order (closed to public agents)",
    description:
      "While PUBLIC_ORDER_RAIL_ENABLED is false every call answers 400 ORDER_DISABLED: send the purchase intention as a lead. Check readiness with the MCP tool quote_order_readiness.",
    tags: ["Orders"],
    access: "order",
    headers: [idempotencyHeader],
    body: createOrderBodySchema,
    responses: {
      "201": {
        description: "Order created, checkout opened",
        schema: successEnvelopeSchema({
          id: "OrderCreatedResponse",
          topLevel: topLevelOf(orderCreatedSchema),
          actions: "object",
          state: merchantState,
        }),
      },
    },
    errors: ["ORDER_DISABLED", "ORDER_TRUST_TOO_LOW", "MERCHANT_NOT_FOUND", "CONFLICT", "PAYMENT_UNAVAILABLE"],
  },
  {
    method: "get",
    path: "/api/merchants/{ab_id}/jsonld",
    operationId: "getMerchantJsonLd",
    summary: "Schema.org JSON-LD",
    tags: ["Merchant documents"],
    access: "read",
    pathParams: abIdParamsSchema,
    responses: {
      "200": {
        description: "A Schema.org LocalBusiness (or a more specific type)",
        contentType: "application/ld+json",
        schema: z
          .looseObject({
            "@context": z.unknown(),
            "@type": z.unknown(),
            name: z.string(),
          })
          .meta({ id: "JsonLdLocalBusiness" }),
        headers: documentCaching,
      },
      "304": notModified,
    },
    errors: ["MERCHANT_NOT_FOUND"],
  },
  {
    method: "get",
    path: "/api/merchants/{ab_id}/ai-digest",
    operationId: "getMerchantAiDigest",
    summary: "Compact AI digest",
    tags: ["Merchant documents"],
    access: "read",
    pathParams: abIdParamsSchema,
    responses: {
      "200": {
        description: "The digest in data",
        schema: successEnvelopeSchema({ id: "AiDigestResponse", data: aiDigestSchema, state: "nullable" }),
        headers: documentCaching,
      },
      "304": notModified,
    },
    errors: ["MERCHANT_NOT_FOUND"],
  },
  {
    method: "get",
    path: "/api/merchants/{ab_id}/clusters",
    operationId: "listMerchantClusters",
    summary: "Question-and-answer clusters of a merchant",
    tags: ["Merchant documents"],
    access: "read",
    pathParams: abIdParamsSchema,
    responses: {
      "200": {
        description: "The clusters in data",
        schema: successEnvelopeSchema({ id: "ClusterListResponse", data: clusterListSchema, state: "nullable" }),
        headers: documentCaching,
      },
      "304": notModified,
    },
    errors: ["MERCHANT_NOT_FOUND"],
  },
  {
    method: "get",
    path: "/api/clusters/{cluster_id}",
    operationId: "getCluster",
    summary: "One question-and-answer cluster",
    tags: ["Merchant documents"],
    access: "read",
    pathParams: clusterParamsSchema,
    responses: {
      "200": {
        description: "The cluster with its nodes and their verification status",
        schema: successEnvelopeSchema({ id: "ClusterResponse", data: clusterDocumentSchema, state: "nullable" }),
        headers: documentCaching,
      },
      "304": notModified,
    },
    errors: ["NOT_FOUND"],
  },
  {
    method: "get",
    path: "/m/{ab_id}/ai.md",
    operationId: "getMerchantAiMd",
    summary: "Plain-text microsite snapshot (Markdown)",
    tags: ["Merchant documents"],
    access: "read",
    pathParams: abIdParamsSchema,
    responses: {
      "200": {
        description: "The merchant as Markdown",
        contentType: "text/markdown",
        schema: z.string(),
        headers: documentCaching,
      },
      "304": notModified,
    },
    errors: ["MERCHANT_NOT_FOUND"],
  },
  {
    method: "get",
    path: "/m/{ab_id}",
    operationId: "getMerchantMicrosite",
    summary: "Merchant microsite (HTML, French)",
    description:
      "For people: an HTML page; unknown, malformed, suspended and archived merchants get a French HTML 404 page.",
    tags: ["Merchant documents"],
    access: "page",
    pathParams: z.object({
      ab_id: z.string().meta({
        description: "The merchant's identifier (ab_ and 8 lowercase letters or digits); anything else is the 404 page",
      }),
    }),
    responses: {
      "200": { description: "The microsite", contentType: "text/html", schema: z.string(), headers: documentCaching },
      "304": notModified,
      "404": { description: "No published merchant (HTML page)", contentType: "text/html", schema: z.string() },
    },
  },
  {
    method: "post",
    path: "/m/{ab_id}",
    operationId: "submitLeadForm",
    summary: "The lead form of a merchant's page, posted without JavaScript (HTML, French)",
    description:
      "For people: the page's form as a browser posts it. The lead is sent as by POST /api/contact/brick (same checks, same duplicate rule) and told to the merchant as typed in its page's form when the page's form token comes with it. The answer is the page again: the tracking number and code (201, or 200 for a duplicate), or the form as typed with each refusal in French next to its field.",
    tags: ["People"],
    access: "page",
    pathParams: abIdParamsSchema,
    bodyType: "form",
    body: leadFormBodySchema,
    responses: {
      "201": { description: "The page, saying the lead was sent", contentType: "text/html", schema: z.string() },
      "200": {
        description: "The page, giving the lead already sent (the same person's duplicate within 24 hours)",
        contentType: "text/html",
        schema: z.string(),
      },
      "400": {
        description: "The page, the form as typed with what to correct",
        contentType: "text/html",
        schema: z.string(),
      },
      "404": { description: "No published merchant (HTML page)", contentType: "text/html", schema: z.string() },
    },
  },
  {
    method: "get",
    path: "/suivi",
    operationId: "getLeadTrackingPage",
    summary: "Follow a request sent to a merchant (HTML, French): the form",
    description:
      "For people: where to paste the tracking code the lead form gave. The code is posted, never put in the URL.",
    tags: ["People"],
    access: "page",
    responses: { "200": { description: "The tracking page", contentType: "text/html", schema: z.string() } },
  },
  {
    method: "post",
    path: "/suivi",
    operationId: "submitLeadTrackingForm",
    summary: "Follow a request sent to a merchant (HTML, French): its status",
    description:
      "For people: the request the tracking code opens (merchant, type, date, whether the merchant's mailbox accepted it), as GET /api/leads/{lead_id} gives it to the holder of the token. what the merchant did in its Abeille space and the answers it wrote there (an answer it sends straight to the person is not shown). A wrong code, another lead's and an unknown lead are the same 404 page.",
    tags: ["People"],
    access: "page",
    bodyType: "form",
    body: trackingFormBodySchema,
    responses: {
      "200": { description: "The request's status", contentType: "text/html", schema: z.string() },
      "400": { description: "No code was given (HTML page)", contentType: "text/html", schema: z.string() },
      "404": { description: "No request has this code (HTML page)", contentType: "text/html", schema: z.string() },
    },
  },
  {
    method: "get",
    path: "/pro",
    operationId: "getMerchantSpace",
    summary: "The merchant space (HTML, French): sign-in, the person's listings and those it can claim",
    description:
      "For merchants. Signed out (no live session cookie): how to get in, with ProConnect or a code sent by post. Signed in: the listings the person manages, and those of its establishment (SIRET) and company (SIREN) it can claim. Never with an API key (403).",
    tags: ["Merchant space"],
    access: "space",
    query: spaceHomeQuerySchema,
    responses: { "200": { description: "The merchant space's door", contentType: "text/html", schema: z.string() } },
  },
  {
    method: "get",
    path: "/pro/connexion",
    operationId: "startProConnectSignIn",
    summary: "Start signing in with ProConnect (a redirect to the provider)",
    description:
      "Keeps state, nonce and PKCE verifier server-side under a short-lived cookie and sends the browser to ProConnect's authorization endpoint, with the `claims` parameter asking `acr` as essential (PROCONNECT_MIN_ACR and above, or certification-dirigeant with niveau=dirigeant) and `amr`. Without PROCONNECT_* configured: a French 404 page saying so.",
    tags: ["Merchant space"],
    access: "space_sign_in",
    query: signInStartQuerySchema,
    responses: {
      "303": { description: "To ProConnect's authorization endpoint", headers: ["Location"] },
      "404": {
        description: "ProConnect is not configured here (HTML page)",
        contentType: "text/html",
        schema: z.string(),
      },
      "502": {
        description: "ProConnect could not be reached (HTML page)",
        contentType: "text/html",
        schema: z.string(),
      },
    },
  },
  {
    method: "get",
    path: "/pro/connexion/retour",
    operationId: "finishProConnectSignIn",
    summary: "ProConnect's redirect URI: ends the sign-in and opens a session",
    description:
      "Checks the answer against the sign-in under way (state, PKCE, the signed ID token and its nonce, the signed userinfo), checks the ID token's acr (at least PROCONNECT_MIN_ACR) and that the userinfo's siren is its siret's, re-checks the person's claims (a claim this sign-in no longer reaches lapses), opens a new session (the browser's previous one ends) and redirects to /pro. A provider's error, a replayed or forged callback, a missing or too low acr, a contradictory siren: a French page.",
    tags: ["Merchant space"],
    access: "space_sign_in",
    query: signInCallbackQuerySchema,
    responses: {
      "303": { description: "Signed in: to /pro, with the session cookie", headers: ["Location"] },
      "400": { description: "The sign-in did not succeed (HTML page)", contentType: "text/html", schema: z.string() },
      "403": {
        description:
          "ProConnect's level of assurance (acr) is missing, unknown or below PROCONNECT_MIN_ACR (HTML page)",
        contentType: "text/html",
        schema: z.string(),
      },
      "404": {
        description: "ProConnect is not configured here (HTML page)",
        contentType: "text/html",
        schema: z.string(),
      },
      "502": {
        description: "ProConnect could not be reached (HTML page)",
        contentType: "text/html",
        schema: z.string(),
      },
    },
  },
  {
    method: "post",
    path: "/pro/deconnexion",
    operationId: "signOutOfMerchantSpace",
    summary: "Sign out of the merchant space (and of ProConnect)",
    description:
      "Needs the CSRF token of the session the cookie names, live or expired. Ends the session, clears the cookie and sends the browser to ProConnect's end_session_endpoint (id_token_hint, post_logout_redirect_uri {BASE_URL}/pro), or to /pro for the letter path or when the cookie names no session.",
    tags: ["Merchant space"],
    access: "space",
    bodyType: "form",
    body: spaceFormBodySchema,
    responses: {
      "303": { description: "Signed out: to ProConnect's end_session_endpoint or to /pro", headers: ["Location"] },
      "403": {
        description: "The CSRF token is missing or not the session's (HTML page)",
        contentType: "text/html",
        schema: z.string(),
      },
    },
  },
  {
    method: "get",
    path: "/pro/{ab_id}",
    operationId: "getMerchantListingSpace",
    summary: "A claimed listing in the merchant space (HTML, French): how agents see it, and its forms",
    description:
      "For the people holding a live claim on the listing. Its status, identity check and trust score with what would raise it, the official facts (not editable), and one form per section: contact and presentation, the lead email (confirmed by a link), hours, products and prices, brand voice, Q&A answers, pause and resume. Signed out: a redirect to /pro; another merchant's listing: 404.",
    tags: ["Merchant space"],
    access: "space",
    pathParams: listingSpaceParamsSchema,
    responses: {
      "200": { description: "The listing's space", contentType: "text/html", schema: z.string() },
      "303": { description: "Not signed in: to /pro", headers: ["Location"] },
      "404": {
        description: "Not a listing this person manages (HTML page)",
        contentType: "text/html",
        schema: z.string(),
      },
    },
  },
  {
    method: "post",
    path: "/pro/{ab_id}",
    operationId: "submitMerchantListingForm",
    summary: "One form of a claimed listing's space (HTML, French)",
    description:
      "Needs the session's CSRF token and a live claim on the listing. The section's change goes through the operator's doors with the merchant (merchant:<claim_id>) as the audit actor and is published by the next refresh. Fields only official sources prove are refused by name, nothing written. Each claim may post PRO_EDITS_HOURLY edits an hour. The answer is the page again, saying what was saved or, beside each field, what to correct, the values typed kept.",
    tags: ["Merchant space"],
    access: "space",
    pathParams: listingSpaceParamsSchema,
    bodyType: "form",
    body: listingFormBodySchema,
    responses: {
      "200": {
        description: "Saved (or nothing to change): the page, saying so",
        contentType: "text/html",
        schema: z.string(),
      },
      "400": {
        description: "Refused: the page, the form as typed with what to correct",
        contentType: "text/html",
        schema: z.string(),
      },
      "403": {
        description: "The CSRF token is missing or not the session's (HTML page)",
        contentType: "text/html",
        schema: z.string(),
      },
      "404": {
        description: "Not a listing this person manages (HTML page)",
        contentType: "text/html",
        schema: z.string(),
      },
      "409": {
        description: "The change is not possible now (the page, saying why)",
        contentType: "text/html",
        schema: z.string(),
      },
      "429": {
        description: "Too many edits for this claim this hour (the page, saying when to retry)",
        contentType: "text/html",
        schema: z.string(),
      },
    },
  },
  {
    method: "get",
    path: "/pro/{ab_id}/e-mail/confirmer",
    operationId: "showLeadEmailConfirmation",
    summary: "The link sent to a new lead email: a page with the button that confirms it",
    description:
      "Opening the link changes nothing (mail scanners open links); its button posts the token. No session needed: holding the mailbox is the proof.",
    tags: ["Merchant space"],
    access: "space",
    pathParams: listingSpaceParamsSchema,
    query: leadEmailConfirmationQuerySchema,
    responses: {
      "200": { description: "The confirmation page", contentType: "text/html", schema: z.string() },
      "404": { description: "Not a token of a link (HTML page)", contentType: "text/html", schema: z.string() },
    },
  },
  {
    method: "post",
    path: "/pro/{ab_id}/e-mail/confirmer",
    operationId: "confirmLeadEmail",
    summary: "Confirm a new lead email (its link's token)",
    description:
      "The waiting address becomes the listing's lead email (audit actor: the merchant who asked). The token is single use and expires after 48 hours; a later request replaces it. Unknown or another listing's token: 404; used, replaced or expired: 409, said in French.",
    tags: ["Merchant space"],
    access: "space",
    pathParams: listingSpaceParamsSchema,
    bodyType: "form",
    body: leadEmailConfirmationFormSchema,
    responses: {
      "200": { description: "Confirmed (HTML page)", contentType: "text/html", schema: z.string() },
      "404": { description: "Not a valid link (HTML page)", contentType: "text/html", schema: z.string() },
      "409": {
        description: "The link was used, replaced or has expired (HTML page)",
        contentType: "text/html",
        schema: z.string(),
      },
    },
  },
  {
    method: "post",
    path: "/pro/revendiquer",
    operationId: "claimListing",
    summary: "Claim a listing of the person's establishment or company",
    description:
      "Needs the session's CSRF token. A listing whose SIRET is the person's siret, or whose SIREN is its siren; another company's listing is 404. Suspended and archived listings are refused (409, why in French). Recorded in the merchant's audit log.",
    tags: ["Merchant space"],
    access: "space_claim",
    bodyType: "form",
    body: claimFormBodySchema,
    responses: {
      "303": { description: "Claimed: to /pro", headers: ["Location"] },
      "403": {
        description: "The CSRF token is missing or not the session's (HTML page)",
        contentType: "text/html",
        schema: z.string(),
      },
      "404": {
        description: "Not a listing of the person's establishment or company (HTML page)",
        contentType: "text/html",
        schema: z.string(),
      },
      "409": {
        description: "The listing cannot be claimed (HTML page saying why)",
        contentType: "text/html",
        schema: z.string(),
      },
    },
  },
  {
    method: "get",
    path: "/pro/code",
    operationId: "getLetterCodePage",
    summary: "Enter the code of a letter sent by post (HTML, French): the form",
    description:
      "For merchants without ProConnect: the code printed on the letter and an email address. Sets the abeille_pro_formulaire cookie its form's CSRF token is bound to.",
    tags: ["Merchant space"],
    access: "space",
    responses: { "200": { description: "The code form", contentType: "text/html", schema: z.string() } },
  },
  {
    method: "post",
    path: "/pro/code",
    operationId: "submitLetterCode",
    summary: "Enter the code of a letter sent by post: claims its establishment and signs in",
    description:
      "Needs the form's CSRF token (bound to the abeille_pro_formulaire cookie). A right code claims the letter's establishment, and only it (via letter, in the merchant's audit log), opens a session (the browser's previous one ends) and redirects to /pro. A code works once, for 60 days; 5 wrong tries lock it; a newer letter supersedes it. Budgets: the client address's sign-in budget (PRO_SIGN_INS_HOURLY), and 10 tries an hour per code.",
    tags: ["Merchant space"],
    access: "space_sign_in",
    bodyType: "form",
    body: letterCodeFormBodySchema,
    responses: {
      "303": { description: "Signed in: to /pro, with the session cookie", headers: ["Location"] },
      "400": {
        description: "The form again: a code or address that is not well formed, or a wrong code (a try counted)",
        contentType: "text/html",
        schema: z.string(),
      },
      "403": {
        description:
          "The form again: the code is locked after too many wrong tries, or the CSRF token is missing or wrong",
        contentType: "text/html",
        schema: z.string(),
      },
      "409": {
        description: "The form again: the code was used, or its listing is suspended or archived",
        contentType: "text/html",
        schema: z.string(),
      },
      "410": {
        description: "The form again: the code expired, or a newer letter superseded it",
        contentType: "text/html",
        schema: z.string(),
      },
      "429": {
        description: "The form again: this code was tried too often this hour (Retry-After)",
        contentType: "text/html",
        schema: z.string(),
      },
    },
  },
  {
    method: "get",
    path: "/pro/lien",
    operationId: "getSignInLinkPage",
    summary: "Ask a sign-in link by email, or open one (HTML, French)",
    description:
      "Without jeton: the form asking the email address given with a letter's code. With jeton (from the email): a button that signs in (the link is spent by the POST, not by opening it), or 410 when the link was used or expired.",
    tags: ["Merchant space"],
    access: "space",
    query: signInLinkQuerySchema,
    responses: {
      "200": {
        description: "The request form, or the sign-in button of a link",
        contentType: "text/html",
        schema: z.string(),
      },
      "410": { description: "The link was used or expired (HTML page)", contentType: "text/html", schema: z.string() },
    },
  },
  {
    method: "post",
    path: "/pro/lien",
    operationId: "requestSignInLink",
    summary: "Send a sign-in link to the email address of a letter claim",
    description: `Needs the form's CSRF token. For each live claim made through a letter with this address, a link valid ${SIGN_IN_LINK_VALID_MINUTES} minutes and once is sent by email (the outbox). The answer is the same whatever the address. Each email address may ask ${SIGN_IN_LINK_REQUESTS_PER_EMAIL_HOURLY} links an hour, from whatever client addresses (then 429 with Retry-After, the same page whether the address has a claim or not), besides each client address's own sign-in budget.`,
    tags: ["Merchant space"],
    access: "space_sign_in",
    bodyType: "form",
    body: signInLinkRequestBodySchema,
    responses: {
      "200": {
        description: "The same page whatever the address: a link was sent if the address has a letter claim",
        contentType: "text/html",
        schema: z.string(),
      },
      "400": {
        description: "The form again: the address is not well formed",
        contentType: "text/html",
        schema: z.string(),
      },
      "403": {
        description: "The form again: the CSRF token is missing or wrong",
        contentType: "text/html",
        schema: z.string(),
      },
    },
  },
  {
    method: "post",
    path: "/pro/lien/connexion",
    operationId: "useSignInLink",
    summary: "Sign in with a link from the email",
    description:
      "Needs the form's CSRF token. Spends the link (once), opens a session for its claim's person (the browser's previous one ends) and redirects to /pro. A link used, expired, forged, or whose claim was revoked: 410.",
    tags: ["Merchant space"],
    access: "space_sign_in",
    bodyType: "form",
    body: signInLinkUseBodySchema,
    responses: {
      "303": { description: "Signed in: to /pro, with the session cookie", headers: ["Location"] },
      "403": {
        description: "The form again: the CSRF token is missing or wrong",
        contentType: "text/html",
        schema: z.string(),
      },
      "410": { description: "The link was used or expired (HTML page)", contentType: "text/html", schema: z.string() },
    },
  },
  {
    method: "post",
    path: "/api/agents/register",
    operationId: "registerAgent",
    summary: "Register an agent and receive an API key",
    description:
      "Levels 1 and 2 are active at once; 3 and 4 wait for manual verification. The API key is shown only in this answer.",
    tags: ["Agents"],
    access: "agent_registration",
    body: registerAgentBodySchema,
    responses: {
      "201": {
        description: "The agent record with its API key",
        schema: successEnvelopeSchema({
          id: "AgentRegistrationResponse",
          topLevel: topLevelOf(agentRegistrationSchema),
        }),
      },
    },
  },
  {
    method: "get",
    path: "/api/agents/verify",
    operationId: "verifyAgentKey",
    summary: "Check an API key",
    description:
      "Send the key to check as you send it on every call: Authorization: Bearer <api key> (or X-API-Key). 200 with valid false for an unknown, revoked or malformed key (never 401: the key checked is not the caller's credential; the call counts on the client address's anonymous budget); 400 when no key is sent. The token query parameter is still read, deprecated: a key in a URL ends up in proxy logs and shell history.",
    tags: ["Agents"],
    access: "key_check",
    query: verifyAgentQuerySchema,
    responses: {
      "200": {
        description: "What the key allows",
        schema: successEnvelopeSchema({
          id: "AgentVerificationResponse",
          topLevel: topLevelOf(agentVerificationSchema),
        }),
      },
    },
  },
  {
    method: "post",
    path: "/api/attribution/session",
    operationId: "openAttributionSession",
    summary: "Open an attribution session",
    tags: ["Attribution"],
    access: "attribution",
    body: openSessionBodySchema,
    responses: {
      "201": {
        description: "The session",
        schema: successEnvelopeSchema({ id: "AttributionSessionResponse", data: attributionSessionSchema }),
      },
    },
    errors: ["MERCHANT_NOT_FOUND"],
  },
  {
    method: "post",
    path: "/api/attribution/convert",
    operationId: "convertAttributionSession",
    summary: "Mark an attribution session converted",
    tags: ["Attribution"],
    access: "attribution",
    body: convertSessionBodySchema,
    responses: {
      "200": {
        description: "The conversion",
        schema: successEnvelopeSchema({ id: "AttributionConversionResponse", data: attributionConversionSchema }),
      },
    },
    errors: ["NOT_FOUND", "CONFLICT"],
  },
  {
    method: "post",
    path: "/api/mcp",
    operationId: "mcp",
    summary: "MCP tool endpoint (JSON-RPC 2.0)",
    description:
      "Model Context Protocol over Streamable HTTP, stateless, plain JSON answers. Revision 2026-07-28: server/discover, then tools/list and tools/call, each request carrying params._meta (protocol version, client info, capabilities) and the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers. Revisions 2025-03-26 to 2025-11-25: initialize, tools/list, tools/call. Tool schemas at /.well-known/mcp.json, server card at /api/mcp/server-card (and /.well-known/mcp/server-card.json). One message per POST, or for 2025-03-26 (MCP-Protocol-Version 2025-03-26 or absent) a batch of up to 20, answered with the array of its requests' answers, each request counting on the rate limits. An MCP-Protocol-Version header naming a revision not spoken is 400 with the versions spoken in error.data.supported. Method-level errors (-32601, -32602) answer 200 with an error object and the request id; framing errors (-32700, -32600) answer 400, 413 or 415. A failed tool call is a result with isError true whose structuredContent is the REST error envelope. A Host or Origin header naming another site is refused with 403 (DNS-rebinding protection). The kill switch (503), API keys (401, 403) and rate limits (429) answer JSON-RPC errors with that HTTP status, the request id echoed and the service's error code in error.data.code. GET answers 405.",
    tags: ["Tools"],
    access: "tool",
    jsonRpc: true,
    body: mcpRequestBodySchema,
    responses: {
      ...jsonRpcAnswers(
        "Parse error (-32700), invalid request (-32600: a batch outside 2025-03-26 too) or unsupported MCP-Protocol-Version (-32022)",
      ),
      "200": {
        description: "A JSON-RPC response (result or error), or an array of them for a batch",
        schema: mcpResponseBodySchema,
      },
      "202": { description: "A notification, a response message or a batch of only those was accepted; no body" },
    },
  },
  {
    method: "get",
    path: "/.well-known/mcp.json",
    operationId: "getMcpDiscovery",
    summary: "MCP tool schemas and endpoint",
    tags: ["Discovery"],
    access: "open",
    responses: {
      "200": {
        description: "The tools of /api/mcp, as tools/list gives them, and how to reach the endpoint",
        schema: successEnvelopeSchema({ id: "McpDiscoveryResponse", topLevel: mcpDiscoveryShape }),
      },
    },
  },
  {
    method: "post",
    path: "/api/a2a",
    operationId: "a2a",
    summary: "A2A endpoint (Agent2Agent protocol 1.0 and 0.3, JSON-RPC binding)",
    description:
      'Agent2Agent protocol 1.0 over JSON-RPC 2.0 (send the A2A-Version: 1.0 header; the card is at /.well-known/agent-card.json), and 0.3 for clients that send no A2A-Version (message/send, tasks/get, tasks/cancel, 0.3 messages and tasks). SendMessage with a data part {"skill": <skill id>, "arguments": {...}} runs the MCP tool of that name (same arguments, same domain functions as the REST routes); a message with text only searches merchants. Success is an agent message whose data part is the navigation envelope; a refusal is a task in state rejected or failed whose status message carries the guidance and the error envelope. GetTask and ListTasks read the caller\'s own tasks. No streaming, no push notifications. A Host or Origin header naming another site is refused with 403. The kill switch (503), API keys (401, 403) and rate limits (429) answer JSON-RPC errors with that HTTP status.',
    tags: ["Tools"],
    access: "tool",
    jsonRpc: true,
    body: jsonRpcRequestSchema,
    responses: jsonRpcAnswers("Parse error (-32700), invalid request (-32600) or unsupported A2A version"),
  },
  {
    method: "get",
    path: "/.well-known/agent-card.json",
    operationId: "getAgentCard",
    summary: "A2A agent card",
    tags: ["Discovery"],
    access: "open",
    headers: [
      {
        name: "A2A-Version",
        description:
          "1.0 for the A2A 1.0 card; without it (as A2A 0.3 clients call) or with 0.3, the card in the 0.3 shape",
        schema: z.string().max(20),
      },
    ],
    responses: {
      "200": {
        description: "The agent card (bare, as A2A clients read it), in the shape of the A2A version asked for",
        schema: z.union([agentCardSchema, legacyAgentCardSchema]),
      },
    },
  },
  {
    method: "get",
    path: "/.well-known/ai-catalog.json",
    operationId: "getAiCatalog",
    summary: "AI Catalog",
    description:
      "The AI Catalog (specVersion 1.0) of this service: its MCP server card (/api/mcp/server-card) and its A2A agent card (/.well-known/agent-card.json), by URL. `signature` is a detached JWS (EdDSA, `kid` in the protected header) over the RFC 8785 canonical JSON of the catalog without `signature`: put the base64url of those bytes between the two dots and verify with the key set at /.well-known/ab-public-keys.json. Served as application/ai-catalog+json, readable from any origin, cached an hour, with an ETag (If-None-Match answers 304).",
    tags: ["Discovery"],
    access: "open",
    responses: {
      "200": {
        description: "The AI Catalog (bare, as catalog readers read it)",
        schema: aiCatalogSchema,
        contentType: "application/ai-catalog+json",
        headers: documentCaching,
      },
      "304": notModified,
    },
  },
  {
    method: "get",
    path: "/api/mcp/server-card",
    operationId: "getMcpServerCardAtEndpoint",
    summary: "MCP server card (at the MCP endpoint)",
    description:
      "The MCP server card (SEP-2127, schema v1) at the location the proposal reserves, `<MCP endpoint>/server-card`: identity, endpoint and protocol versions, before any connection. Served as application/mcp-server-card+json, readable from any origin, cached an hour, with an ETag (If-None-Match answers 304). The AI Catalog at /.well-known/ai-catalog.json points here.",
    tags: ["Discovery"],
    access: "open",
    responses: {
      "200": {
        description: "The MCP server card (bare, as MCP clients read it)",
        schema: mcpServerCardSchema,
        contentType: "application/mcp-server-card+json",
        headers: documentCaching,
      },
      "304": notModified,
    },
  },
  {
    method: "get",
    path: "/.well-known/mcp/server-card.json",
    operationId: "getMcpServerCard",
    summary: "MCP server card",
    description:
      "The same card as /api/mcp/server-card, with the same headers, where clients of the earlier proposal look for it.",
    tags: ["Discovery"],
    access: "open",
    responses: {
      "200": {
        description: "The MCP server card (bare, as MCP clients read it)",
        schema: mcpServerCardSchema,
        contentType: "application/mcp-server-card+json",
        headers: documentCaching,
      },
      "304": notModified,
    },
  },
  {
    method: "get",
    path: "/openapi.json",
    operationId: "getOpenApi",
    summary: "This OpenAPI document",
    tags: ["Discovery"],
    access: "open",
    responses: {
      "200": {
        description: "OpenAPI 3.1",
        schema: z.looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.looseObject({}) }),
      },
    },
  },
  {
    method: "get",
    path: "/llms.txt",
    operationId: "getLlmsTxt",
    summary: "Service description for language models",
    tags: ["Discovery"],
    access: "open",
    responses: { "200": { description: "Markdown text (llms.txt)", contentType: "text/plain", schema: z.string() } },
  },
  {
    method: "get",
    path: "/api/health",
    operationId: "getHealth",
    summary: "Health check",
    description: "Answers even while agent access is suspended.",
    tags: ["Operations"],
    access: "open",
    responses: { "200": { description: "The service and its database answer", schema: healthResponseSchema } },
  },
  {
    method: "get",
    path: "/",
    operationId: "getHome",
    summary: "The front door for people (HTML, French)",
    description:
      "What Abeille is, and a search by trade and town: the same search as /api/registry/search (the town read as a commune, searched around), with results linking to the merchant pages.",
    tags: ["People"],
    access: "page",
    query: peopleQuerySchema,
    responses: {
      "200": {
        description: "The front door, with results when a search was made",
        contentType: "text/html",
        schema: z.string(),
      },
      "400": {
        description: "The search could not be read (HTML page, in French)",
        contentType: "text/html",
        schema: z.string(),
      },
    },
  },
  {
    method: "get",
    path: "/confidentialite",
    operationId: "getPrivacyNotice",
    summary: "Privacy notice (HTML, French)",
    description:
      "Who processes the personal data the forms collect, why, on what basis, how long, who receives it, and the person's rights and how to use them.",
    tags: ["People"],
    access: "page",
    responses: { "200": { description: "The privacy notice", contentType: "text/html", schema: z.string() } },
  },
  {
    method: "get",
    path: "/mentions-legales",
    operationId: "getLegalNotice",
    summary: "Legal notice (HTML, French)",
    tags: ["People"],
    access: "page",
    responses: { "200": { description: "The legal notice", contentType: "text/html", schema: z.string() } },
  },
  {
    method: "get",
    path: "/robots.txt",
    operationId: "getRobotsTxt",
    summary: "Rules for crawlers, and where the sitemap is",
    tags: ["Discovery"],
    access: "open",
    responses: { "200": { description: "robots.txt", contentType: "text/plain", schema: z.string() } },
  },
  {
    method: "get",
    path: "/sitemap.xml",
    operationId: "getSitemap",
    summary: "Sitemap of every published merchant page and ai.md",
    description: `Every URL when they fit one file (${2 * MERCHANTS_PER_FILE + 1} at most), else an index of /sitemaps/{page}.`,
    tags: ["Discovery"],
    access: "open",
    responses: {
      "200": { description: "A sitemap or a sitemap index", contentType: "application/xml", schema: z.string() },
    },
  },
  {
    method: "get",
    path: "/sitemaps/{page}",
    operationId: "getSitemapPart",
    summary: "One file of a large sitemap",
    description: "Only when /sitemap.xml is an index; 404 past the last file.",
    tags: ["Discovery"],
    access: "open",
    pathParams: sitemapPartParamsSchema,
    responses: { "200": { description: "A sitemap", contentType: "application/xml", schema: z.string() } },
    errors: ["NOT_FOUND"],
  },
  {
    method: "get",
    path: "/pro/{ab_id}/demandes",
    operationId: "getMerchantLeads",
    summary: "The leads of a listing, in the merchant space (HTML, French)",
    description:
      "For a person signed in with a live claim on the listing: its leads, newest first, 20 a page, with their status (to handle, answered, handled, declined), whether the email reached the merchant, what was asked and the follow-ups; anonymised leads say so. Signed out: a redirect to /pro. Another merchant's listing: the space's 404 page. Never with an API key (403).",
    tags: ["Merchant space"],
    access: "space",
    pathParams: merchantLeadsParamsSchema,
    query: merchantLeadsQuerySchema,
    responses: {
      "200": { description: "The listing's leads", contentType: "text/html", schema: z.string() },
      "303": { description: "Signed out: to /pro", headers: ["Location"] },
      "404": { description: "Not a listing of this person (HTML page)", contentType: "text/html", schema: z.string() },
    },
  },
  {
    method: "get",
    path: "/pro/{ab_id}/demandes/{lead_id}",
    operationId: "getMerchantLead",
    summary: "One lead of a listing, in the merchant space (HTML, French)",
    description:
      "The lead (contact, message, details, the software that sent it), its follow-ups and the merchant's answers with their delivery, and the answer form. Signed out: a redirect to /pro. A lead of another listing, or a listing not the person's: the space's 404 page.",
    tags: ["Merchant space"],
    access: "space",
    pathParams: merchantLeadParamsSchema,
    query: merchantLeadQuerySchema,
    responses: {
      "200": { description: "The lead", contentType: "text/html", schema: z.string() },
      "303": { description: "Signed out: to /pro", headers: ["Location"] },
      "404": {
        description: "Not a lead of this person's listing (HTML page)",
        contentType: "text/html",
        schema: z.string(),
      },
    },
  },
  {
    method: "post",
    path: "/pro/{ab_id}/demandes/{lead_id}",
    operationId: "respondToMerchantLead",
    summary: "Answer a lead and/or mark it handled or declined, from the merchant space",
    description:
      "Needs the session's CSRF token. The answer (at most 4000 characters) is recorded and emailed to the person (Reply-To the merchant's lead address); check_lead_status and /suivi show it in merchant_response. outcome answered keeps the lead open, handled or declined close it (with or without an answer). At most 10 answers a lead and 30 a listing an hour. Then a 303 back to the lead.",
    tags: ["Merchant space"],
    access: "space",
    pathParams: merchantLeadParamsSchema,
    bodyType: "form",
    body: leadResponseFormSchema,
    responses: {
      "303": { description: "Recorded: back to the lead's page", headers: ["Location"] },
      "400": {
        description: "A field to correct, shown next to it (HTML page)",
        contentType: "text/html",
        schema: z.string(),
      },
      "403": {
        description: "The CSRF token is missing or not the session's (HTML page)",
        contentType: "text/html",
        schema: z.string(),
      },
      "404": {
        description: "Not a lead of this person's listing (HTML page)",
        contentType: "text/html",
        schema: z.string(),
      },
      "409": {
        description: "The lead has all the answers it takes (HTML page)",
        contentType: "text/html",
        schema: z.string(),
      },
      "429": {
        description: "The listing sent all the answers it may this hour (HTML page)",
        contentType: "text/html",
        schema: z.string(),
        headers: ["Retry-After"],
      },
    },
  },
] as const satisfies readonly OperationSpec[];

/** Every operation (the table above, as the OpenAPI builder and the tests read it). */
export const OPERATIONS: readonly OperationSpec[] = OPERATION_TABLE;

export type OperationId = (typeof OPERATION_TABLE)[number]["operationId"];
export type OperationOf<Id extends OperationId> = Extract<(typeof OPERATION_TABLE)[number], { operationId: Id }>;

/** The description of one operation, by its id (typed: its schemas keep their types). */
export function operation<Id extends OperationId>(id: Id): OperationOf<Id> {
  const found = OPERATION_TABLE.find((candidate) => candidate.operationId === id);
  if (!found) throw new Error(`no operation ${id}`);
  return found as OperationOf<Id>;
}
