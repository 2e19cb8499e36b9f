import * as oidc from "openid-client";
import { type AssuranceRequest, requestedAcrValues } from "../domain/merchant-space/assurance.ts";
import type { IdentityProvider, SignInChecks } from "../domain/merchant-space/sign-in.ts";
import { SignInFailure } from "../domain/merchant-space/sign-in.ts";
import type { SpacePerson } from "../domain/merchant-space/space-store.ts";
import { isValidSiren, isValidSiret, sirenOf } from "../domain/siret.ts";

/**
 * ProConnect, the French state's OpenID Connect federation for professionals, through
 * openid-client (a certified relying-party library). What ProConnect does, and so what this
 * client expects (docs/merchant-space.md):
 * - discovery from `{issuer}/.well-known/openid-configuration`; the issuer is https (or http at a
 *   loopback address, for development and tests: src/config/config.ts);
 * - authorization code flow with PKCE (S256), `state` and `nonce`; client authentication by
 *   client_secret_post;
 * - the authorization request carries only parameters ProConnect knows (it refuses any other):
 *   response_type, client_id, redirect_uri, scope, claims, state, nonce, code_challenge,
 *   code_challenge_method. `claims` asks `acr` as essential at the levels the deployment accepts
 *   (assurance.ts), and `amr`, both in the ID token;
 * - the ID token is signed (RS256) and its signature is checked (not only trusted from TLS), as
 *   is the userinfo answer, which ProConnect sends as a signed JWT (application/jwt); `acr` and
 *   `amr` are read from the ID token (the domain checks `acr`: sign-in.ts);
 * - claims `sub`, `email`, `given_name`, `usual_name`, `siret`, `siren`, `uid`, `idp_id` from
 *   userinfo; a `siren` that is not its `siret`'s first nine digits is refused;
 * - sign-out at its end_session_endpoint with id_token_hint, state and post_logout_redirect_uri.
 */
export const PROCONNECT_SCOPES = "openid email given_name usual_name siret siren uid idp_id";
const SIGNING_ALGORITHM = "RS256";

export interface ProConnectSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** `{BASE_URL}/pro/connexion/retour`, as registered at ProConnect. */
  redirectUri: string;
  /** `{BASE_URL}/pro`, as registered at ProConnect. */
  postLogoutRedirectUri: string;
  /** The least `acr` the deployment accepts (PROCONNECT_MIN_ACR): the request asks it and above. */
  minimumAcr: string;
  /** How long each call to the provider may take (ms). */
  timeoutMs?: number;
}

export function createProConnectProvider(settings: ProConnectSettings): IdentityProvider {
  let discovered: Promise<oidc.Configuration> | null = null;
  const configuration = (): Promise<oidc.Configuration> => {
    discovered ??= discover(settings).catch((error: unknown) => {
      // A provider down at the first sign-in is asked again at the next one.
      discovered = null;
      throw new SignInFailure("unreachable", `ProConnect discovery failed: ${messageOf(error)}`);
    });
    return discovered;
  };
  return {
    async begin(request: AssuranceRequest) {
      const config = await configuration();
      const checks: SignInChecks = {
        state: oidc.randomState(),
        nonce: oidc.randomNonce(),
        codeVerifier: oidc.randomPKCECodeVerifier(),
      };
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: settings.redirectUri,
        scope: PROCONNECT_SCOPES,
        code_challenge: await oidc.calculatePKCECodeChallenge(checks.codeVerifier),
        code_challenge_method: "S256",
        state: checks.state,
        nonce: checks.nonce,
        claims: claimsParameter(settings.minimumAcr, request),
      });
      return { url, checks };
    },

    async finish(callbackUrl, checks) {
      const config = await configuration();
      // The redirect URI sent to the token endpoint is the registered one, whatever host the
      // request came in by (behind a proxy): only the answer's parameters are taken from it.
      const current = new URL(settings.redirectUri);
      current.search = callbackUrl.search;
      let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
      try {
        tokens = await oidc.authorizationCodeGrant(config, current, {
          pkceCodeVerifier: checks.codeVerifier,
          expectedState: checks.state,
          expectedNonce: checks.nonce,
          idTokenExpected: true,
        });
      } catch (error) {
        throw failureOf(error, "code exchange");
      }
      const idToken = tokens.id_token;
      const claims = tokens.claims();
      if (!idToken || !claims) throw new SignInFailure("invalid", "ProConnect answered without an ID token");
      let info: oidc.UserInfoResponse;
      try {
        info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
      } catch (error) {
        throw failureOf(error, "userinfo");
      }
      return { person: personOf(info, claims), idToken };
    },

    async endSessionUrl(idTokenHint) {
      let config: oidc.Configuration;
      try {
        config = await configuration();
      } catch {
        return null;
      }
      if (!config.serverMetadata().end_session_endpoint) return null;
      return oidc.buildEndSessionUrl(config, {
        ...(idTokenHint ? { id_token_hint: idTokenHint } : {}),
        state: oidc.randomState(),
        post_logout_redirect_uri: settings.postLogoutRedirectUri,
      });
    },
  };
}

async function discover(settings: ProConnectSettings): Promise<oidc.Configuration> {
  const issuer = new URL(settings.issuer);
  return oidc.discovery(
    issuer,
    settings.clientId,
    {
      client_secret: settings.clientSecret,
      id_token_signed_response_alg: SIGNING_ALGORITHM,
      userinfo_signed_response_alg: SIGNING_ALGORITHM,
    },
    oidc.ClientSecretPost(settings.clientSecret),
    {
      timeout: Math.ceil((settings.timeoutMs ?? 10_000) / 1000),
      execute: [
        // Signatures of the ID token and of the userinfo JWT are checked against the provider's keys.
        oidc.enableNonRepudiationChecks,
        // The configuration accepts plain http only at a loopback address (config.ts).
        ...(issuer.protocol === "http:" ? [oidc.allowInsecureRequests] : []),
      ],
    },
  );
}

/**
 * The `claims` authorization parameter (OpenID Connect Core 5.5): `acr` essential at the accepted
 * levels, and `amr`, in the ID token.
 */
export function claimsParameter(minimumAcr: string, request: AssuranceRequest): string {
  return JSON.stringify({
    id_token: { acr: { essential: true, values: requestedAcrValues(minimumAcr, request) }, amr: null },
  });
}

const textOf = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? value.trim() : null);

/**
 * Who signed in, from ProConnect's userinfo and ID token: a claim missing or malformed is null,
 * never guessed. A `siren` that disagrees with the `siret` (not its first nine digits) is refused:
 * one of the two is wrong, and either would reach listings the other does not.
 */
function personOf(info: oidc.UserInfoResponse, idToken: oidc.IDToken): SpacePerson {
  const siret = textOf(info.siret);
  const validSiret = siret !== null && isValidSiret(siret) ? siret : null;
  const sirenText = textOf(info.siren);
  const siren = sirenText !== null && isValidSiren(sirenText) ? sirenText : null;
  if (validSiret !== null && siren !== null && sirenOf(validSiret) !== siren) {
    throw new SignInFailure("inconsistent", "ProConnect's userinfo names a siren that is not its siret's");
  }
  const amr = Array.isArray(idToken.amr) ? idToken.amr.filter((method) => typeof method === "string") : null;
  return {
    subject: info.sub,
    email: textOf(info.email),
    givenName: textOf(info.given_name),
    usualName: textOf(info.usual_name),
    siret: validSiret,
    siren: siren ?? (validSiret ? sirenOf(validSiret) : null),
    via: "proconnect",
    acr: textOf(idToken.acr),
    amr,
    idpId: textOf(info.idp_id),
  };
}

function failureOf(error: unknown, step: string): SignInFailure {
  if (error instanceof SignInFailure) return error;
  if (error instanceof oidc.AuthorizationResponseError) {
    return new SignInFailure("provider", `ProConnect refused the sign-in: ${error.error}`, error.error);
  }
  if (error instanceof oidc.ResponseBodyError) {
    return new SignInFailure("invalid", `ProConnect refused the ${step}: ${error.error}`);
  }
  const cause = (error as { cause?: unknown }).cause;
  const code = (error as { code?: unknown }).code;
  if (
    code === "OAUTH_TIMEOUT" ||
    (error instanceof TypeError && cause !== undefined) ||
    error instanceof DOMException
  ) {
    return new SignInFailure("unreachable", `ProConnect could not be reached (${step}): ${messageOf(error)}`);
  }
  return new SignInFailure("invalid", `ProConnect's answer failed a check (${step}): ${messageOf(error)}`);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
