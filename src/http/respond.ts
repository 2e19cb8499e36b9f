import { errorCatalog } from "../errors/catalog.ts";
import { ServiceError, serviceErrorOf } from "../errors/service-error.ts";
import { logger } from "../logging.ts";
import { errorEnvelope, type RequestContext, type SuccessParts, successEnvelope } from "./envelope.ts";
import type { Reply } from "./reply.ts";

export const JSON_TYPE = "application/json; charset=utf-8";

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return { status, headers: { "content-type": JSON_TYPE, ...headers }, body: JSON.stringify(body) };
}

export function ok(
  context: RequestContext,
  parts: SuccessParts,
  init: { status?: number; headers?: Record<string, string> } = {},
): Reply {
  return jsonResponse(init.status ?? 200, successEnvelope(context, parts), {
    "x-request-id": context.requestId,
    ...(init.headers ?? {}),
  });
}

/** The one place a failure becomes an HTTP answer. Unknown faults never leak their details. */
export function renderError(context: RequestContext, failure: unknown): Reply {
  const { status, headers, body } = errorAnswer(context, failure);
  return jsonResponse(status, body, headers);
}

/** A failure's status, headers and envelope, for answers that are not HTTP bodies (tool results). */
export function errorAnswer(
  context: RequestContext,
  failure: unknown,
): { status: number; headers: Record<string, string>; body: Record<string, unknown> } {
  const error = serviceErrorOf(failure) ?? internalError(context, failure);
  const definition = errorCatalog[error.code];
  const headers: Record<string, string> = { "x-request-id": context.requestId, ...(error.details.headers ?? {}) };
  if (error.details.allow) headers.allow = error.details.allow.join(", ");
  if (error.details.retryAfterSeconds !== undefined) headers["retry-after"] = String(error.details.retryAfterSeconds);
  const body = errorEnvelope(context, {
    code: error.code,
    message: error.message === error.code ? definition.message : error.message,
    data: error.details.issues ? { issues: error.details.issues } : null,
    actions: definition.recovery({
      baseUrl: context.baseUrl,
      ...(error.details.abId ? { abId: error.details.abId } : {}),
    }),
    ...(error.details.blockedBecause ? { blockedBecause: error.details.blockedBecause } : {}),
  });
  return { status: definition.status, headers, body };
}

function internalError(context: RequestContext, failure: unknown): ServiceError {
  logger.error("unhandled fault", {
    request_id: context.requestId,
    error: failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure),
    stack: failure instanceof Error ? failure.stack : undefined,
  });
  return new ServiceError("INTERNAL_ERROR", `Unexpected fault (request id ${context.requestId})`);
}
