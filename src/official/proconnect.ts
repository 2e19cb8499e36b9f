import * as oidc from "openid-client";
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
 * - the ID token is signed (RS256) and its signature is checked (not only trusted from TLS), as
 *   is the userinfo answer, which ProConnect sends as a signed JWT (application/jwt);
 * - claims `sub`, `email`, `given_name`, `usual_name`, `siret`, `siren`, `uid` from userinfo;
 * - sign-out at its end_session_endpoint with id_token_hint, state and post_logout_redirect_uri.
 */
export const PROCONNECT_SCOPES = "openid email given_name usual_name siret siren uid";
const SIGNING_ALGORITHM = "RS256";

export interface ProConnectSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** `{BASE_URL}/pro/connexion/retour`, as registered at ProConnect. */
  redirectUri: string;
  /** `{BASE_URL}/pro`, as registered at ProConnect. */
  postLogoutRedirectUri: string;
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
    async begin() {
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
      return { person: personOf(info), idToken };
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

/** Who signed in, from ProConnect's userinfo: a claim missing or malformed is null, never guessed. */
function personOf(info: oidc.UserInfoResponse): SpacePerson {
  const text = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? value.trim() : null);
  const siret = text(info.siret);
  const validSiret = siret !== null && isValidSiret(siret) ? siret : null;
  const siren = text(info.siren);
  return {
    subject: info.sub,
    email: text(info.email),
    givenName: text(info.given_name),
    usualName: text(info.usual_name),
    siret: validSiret,
    siren: siren !== null && isValidSiren(siren) ? siren : validSiret ? sirenOf(validSiret) : null,
    via: "proconnect",
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
