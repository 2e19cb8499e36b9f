import { ServiceError } from "../../../../errors/service-error.ts";
import { methodNotAllowed, route } from "../../../../http/route.ts";
import { operation } from "../../../../openapi/operations.ts";
import { AB_ID_PATTERN } from "../../../../schemas/common.ts";

/**
 * The retired trust attestation: 410 for every id, with recovery actions to the signed manifest
 * and the key set. A well-formed ab_id is carried into the manifest link; a malformed one is not
 * echoed (the link keeps its {ab_id} template), since the route is gone whatever the input.
 */
export const GET = route(operation("getTrustAttestation"), ({ params }) => {
  const abId = params.ab_id && AB_ID_PATTERN.test(params.ab_id) ? params.ab_id : undefined;
  throw new ServiceError(
    "TRUST_ATTESTATION_WITHDRAWN",
    "The trust attestation route is retired; read the signed verification manifest and check it against the public key set",
    abId ? { abId } : {},
  );
});

export const ALL = methodNotAllowed(["GET"]);
