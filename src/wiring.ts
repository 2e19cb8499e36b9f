import type { App } from "./app.ts";
import type { LeadDeps } from "./domain/leads/lead-deps.ts";
import type { RespondDeps } from "./domain/leads/respond-to-lead.ts";
import type { LetterDeps } from "./domain/merchant-space/letters.ts";
import type { SpaceDeps } from "./domain/merchant-space/sessions.ts";
import type { SignInDeps } from "./domain/merchant-space/sign-in.ts";
import type { RequestSignInLinkDeps, SignInLinkDeps } from "./domain/merchant-space/sign-in-links.ts";
import type { ResolveDeps } from "./domain/registry/resolve-merchant.ts";
import type { SearchDeps } from "./domain/registry/search-registry.ts";
import type { ListingSpaceDeps } from "./publish/pro/listing-space.ts";

/**
 * The domain functions' dependencies, built from the composition root (src/app.ts): what REST
 * routes, MCP tools, published documents and jobs hand the same domain functions.
 */

export function resolveDeps(app: App): ResolveDeps {
  return {
    merchants: app.merchants,
    baseUrl: app.config.baseUrl,
    orderRailEnabled: app.config.publicOrderRailEnabled,
    now: app.now,
  };
}

export function searchDeps(app: App): SearchDeps {
  return {
    ...resolveDeps(app),
    search: app.search,
    places: app.places,
    cards: app.searchCards,
    keptCards: app.keptCards,
    cardCode: app.cardCode,
  };
}

/** What a merchant's response to a lead needs (src/domain/leads/respond-to-lead.ts). */
export function respondDeps(app: App): RespondDeps {
  return { leads: app.leads, limiter: app.access.limiter, now: app.now, notifyOutbox: app.notifyOutbox };
}

/** What the lead functions need; REST routes and MCP tools build it with `leadDeps(app)`. */
export function leadDeps(app: App): LeadDeps {
  return {
    ...resolveDeps(app),
    leads: app.leads,
    trackingTokens: app.trackingTokens,
    pageFormTokens: app.pageFormTokens,
    leadTargets: app.leadTargets,
    notifyOutbox: app.notifyOutbox,
  };
}

/** What the merchant space's rules need (sessions, CSRF, claims). */
export function spaceDeps(app: App): SpaceDeps {
  return { store: app.space, now: app.now, csrfSecret: app.proCsrfSecret, notifyOutbox: app.notifyOutbox };
}

/** The same, with ProConnect; null when the service has no ProConnect client configured. */
export function signInDeps(app: App): SignInDeps | null {
  return app.proConnect && app.config.proConnect
    ? { ...spaceDeps(app), provider: app.proConnect, minimumAcr: app.config.proConnect.minimumAcr }
    : null;
}

/** What the letter path's codes need (pro-letters). */
export function letterDeps(app: App): LetterDeps {
  return { letters: app.letters, codeKeys: app.letterCodeKeys, now: app.now };
}

/** What the letter path's sign-in links need (pro-letters). */
export function signInLinkDeps(app: Pick<App, "signInLinks" | "signInLinkTokens" | "now">): SignInLinkDeps {
  return { links: app.signInLinks, linkTokens: app.signInLinkTokens, now: app.now };
}

/** Asking sign-in links: the links, and the budget per email address counted where every limit is. */
export function signInLinkRequestDeps(app: App): RequestSignInLinkDeps {
  return { ...signInLinkDeps(app), limiter: app.access.limiter };
}

/** What the listing pages of the merchant space need: the lifecycle's doors, the lead email's confirmations, the edit budget. */
export function listingSpaceDeps(app: App): ListingSpaceDeps {
  return {
    registry: app.merchantRegistry,
    communes: app.communes,
    now: app.now,
    confirmations: app.leadEmailConfirmations,
    tokens: app.leadEmailTokens,
    notifyOutbox: app.notifyOutbox,
    limiter: app.access.limiter,
    editsPerHour: app.config.merchantSpaceLimits.editsHourly,
    baseUrl: app.config.baseUrl,
  };
}
