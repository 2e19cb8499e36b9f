import type { App } from "../../app.ts";
import type { ResolveDeps } from "../../domain/registry/resolve-merchant.ts";
import type { SearchDeps } from "../../domain/registry/search-registry.ts";

/** The registry's read dependencies, built as the REST routes build them. */
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

/** The links every answer about one merchant carries. */
export function merchantLinks(baseUrl: string, abId: string): Record<string, string> {
  return {
    canonical: `${baseUrl}/api/registry/resolve/${abId}`,
    alternate: `${baseUrl}/m/${abId}/ai.md`,
    decision_card: `${baseUrl}/api/merchants/${abId}/decision-card`,
  };
}
