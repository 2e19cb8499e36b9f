import { reply } from "../../http/reply.ts";
import { methodNotAllowed, route } from "../../http/route.ts";
import { operation } from "../../openapi/operations.ts";
import { JWKS_CONTENT_TYPE, renderJwks } from "../../signing/jwks-file.ts";
import { JWKS_MAX_AGE_SECONDS } from "../../signing/policy.ts";
import { keyStoreFor } from "../../signing/registry.ts";

/**
 * The public key set (RFC 7517), bare rather than in the envelope so any JOSE library reads it.
 * Cached 300 s: a rotated key is published an hour before it signs (see src/signing/policy.ts).
 * Astro routes `src/pages/.well-known/` (the one dot-folder it does not skip).
 */
export const GET = route(operation("getJwks"), ({ app, context }) =>
  reply(200, renderJwks(keyStoreFor(app).jwks()), {
    "content-type": JWKS_CONTENT_TYPE,
    "cache-control": `public, max-age=${JWKS_MAX_AGE_SECONDS}`,
    "x-request-id": context.requestId,
  }),
);

export const ALL = methodNotAllowed(["GET"]);
