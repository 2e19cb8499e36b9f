import { createHmac, createSecretKey, type KeyObject, randomUUID, timingSafeEqual } from "node:crypto";
import { ServiceError } from "../../errors/service-error.ts";
import { HOURLY_WINDOW_SECONDS } from "../access/rate-limit-policy.ts";
import type { RateLimiter } from "../access/rate-limiter.ts";
import { frenchDateTime, type RenderedEmail, renderLayout } from "../leads/email-format.ts";
import { PLATFORM_SIGNATURE } from "../leads/render-lead-notification.ts";

/**
 * Sign-in links for merchants who came in by letter (they have no ProConnect to come back with):
 * the person types the email address given with the code, and each live letter claim made with
 * that address gets a link by email. The page answers the same whatever the address (no one
 * learns which addresses have a claim). A link works once and for SIGN_IN_LINK_VALID_MINUTES.
 *
 * The link's token is `<link_id>.<mac>`, mac = base64url(HMAC-SHA256(key, context + link_id)),
 * keyed by DATA_DIR/secrets/pro-sign-in-link.key: the store keeps the link id, never the token, so
 * a copy of the database opens no link; the outbox renders the email from the link id.
 */
export const SIGN_IN_LINK_VALID_MINUTES = 15;

/**
 * Link requests per email address and hour, from whatever client addresses (each address has its
 * own budget too, in the guard): past it, a person flooding someone's mailbox, or trying addresses
 * from many machines, is refused. Every request counts, whether the address has a claim or not, so
 * the refusal tells nothing of it either.
 */
export const SIGN_IN_LINK_REQUESTS_PER_EMAIL_HOURLY = 5;

export interface SignInLinkTokens {
  issue(linkId: string): string;
  /** The link id the token was issued for, or null when this server did not issue it. */
  verify(token: string): string | null;
  /**
   * The key an email address's request budget is counted under: a keyed hash (the link key, its
   * own context), so the rate limit store never holds the address, nor a hash one could test
   * guessed addresses against; the same on every machine of the deployment.
   */
  budgetKey(email: string): string;
}

const CONTEXT = "abeille-pro-sign-in-link/v1:";
const BUDGET_CONTEXT = "abeille-pro-sign-in-link-budget/v1:";
const LINK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MAC = /^[A-Za-z0-9_-]{43}$/;

export function createSignInLinkTokens(secret: () => Buffer): SignInLinkTokens {
  let key: KeyObject | undefined;
  const hmac = (text: string) => {
    key ??= createSecretKey(secret());
    return createHmac("sha256", key).update(text, "utf8").digest("base64url");
  };
  const mac = (linkId: string) => hmac(CONTEXT + linkId);
  return {
    issue: (linkId) => `${linkId}.${mac(linkId)}`,
    budgetKey: (email) => `pro-sign-in-link:${hmac(BUDGET_CONTEXT + email.trim().toLowerCase())}`,
    verify(token) {
      const [linkId = "", given = "", ...rest] = token.split(".");
      if (rest.length > 0 || !LINK_ID.test(linkId) || !MAC.test(given)) return null;
      const expected = Buffer.from(mac(linkId), "ascii");
      return timingSafeEqual(Buffer.from(given, "ascii"), expected) ? linkId : null;
    },
  };
}

/** A live claim made through a letter, as the link path sees it. */
export interface LetterClaimForLink {
  claimId: string;
  abId: string;
  businessName: string;
}

export interface SignInLinkRecord {
  linkId: string;
  claimId: string;
  email: string;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
}

/** What the link path needs from storage (implemented by src/store/letter-repository.ts). */
export interface SignInLinkStore {
  /** Live claims made through a letter with this email address (compared without case). */
  liveLetterClaimsOf(email: string): Promise<LetterClaimForLink[]>;
  /** Records the links and their outbox rows (kind space_sign_in_link) in one transaction. */
  insertLinks(links: readonly SignInLinkRecord[], at: string): Promise<void>;
  /**
   * Takes a link once: marks it used if it is neither used nor expired at `at` and its claim is
   * still live, and returns it; null otherwise.
   */
  takeLink(linkId: string, at: string): Promise<SignInLinkRecord | null>;
  /** A link with the name of the listing its claim is on (what its email says). */
  findLink(linkId: string): Promise<(SignInLinkRecord & { businessName: string }) | null>;
}

export interface SignInLinkDeps {
  links: SignInLinkStore;
  linkTokens: SignInLinkTokens;
  now: () => Date;
}

/** What asking links needs besides the links: the budget per email address. */
export interface RequestSignInLinkDeps extends SignInLinkDeps {
  limiter: RateLimiter;
}

/**
 * Sends a sign-in link for each live letter claim of the address (none when there is none: the
 * caller answers the same either way). Returns how many links went out, for tests and logs only.
 * Past SIGN_IN_LINK_REQUESTS_PER_EMAIL_HOURLY requests for the address within the hour, refused
 * (RATE_LIMITED) before anything is looked up, whether the address has a claim or not.
 */
export async function requestSignInLinks(deps: RequestSignInLinkDeps, email: string): Promise<number> {
  const budget = await deps.limiter.consume(
    deps.linkTokens.budgetKey(email),
    SIGN_IN_LINK_REQUESTS_PER_EMAIL_HOURLY,
    HOURLY_WINDOW_SECONDS,
  );
  if (!budget.allowed) {
    throw new ServiceError(
      "RATE_LIMITED",
      `This email address asked ${SIGN_IN_LINK_REQUESTS_PER_EMAIL_HOURLY} sign-in links within the hour, the most it may; retry in ${budget.retryAfterSeconds} s`,
      { retryAfterSeconds: budget.retryAfterSeconds },
    );
  }
  const claims = await deps.links.liveLetterClaimsOf(email);
  if (claims.length === 0) return 0;
  const now = deps.now();
  const createdAt = now.toISOString();
  const expiresAt = new Date(now.getTime() + SIGN_IN_LINK_VALID_MINUTES * 60_000).toISOString();
  await deps.links.insertLinks(
    claims.map((claim) => ({
      linkId: randomUUID(),
      claimId: claim.claimId,
      email,
      createdAt,
      expiresAt,
      usedAt: null,
    })),
    createdAt,
  );
  return claims.length;
}

/** The claim a link signs into, taken once; null for a link unknown, forged, used or expired. */
export async function takeSignInLink(deps: SignInLinkDeps, token: string): Promise<SignInLinkRecord | null> {
  const linkId = deps.linkTokens.verify(token);
  if (linkId === null) return null;
  return deps.links.takeLink(linkId, deps.now().toISOString());
}

/**
 * The email an outbox row of kind space_sign_in_link carries, rendered when it is sent (the token
 * is derived again from the link id); null when the link was used or expired meanwhile.
 */
export async function signInLinkMail(
  deps: SignInLinkDeps & { baseUrl: string },
  linkId: string,
): Promise<{ to: string; email: RenderedEmail } | null> {
  const link = await deps.links.findLink(linkId);
  if (!link || link.usedAt !== null || Date.parse(link.expiresAt) <= deps.now().getTime()) return null;
  const url = `${deps.baseUrl}/pro/lien?jeton=${encodeURIComponent(deps.linkTokens.issue(linkId))}`;
  return {
    to: link.email,
    email: renderSignInLinkEmail({ url, businessName: link.businessName, expiresAt: link.expiresAt }),
  };
}

/** The French email that carries a sign-in link. */
export function renderSignInLinkEmail(input: { url: string; businessName: string; expiresAt: string }): RenderedEmail {
  const subject = "Votre lien de connexion à l'espace commerçant Abeille";
  const { text, html } = renderLayout({
    heading: subject,
    intro: [
      "Bonjour,",
      `Vous avez demandé à vous connecter à l'espace commerçant d'Abeille pour ${input.businessName}. Ouvrez ce lien pour vous connecter :`,
    ],
    sections: [
      {
        title: "Lien de connexion",
        paragraphs: [
          input.url,
          `Il ne sert qu'une fois et expire le ${frenchDateTime(input.expiresAt)} (dans ${SIGN_IN_LINK_VALID_MINUTES} minutes).`,
        ],
      },
      {
        title: "Vous n'avez rien demandé ?",
        paragraphs: ["Ignorez ce message : sans ce lien, personne ne peut se connecter à votre place."],
      },
    ],
    footer: [PLATFORM_SIGNATURE],
  });
  return { subject, text, html };
}
