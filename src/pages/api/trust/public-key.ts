import { ok } from "../../../http/respond.ts";
import { methodNotAllowed, route } from "../../../http/route.ts";
import { operation } from "../../../openapi/operations.ts";
import { jwksAction, jwksUrl } from "../../../signing/actions.ts";
import { JWKS_MAX_AGE_SECONDS } from "../../../signing/policy.ts";
import { keyStoreFor } from "../../../signing/registry.ts";

/** Legacy alias: the one key that signs now. The key set also holds the next and recent keys. */
export const GET = route(operation("getPublicKey"), ({ app, context }) => {
  const { kid, jwk, pem } = keyStoreFor(app).activeKey();
  return ok(
    context,
    {
      data: { kid, alg: "EdDSA", jwk, pem },
      actions: [jwksAction(app.config.baseUrl)],
      links: { canonical: `${app.config.baseUrl}/api/trust/public-key`, jwks: jwksUrl(app.config.baseUrl) },
    },
    {
      headers: {
        "cache-control": `public, max-age=${JWKS_MAX_AGE_SECONDS}`,
        link: `<${jwksUrl(app.config.baseUrl)}>; rel="alternate"; type="application/jwk-set+json"`,
      },
    },
  );
});

export const ALL = methodNotAllowed(["GET"]);
