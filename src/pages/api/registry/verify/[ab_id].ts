import { ok } from "../../../../http/respond.ts";
import { methodNotAllowed, route } from "../../../../http/route.ts";
import { operation } from "../../../../openapi/operations.ts";
import { jwksUrl, manifestActions, manifestUrl } from "../../../../signing/actions.ts";
import { issueMerchantManifest, manifestAnswer, manifestCacheControl } from "../../../../signing/manifest.ts";
import { keyStoreFor } from "../../../../signing/registry.ts";
import { resolveDeps } from "../../../../wiring.ts";

/** A freshly signed manifest on every call (new nonce and dates); snapshot=1 for one valid 24 hours. */
export const GET = route(operation("getVerificationManifest"), async ({ app, context, pathParams, query }) => {
  const { ab_id } = pathParams();
  const { snapshot } = query();
  const kind = snapshot ? "snapshot" : "live";
  const { issued, state, now } = await issueMerchantManifest(
    { ...resolveDeps(app), signer: keyStoreFor(app) },
    ab_id,
    kind,
  );
  const canonical = manifestUrl(app.config.baseUrl, ab_id);
  return ok(
    context,
    {
      data: manifestAnswer(issued),
      state,
      actions: manifestActions(app.config.baseUrl, ab_id, kind),
      links: {
        canonical: kind === "snapshot" ? `${canonical}?snapshot=1` : canonical,
        jwks: jwksUrl(app.config.baseUrl),
      },
    },
    {
      headers: {
        "cache-control": manifestCacheControl(issued.manifest.expires_at, now),
        "last-modified": new Date(issued.manifest.issued_at).toUTCString(),
      },
    },
  );
});

export const ALL = methodNotAllowed(["GET"]);
