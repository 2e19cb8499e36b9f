import { type AssuranceRefusal, type AssuranceRequest, assuranceRefusal } from "./assurance.ts";
import { recheckClaims } from "./claim-recheck.ts";
import { isTokenShaped, newToken, openSession, type SpaceDeps, type SpaceSession, tokenHash } from "./sessions.ts";
import type { SpacePerson } from "./space-store.ts";

/**
 * Signing in with ProConnect (OpenID Connect, authorization code with PKCE, `state` and `nonce`).
 * The provider's client is a port (src/official/proconnect.ts implements it with openid-client);
 * what the callback must find again is kept server-side in a sign-in row keyed by the SHA-256 of
 * a random token the browser holds (a short-lived cookie), taken once: a replayed or forged
 * callback finds nothing, or fails the provider's checks.
 */
export const SIGN_IN_TTL_MS = 10 * 60 * 1000;

/** The checks a sign-in carries from its start to its callback. */
export interface SignInChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface IdentityProvider {
  /**
   * Fresh state, nonce and PKCE verifier, and the authorization URL that carries their public
   * halves and the `acr` values the request asks as essential (assurance.ts).
   */
  begin(request: AssuranceRequest): Promise<{ url: URL; checks: SignInChecks }>;
  /**
   * Checks the callback (state, the code exchanged with the PKCE verifier, the signed ID token and
   * its nonce, the signed userinfo) and answers who signed in. Throws SignInFailure.
   */
  finish(callbackUrl: URL, checks: SignInChecks): Promise<{ person: SpacePerson; idToken: string }>;
  /** Where to send the browser to end the session at the provider too; null when it has no end_session_endpoint. */
  endSessionUrl(idTokenHint: string | null): Promise<URL | null>;
}

/**
 * Why a sign-in did not end in a session: the provider said no (`provider`: its error code), the
 * callback does not belong to a sign-in under way (`unknown`: none, expired, replayed), the
 * provider's answers failed a check (`invalid`), they contradict each other (`inconsistent`: a
 * `siren` that is not its `siret`'s), the ID token's `acr` is missing, unknown or below the
 * deployment's minimum (`assurance`: `assurance` says which, `acr` what came), or the provider
 * could not be reached (`unreachable`).
 */
export class SignInFailure extends Error {
  override name = "SignInFailure";
  readonly kind: "provider" | "unknown" | "invalid" | "inconsistent" | "assurance" | "unreachable";
  readonly providerError: string | null;
  readonly assurance: { refusal: AssuranceRefusal; acr: string | null; minimum: string } | null;
  constructor(
    kind: SignInFailure["kind"],
    message: string,
    providerError: string | null = null,
    assurance: SignInFailure["assurance"] = null,
  ) {
    super(message);
    this.kind = kind;
    this.providerError = providerError;
    this.assurance = assurance;
  }
}

export interface SignInDeps extends SpaceDeps {
  provider: IdentityProvider;
  /** The least `acr` that opens a session (PROCONNECT_MIN_ACR). */
  minimumAcr: string;
}

/** Starts a sign-in: the token for the browser's sign-in cookie, and where to send it. */
export async function startSignIn(
  deps: SignInDeps,
  request: AssuranceRequest = "standard",
): Promise<{ signInToken: string; url: URL }> {
  const { url, checks } = await deps.provider.begin(request);
  const signInToken = newToken();
  const now = deps.now();
  await deps.store.insertSignIn({
    tokenHash: tokenHash(signInToken),
    ...checks,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + SIGN_IN_TTL_MS).toISOString(),
  });
  return { signInToken, url };
}

/**
 * Ends a sign-in at its callback: takes the sign-in under way (once), has the provider check the
 * answer, checks the assurance ProConnect gives (`acr`, at least the deployment's minimum),
 * re-checks the person's claims against what this sign-in carries (claim-recheck.ts), and opens a
 * new session, ending the one the browser held (`currentSessionToken`).
 */
export async function finishSignIn(
  deps: SignInDeps,
  input: { signInToken: string | null; callbackUrl: URL; currentSessionToken: string | null },
): Promise<{ token: string; session: SpaceSession }> {
  const providerError = input.callbackUrl.searchParams.get("error");
  const signIn = isTokenShaped(input.signInToken)
    ? await deps.store.takeSignIn(tokenHash(input.signInToken), deps.now().toISOString())
    : null;
  if (providerError !== null) {
    throw new SignInFailure("provider", `The provider answered ${providerError}`, providerError);
  }
  if (!signIn) throw new SignInFailure("unknown", "No sign-in under way for this callback (none, expired or used)");
  const { person, idToken } = await deps.provider.finish(input.callbackUrl, signIn);
  const refusal = assuranceRefusal(person.acr, deps.minimumAcr);
  if (refusal !== null) {
    throw new SignInFailure("assurance", `The ID token's acr is ${refusal} (minimum ${deps.minimumAcr})`, null, {
      refusal,
      acr: person.acr,
      minimum: deps.minimumAcr,
    });
  }
  await recheckClaims(deps, person);
  return openSession(deps, person, { idToken, replacing: input.currentSessionToken });
}
