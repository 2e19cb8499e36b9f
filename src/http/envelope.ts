import { type Action, type MerchantState, type Meta, PROTOCOL, PROTOCOL_VERSION } from "../schemas/envelope.ts";

/** What every response needs to know about the request it answers. */
export interface RequestContext {
  baseUrl: string;
  requestId: string;
  /** Absolute URL of the request, built on BASE_URL. */
  selfUrl: string;
  now: Date;
}

export function meta(context: RequestContext): Meta {
  return {
    protocol: PROTOCOL,
    version: PROTOCOL_VERSION,
    timestamp: context.now.toISOString(),
    request_id: context.requestId,
  };
}

export interface SuccessParts {
  /** Payload carried in `data`; null when the operation lists its fields at the top level. */
  data?: unknown;
  /** Fields the contract places at the top level of the envelope (search, resolve, leads, ...). */
  topLevel?: Record<string, unknown>;
  actions?: Action[] | Record<string, Action>;
  links?: Record<string, string>;
  state?: MerchantState | null;
}

/** The one builder of the navigation envelope for successful answers. */
export function successEnvelope(context: RequestContext, parts: SuccessParts): Record<string, unknown> {
  return {
    success: true,
    ...(parts.topLevel ?? {}),
    data: parts.data ?? null,
    _actions: parts.actions ?? [],
    _links: { self: context.selfUrl, ...(parts.links ?? {}) },
    _state: parts.state ?? null,
    _meta: meta(context),
  };
}

export interface ErrorParts {
  code: string;
  message: string;
  data: { issues: { path: string; message: string }[] } | null;
  blockedBecause?: string[];
  actions: Action[];
  links?: Record<string, string>;
}

export function errorEnvelope(context: RequestContext, parts: ErrorParts): Record<string, unknown> {
  return {
    success: false,
    data: parts.data,
    error: {
      code: parts.code,
      message: parts.message,
      ...(parts.blockedBecause ? { blocked_because: parts.blockedBecause } : {}),
    },
    _actions: parts.actions,
    _links: { self: context.selfUrl, ...(parts.links ?? {}) },
    _state: null,
    _meta: meta(context),
  };
}
