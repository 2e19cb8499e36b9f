import { z } from "zod";
import { described } from "./common.ts";

/**
 * The letter path's forms (/pro/code, /pro/lien, src/pages/pro/). Every field is optional text
 * here: an empty or wrong code or address is answered by the page itself, in French, with the
 * form filled in again (src/publish/pro/letter-answers.ts), not by a parse error.
 */
const text = (max: number) => z.string().max(max, `must be at most ${max} characters`).optional();
const CSRF = "The form's CSRF token (bound to the abeille_pro_formulaire cookie)";

export const letterCodeFormBodySchema = z.object(
  described(
    { csrf: text(100), code: text(100), email: text(320) },
    {
      csrf: CSRF,
      code: "The code printed on the letter (16 characters; case, spaces and dashes do not matter)",
      email: "The email address of the person who manages the listing (for sign-in links later)",
    },
  ),
);

export const signInLinkRequestBodySchema = z.object(
  described(
    { csrf: text(100), email: text(320) },
    { csrf: CSRF, email: "The email address given with the letter's code" },
  ),
);

export const signInLinkQuerySchema = z.object(
  described({ jeton: text(200) }, { jeton: "The sign-in link's token, from the email" }),
);

export const signInLinkUseBodySchema = z.object(
  described({ csrf: text(100), jeton: text(200) }, { csrf: CSRF, jeton: "The sign-in link's token, from the email" }),
);
