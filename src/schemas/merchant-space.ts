import { z } from "zod";
import { abIdSchema, described } from "./common.ts";

/**
 * The merchant space's requests (/pro, src/pages/pro/). Forms carry the session's CSRF token in
 * `csrf`: optional here so that a form without it reaches the route and is refused there with
 * the space's own 403 page (requireCsrf), not a parse error.
 */
export const CSRF_FIELD = "csrf";
const CSRF_MAX = 100;

const csrfField = z.string().max(CSRF_MAX, `must be at most ${CSRF_MAX} characters`).optional();

/** Any form of the space that carries only its CSRF token (sign-out). */
export const spaceFormBodySchema = z.object(
  described({ csrf: csrfField }, { csrf: "The session's CSRF token, from the page's form" }),
);

export const claimFormBodySchema = z.object(
  described(
    // Checked after the CSRF token (a listing that is not the person's is NOT_FOUND): any text here.
    { csrf: csrfField, ab_id: z.string().max(40, "must be at most 40 characters") },
    { csrf: "The session's CSRF token, from the page's form", ab_id: "The listing to claim (ab_...)" },
  ),
);

const callbackField = (max: number) => z.string().max(max, `must be at most ${max} characters`).optional();

/** What ProConnect sends back to the redirect URI (an authorization response, or an error). */
export const signInCallbackQuerySchema = z.object(
  described(
    {
      code: callbackField(2_000),
      state: callbackField(500),
      iss: callbackField(500),
      error: callbackField(200),
      error_description: callbackField(1_000),
    },
    {
      code: "The authorization code",
      state: "The state the sign-in was started with",
      iss: "The issuer that answers (RFC 9207)",
      error: "The provider's error code, when it did not sign the person in",
      error_description: "The provider's explanation of the error",
    },
  ),
);

/** How a ProConnect sign-in starts: as an employee of the establishment, or as the company's manager. */
export const signInStartQuerySchema = z.object(
  described(
    { niveau: z.enum(["dirigeant"]).optional() },
    {
      niveau:
        "dirigeant: asks ProConnect for the company manager's certification (certification-dirigeant), which reaches every establishment of the company",
    },
  ),
);

/** The listing a claim was just made on, shown on /pro after the redirect. */
export const spaceHomeQuerySchema = z.object(
  described({ revendiquee: abIdSchema.optional() }, { revendiquee: "The listing just claimed (after a claim)" }),
);
