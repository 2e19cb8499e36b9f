import type { App } from "../../app.ts";
import type { ResolveDeps } from "./resolve-merchant.ts";
import type { SearchDeps } from "./search-registry.ts";

/** The registry's read dependencies; REST routes, MCP tools and published documents build them here. */
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
    embedderConfigured: app.config.searchEmbedderUrl !== null,
  };
}
