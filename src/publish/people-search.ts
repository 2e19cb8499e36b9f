import { type SearchDeps, searchRegistry } from "../domain/registry/search-registry.ts";
import { type IdentityCheck, identityCheckAt } from "./facts.ts";
import type { PeopleQuery, PeopleSearch } from "./front-door.ts";

/**
 * The search of the front door: the API's search (searchRegistry, the same ranking and cards),
 * the trade as its text and the town read as `near` reads it (the commune reference: a name or a
 * postal code, among homonyms the most populated; deps.places), searched around within
 * TOWN_RADIUS_KM; the « Ouvert maintenant » box is open_now.
 */
export const TOWN_RADIUS_KM = 15;
export const PEOPLE_RESULTS = 20;

/**
 * The search of the front door, with each result's identity check (its `siret_verified` signal,
 * read at the search's instant): a person is told plainly, result by result, whether an official
 * register verified the merchant and when, and whether it is open.
 */
export async function searchForPeople(deps: SearchDeps, query: PeopleQuery): Promise<PeopleSearch> {
  const metier = query.metier?.trim() || undefined;
  const ville = query.ville?.trim() || undefined;
  const openNow = query.ouvert === "1";
  const asked = { metier, ville, ...(openNow ? { ouvert: "1" } : {}) };
  const now = deps.now();
  if (!metier && !ville) {
    return {
      query: asked,
      town: null,
      results: [],
      identities: new Map(),
      notice: "Indiquez un métier, un produit ou une ville.",
      now,
    };
  }
  const found = ville ? deps.places.find(ville) : null;
  const place = found?.place ?? null;
  const town = place ? { name: place.name, department: place.department, radiusKm: TOWN_RADIUS_KM } : null;
  let notice: string | null = null;
  if (found && found.place === null) {
    const closest = found.suggestions.length > 0 ? ` Vouliez-vous dire ${found.suggestions.join(", ")} ?` : "";
    notice = `Nous ne connaissons pas la commune « ${ville} » : la recherche porte sur toute la France.${closest}`;
  }
  // Without a trade, the town's name is the text searched (merchants of the town match it).
  const text = metier ?? (place ? place.name : (ville as string));
  const answer = await searchRegistry(deps, {
    q: text,
    limit: PEOPLE_RESULTS,
    at: now.toISOString(),
    ...(place ? { lat: place.lat, lng: place.lng, radius: TOWN_RADIUS_KM } : {}),
    ...(openNow ? { open_now: true } : {}),
  });
  const abIds = answer.results.map((result) => result.merchant.ab_id);
  const nowIso = now.toISOString();
  const identities = new Map<string, IdentityCheck>();
  for (const [abId, signal] of await deps.merchants.findSignal(abIds, IDENTITY_SIGNAL)) {
    const check = identityCheckAt(signal, nowIso);
    if (check) identities.set(abId, check);
  }
  return { query: asked, town, results: answer.results, identities, notice, now };
}

/** The signal that says an official register checked the merchant's identity. */
const IDENTITY_SIGNAL = "siret_verified";
