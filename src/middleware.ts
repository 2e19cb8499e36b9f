import { defineMiddleware } from "astro:middleware";

/** Gives every request an id that logs, error envelopes and the X-Request-Id header share. */
export const onRequest = defineMiddleware(async (context, next) => {
  const incoming = context.request.headers.get("x-request-id");
  const requestId = incoming && /^[A-Za-z0-9._-]{1,64}$/.test(incoming) ? incoming : crypto.randomUUID();
  (context.locals as { requestId?: string }).requestId = requestId;
  const response = await next();
  if (!response.headers.has("x-request-id")) {
    try {
      response.headers.set("x-request-id", requestId);
    } catch {
      // Some responses (static files, redirects) have immutable headers; the id is then in the logs only.
    }
  }
  return response;
});
