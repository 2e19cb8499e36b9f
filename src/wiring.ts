import type { App } from "./app.ts";
import type { LeadDeps } from "./domain/leads/lead-deps.ts";
import type { RespondDeps } from "./domain/leads/respond-to-lead.ts";
import type { SpaceDeps } from "./domain/merchant-space/sessions.ts";
import type { SignInDeps } from "./domain/merchant-space/sign-in.ts";
import type { ResolveDeps } from "./domain/registry/resolve-merchant.ts";
import type { SearchDeps } from "./domain/registry/search-registry.ts";

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
  return { store: app.space, now: app.now, csrfSecret: app.proCsrfSecret };
}

/** The same, with ProConnect; null when the service has no ProConnect client configured. */
export function signInDeps(app: App): SignInDeps | null {
  return app.proConnect ? { ...spaceDeps(app), provider: app.proConnect } : null;
}
