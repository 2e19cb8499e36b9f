import { slugify } from "../domain/format.ts";
import { type SearchDeps, searchRegistry } from "../domain/registry/search-registry.ts";
import { type Commune, loadCommuneReference } from "../seed/communes.ts";
import { type IdentityCheck, identityCheckAt } from "./facts.ts";
import type { PeopleQuery, PeopleSearch } from "./front-door.ts";

/**
 * The search of the front door: the API's search (searchRegistry, the same ranking and cards),
 * the trade as its text and the town read as a commune of data/communes.json (a name or a postal
 * code; among homonyms the most populated), searched around within TOWN_RADIUS_KM.
 */
export const TOWN_RADIUS_KM = 15;
export const PEOPLE_RESULTS = 20;

interface TownIndex {
  byName: Map<string, Commune>;
  byPostalCode: Map<string, Commune>;
}

let index: TownIndex | undefined;

function townIndex(): TownIndex {
  if (index) return index;
  const byName = new Map<string, Commune>();
  const byPostalCode = new Map<string, Commune>();
  const keep = (map: Map<string, Commune>, key: string, commune: Commune) => {
    const current = map.get(key);
    if (!current || current.population < commune.population) map.set(key, commune);
  };
  for (const commune of loadCommuneReference().communes) {
    keep(byName, comparable(commune.name), commune);
    for (const code of commune.postalCodes) keep(byPostalCode, code, commune);
  }
  index = { byName, byPostalCode };
  return index;
}

/** Accents, case, hyphens and "Saint"/"St" aside, as people type town names. */
function comparable(name: string): string {
  return slugify(name)
    .replace(/\bsainte?\b/g, (word) => (word === "sainte" ? "ste" : "st"))
    .replace(/-/g, "");
}

/** The commune a person means by a town name or a postal code, or null. */
export function findTown(text: string): Commune | null {
  const trimmed = text.trim();
  const towns = townIndex();
  if (/^\d{5}$/.test(trimmed)) return towns.byPostalCode.get(trimmed) ?? null;
  // "Lyon 3e", "Paris 75011": the name before a district or a postal code.
  const name = trimmed.replace(/\s+\d.*$/, "");
  return towns.byName.get(comparable(name)) ?? null;
}

/**
 * The search of the front door, with each result's identity check (its `siret_verified` signal,
 * read at the search's instant): a person is told plainly, result by result, whether an official
 * register verified the merchant and when.
 */
export async function searchForPeople(deps: SearchDeps, query: PeopleQuery): Promise<PeopleSearch> {
  const metier = query.metier?.trim() || undefined;
  const ville = query.ville?.trim() || undefined;
  const asked = { metier, ville };
  if (!metier && !ville) {
    return {
      query: asked,
      town: null,
      results: [],
      identities: new Map(),
      notice: "Indiquez un métier, un produit ou une ville.",
    };
  }
  const commune = ville ? findTown(ville) : null;
  const town = commune ? { name: commune.name, department: commune.department, radiusKm: TOWN_RADIUS_KM } : null;
  let notice: string | null = null;
  if (ville && !commune) {
    notice = `Nous ne connaissons pas la commune « ${ville} » : la recherche porte sur toute la France.`;
  }
  // Without a trade, the town's name is the text searched (merchants of the town match it).
  const text = metier ?? (commune ? commune.name : (ville as string));
  const answer = await searchRegistry(deps, {
    q: text,
    limit: PEOPLE_RESULTS,
    ...(commune ? { lat: commune.lat, lng: commune.lng, radius: TOWN_RADIUS_KM } : {}),
  });
  const abIds = answer.results.map((result) => result.merchant.ab_id);
  const nowIso = deps.now().toISOString();
  const identities = new Map<string, IdentityCheck>();
  for (const [abId, signal] of await deps.merchants.findSignal(abIds, IDENTITY_SIGNAL)) {
    const check = identityCheckAt(signal, nowIso);
    if (check) identities.set(abId, check);
  }
  return { query: asked, town, results: answer.results, identities, notice };
}

/** The signal that says an official register checked the merchant's identity. */
const IDENTITY_SIGNAL = "siret_verified";
