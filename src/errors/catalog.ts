import { action } from "../domain/actions.ts";
import type { Action } from "../schemas/envelope.ts";

/**
 * The one table of error codes: HTTP status, a default message, and the recovery steps an agent
 * can take next. Domain code raises codes from here; src/http/respond.ts renders them.
 */
export interface ErrorContext {
  baseUrl: string;
  abId?: string;
  retryAfterSeconds?: number;
}

interface ErrorDefinition {
  status: number;
  message: string;
  recovery: (context: ErrorContext) => Action[];
}

const searchAction = (baseUrl: string) =>
  action("search", "GET", `${baseUrl}/api/registry/search?q={q}`, "Search the registry", [
    { name: "q", type: "string", required: true },
  ]);
const docsAction = (baseUrl: string) =>
  action("describedby", "GET", `${baseUrl}/openapi.json`, "Read the API description");
const platformContactAction = (baseUrl: string) =>
  action("contact_platform", "POST", `${baseUrl}/api/contact/platform`, "Write to the platform team", [
    { name: "type", type: "string", required: true },
    { name: "name", type: "string", required: true },
    { name: "email", type: "email", required: true },
    { name: "message", type: "string", required: true },
  ]);
export const createLeadAction = (baseUrl: string) =>
  action("create_lead", "POST", `${baseUrl}/api/contact/brick`, "Send a lead to the merchant instead", [
    { name: "ab_id", type: "string", required: true },
    { name: "contact_name", type: "string", required: true },
    { name: "contact_email", type: "email", required: true },
    { name: "lead_type", type: "enum", required: true },
    { name: "message", type: "text", required: false },
  ]);

export const errorCatalog = {
  VALIDATION_ERROR: {
    status: 400,
    message: "The request is invalid; see data.issues",
    recovery: ({ baseUrl }) => [docsAction(baseUrl)],
  },
  MERCHANT_NOT_FOUND: {
    status: 404,
    message: "No active merchant has this ab_id",
    recovery: ({ baseUrl }) => [searchAction(baseUrl)],
  },
  TRUST_TOO_LOW: {
    status: 404,
    message: "Deprecated: the merchant's trust is too low for this surface",
    recovery: ({ baseUrl }) => [searchAction(baseUrl)],
  },
  CONTACT_DISABLED: {
    status: 400,
    message: "This merchant cannot be contacted right now; see error.blocked_because",
    recovery: ({ baseUrl, abId }) => [
      ...(abId
        ? [action("merchant", "GET", `${baseUrl}/api/registry/resolve/${abId}`, "Read the merchant's profile")]
        : []),
      searchAction(baseUrl),
      platformContactAction(baseUrl),
    ],
  },
  ORDER_DISABLED: {
    status: 400,
    message: "Orders are closed to public agents; send the purchase intention as a lead",
    recovery: ({ baseUrl }) => [createLeadAction(baseUrl)],
  },
  ORDER_TRUST_TOO_LOW: {
    status: 403,
    message: "The merchant's trust score or payment setup does not allow orders; send a lead",
    recovery: ({ baseUrl }) => [createLeadAction(baseUrl)],
  },
  PAYMENT_UNAVAILABLE: {
    status: 502,
    message: "The payment provider could not open a checkout; no order was created. Retry later or send a lead",
    recovery: ({ baseUrl }) => [createLeadAction(baseUrl)],
  },
  UNAUTHORIZED: {
    status: 401,
    message: "The API key presented is unknown, revoked or malformed",
    recovery: ({ baseUrl }) => [
      action("register_agent", "POST", `${baseUrl}/api/agents/register`, "Register for a new API key", [
        { name: "agent_name", type: "string", required: true },
        { name: "contact_email", type: "email", required: true },
        { name: "requested_level", type: "integer", required: true },
      ]),
    ],
  },
  FORBIDDEN: {
    status: 403,
    message: "The API key does not carry the permission this operation needs",
    recovery: ({ baseUrl }) => [docsAction(baseUrl)],
  },
  NOT_FOUND: {
    status: 404,
    message: "No such resource",
    recovery: ({ baseUrl }) => [docsAction(baseUrl)],
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    message: "This method is not allowed on this route; see the Allow header",
    recovery: ({ baseUrl }) => [docsAction(baseUrl)],
  },
  CONFLICT: {
    status: 409,
    message: "The resource is not in a state that allows this operation",
    recovery: ({ baseUrl }) => [docsAction(baseUrl)],
  },
  TRUST_ATTESTATION_WITHDRAWN: {
    status: 410,
    message: "The trust attestation route is retired; read the signed verification manifest instead",
    recovery: ({ baseUrl, abId }) => [
      action(
        "verification_manifest",
        "GET",
        `${baseUrl}/api/registry/verify/${abId ?? "{ab_id}"}`,
        "Read the signed verification manifest",
      ),
      action("jwks", "GET", `${baseUrl}/.well-known/ab-public-keys.json`, "Read the public key set"),
    ],
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    message: "The request body is larger than 64 KiB",
    recovery: ({ baseUrl }) => [docsAction(baseUrl)],
  },
  RATE_LIMITED: {
    status: 429,
    message: "Quota exceeded; retry after the delay given in Retry-After",
    recovery: ({ baseUrl }) => [
      action("register_agent", "POST", `${baseUrl}/api/agents/register`, "Register an agent for a higher quota"),
    ],
  },
  REQUEST_REFUSED: {
    status: 403,
    message: "The request was refused",
    recovery: ({ baseUrl }) => [platformContactAction(baseUrl), action("home", "GET", `${baseUrl}/`, "Home")],
  },
  INTERNAL_ERROR: {
    status: 500,
    message: "Unexpected fault; quote the request id to the platform team",
    recovery: ({ baseUrl }) => [platformContactAction(baseUrl)],
  },
  SEARCH_UNAVAILABLE: {
    status: 503,
    message: "The search engine does not answer right now; retry after the delay given in Retry-After",
    recovery: ({ baseUrl }) => [
      searchAction(baseUrl),
      action("changes", "GET", `${baseUrl}/api/registry/changes`, "Read the registry's change feed instead"),
    ],
  },
  STORE_UNAVAILABLE: {
    status: 503,
    message: "The registry's database does not answer right now; retry after the delay given in Retry-After",
    recovery: ({ baseUrl }) => [action("health", "GET", `${baseUrl}/api/health`, "Check the service's health")],
  },
  SERVICE_SUSPENDED: {
    status: 503,
    message: "Agent access is suspended by the operators; the duration is unknown",
    recovery: ({ baseUrl }) => [action("home", "GET", `${baseUrl}/llms.txt`, "Read the service description")],
  },
} satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof errorCatalog;
export const errorCodes = Object.keys(errorCatalog) as ErrorCode[];
