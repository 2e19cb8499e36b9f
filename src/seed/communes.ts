import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { slugify } from "../domain/format.ts";
import { haversineKm } from "../domain/geo.ts";
import type { CommuneLookup, CommuneMatch } from "../domain/merchants/merchant-registry.ts";
import type { PlaceFinder, PlaceLookup } from "../domain/registry/place-finder.ts";

/** One commune of `data/communes.json` (see data/README.md for sources and licences). */
export interface Commune {
  insee: string;
  name: string;
  postalCodes: string[];
  population: number;
  department: string;
  region: string;
  epci: string | null;
  lat: number;
  lng: number;
}

/** A commune of the reference that GeoNames does not place: known by code, name and postal codes, without coordinates. */
export interface UnplacedCommune extends Omit<Commune, "lat" | "lng"> {
  lat: null;
  lng: null;
}

export interface CommuneReference {
  /** The communes with coordinates (where the demo places merchants, what people search by town). */
  communes: Commune[];
  /** Every other current commune: an official file's establishment can be in any of them. */
  unplaced: UnplacedCommune[];
  /** Municipal arrondissement code (Paris, Lyon, Marseille: what SIRENE gives) -> its commune's code. */
  arrondissements: Map<string, string>;
  /** Running population totals, for drawing a commune weighted by population. */
  cumulativePopulation: Float64Array;
  departments: Map<string, { name: string; prefecture: string }>;
  regions: Map<string, string>;
}

type CommuneRow = [string, string, string, number, string, string, string | null, number | null, number | null];

interface CommuneFile {
  format: number;
  fields: string[];
  departments: Record<string, [string, string]>;
  regions: Record<string, string>;
  arrondissements: [insee: string, commune: string, name: string, postalCodes: string][];
  communes: CommuneRow[];
}

const EXPECTED_FIELDS = "insee,name,postal_codes,population,department,region,epci,lat,lng";

/** Where `data/communes.json` is: next to the sources in a checkout, else under the working directory. */
export function defaultCommunesFile(): string {
  const candidates = [
    path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../data/communes.json"),
    path.resolve(process.cwd(), "data/communes.json"),
  ];
  return candidates.find((candidate) => existsSync(candidate)) ?? (candidates[1] as string);
}

const cache = new Map<string, CommuneReference>();

export function loadCommuneReference(file: string = defaultCommunesFile()): CommuneReference {
  const cached = cache.get(file);
  if (cached) return cached;
  const parsed = JSON.parse(readFileSync(file, "utf8")) as CommuneFile;
  if (parsed.format !== 2 || parsed.fields.join(",") !== EXPECTED_FIELDS) {
    throw new Error(`${file}: unexpected format; rebuild it with jobs/build-reference-data.ts`);
  }
  const communes: Commune[] = [];
  const unplaced: UnplacedCommune[] = [];
  for (const [insee, name, postalCodes, population, department, region, epci, lat, lng] of parsed.communes) {
    const known = { insee, name, postalCodes: postalCodes.split(","), population, department, region, epci };
    if (lat === null || lng === null) unplaced.push({ ...known, lat: null, lng: null });
    else communes.push({ ...known, lat, lng });
  }
  const cumulativePopulation = new Float64Array(communes.length);
  let total = 0;
  communes.forEach((commune, index) => {
    total += Math.max(commune.population, 1);
    cumulativePopulation[index] = total;
  });
  const reference: CommuneReference = {
    communes,
    cumulativePopulation,
    unplaced,
    arrondissements: new Map(parsed.arrondissements.map(([insee, commune]) => [insee, commune])),
    departments: new Map(
      Object.entries(parsed.departments).map(([code, [name, prefecture]]) => [code, { name, prefecture }]),
    ),
    regions: new Map(Object.entries(parsed.regions)),
  };
  cache.set(file, reference);
  return reference;
}

const CELL_DEGREES = 0.15;

/** Finds the communes nearest to a commune (for intervention zones), memoised per commune. */
export class NeighbourFinder {
  private readonly grid = new Map<string, number[]>();
  private readonly memo = new Map<number, number[]>();
  private readonly communes: readonly Commune[];

  constructor(communes: readonly Commune[]) {
    this.communes = communes;
    communes.forEach((commune, index) => {
      const key = this.cellKey(Math.floor(commune.lat / CELL_DEGREES), Math.floor(commune.lng / CELL_DEGREES));
      const cell = this.grid.get(key);
      if (cell) cell.push(index);
      else this.grid.set(key, [index]);
    });
  }

  /** Indexes of up to `limit` other communes within about 15 km, nearest first. */
  near(index: number, limit = 6): number[] {
    const memoised = this.memo.get(index);
    if (memoised) return memoised;
    const origin = this.communes[index];
    if (!origin) return [];
    const row = Math.floor(origin.lat / CELL_DEGREES);
    const column = Math.floor(origin.lng / CELL_DEGREES);
    const found: { index: number; distance: number }[] = [];
    for (let dRow = -1; dRow <= 1; dRow++) {
      for (let dColumn = -1; dColumn <= 1; dColumn++) {
        for (const candidate of this.grid.get(this.cellKey(row + dRow, column + dColumn)) ?? []) {
          if (candidate === index) continue;
          const other = this.communes[candidate] as Commune;
          const distance = distanceKm(origin.lat, origin.lng, other.lat, other.lng);
          if (distance <= 15) found.push({ index: candidate, distance });
        }
      }
    }
    found.sort((a, b) => a.distance - b.distance || a.index - b.index);
    const result = found.slice(0, limit).map((entry) => entry.index);
    this.memo.set(index, result);
    return result;
  }

  private cellKey(row: number, column: number): string {
    return `${row}:${column}`;
  }
}

/** Great-circle distance in kilometres (the registry's one haversine, src/domain/geo.ts). */
export function distanceKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  return haversineKm({ lat: lat1, lng: lng1 }, { lat: lat2, lng: lng2 });
}

/**
 * Finds the commune of a postal address: among the communes of the postal code, the one whose
 * name matches the city (accents, case, hyphens and "Saint"/"St" aside), or the only one.
 */
export function createCommuneLookup(reference: CommuneReference = loadCommuneReference()): CommuneLookup {
  const all: (Commune | UnplacedCommune)[] = [...reference.communes, ...reference.unplaced];
  const byPostalCode = new Map<string, (Commune | UnplacedCommune)[]>();
  for (const commune of all) {
    for (const code of commune.postalCodes) {
      const list = byPostalCode.get(code);
      if (list) list.push(commune);
      else byPostalCode.set(code, [commune]);
    }
  }
  const byInsee = new Map(all.map((commune) => [commune.insee, commune]));
  for (const [arrondissement, commune] of reference.arrondissements) {
    const parent = byInsee.get(commune);
    if (parent) byInsee.set(arrondissement, parent);
  }
  const match = (commune: Commune | UnplacedCommune): CommuneMatch => ({
    insee: commune.insee,
    name: commune.name,
    lat: commune.lat,
    lng: commune.lng,
    population: commune.population,
    department: commune.department,
    region: commune.region,
    epci: commune.epci,
  });
  return {
    findByInsee(inseeCode) {
      const commune = byInsee.get(inseeCode);
      return commune ? match(commune) : null;
    },
    find(postalCode, city) {
      const candidates = byPostalCode.get(postalCode) ?? [];
      const wanted = comparableCity(city);
      const named = candidates.find((commune) => comparableCity(commune.name) === wanted);
      const commune = named ?? (candidates.length === 1 ? candidates[0] : undefined);
      return commune ? match(commune) : null;
    },
  };
}

function comparableCity(name: string): string {
  return slugify(name)
    .replace(/\bsainte?\b/g, (word) => (word === "sainte" ? "ste" : "st"))
    .replace(/-/g, "");
}

/** Accents, case, hyphens, apostrophes and "Saint"/"St" aside, as people type town names. */
function comparablePlace(name: string): string {
  return comparableCity(name).replace(/[^a-z0-9]/g, "");
}

/** At most this many close names are suggested for an unknown place. */
const PLACE_SUGGESTIONS = 5;

/** A commune as `near` reads it: placed (coordinates), or placed by another commune of its postal code. */
interface PlacedCommune {
  commune: Commune | UnplacedCommune;
  key: string;
  at: Commune;
}

/**
 * `near=` read against the commune reference (PlaceFinder): a postal code, a name (among
 * homonyms the most populated, or the one of the department given in parentheses or after a
 * comma), a postal code and a name together ("69003 Lyon"), a name and a district ("Lyon 3e",
 * "Paris 75011"). A commune the reference does not place is searched around the placed commune
 * that shares its postal code (the most populated). Unknown names get the closest names: one or
 * two letters away (one for short names), or beginning with what was typed, the most populated
 * first.
 */
export function createPlaceFinder(reference: CommuneReference = loadCommuneReference()): PlaceFinder {
  const placedByCode = new Map<string, Commune>();
  for (const commune of reference.communes) {
    for (const code of commune.postalCodes) {
      const current = placedByCode.get(code);
      if (!current || current.population < commune.population) placedByCode.set(code, commune);
    }
  }
  const all: PlacedCommune[] = [];
  /** Communes the reference knows but cannot place (no coordinates, none for their postal codes either). */
  const unplaceable = new Map<string, UnplacedCommune[]>();
  for (const commune of [...reference.communes, ...reference.unplaced]) {
    const at = commune.lat !== null ? commune : commune.postalCodes.map((code) => placedByCode.get(code)).find(Boolean);
    if (at) all.push({ commune, key: comparablePlace(commune.name), at });
    else if (commune.lat === null) {
      const key = comparablePlace(commune.name);
      unplaceable.set(key, [...(unplaceable.get(key) ?? []), commune]);
    }
  }
  all.sort((a, b) => b.commune.population - a.commune.population);
  const byName = new Map<string, PlacedCommune[]>();
  const byCode = new Map<string, PlacedCommune[]>();
  const add = (map: Map<string, PlacedCommune[]>, key: string, entry: PlacedCommune) => {
    const list = map.get(key);
    if (list) list.push(entry);
    else map.set(key, [entry]);
  };
  for (const entry of all) {
    add(byName, entry.key, entry);
    for (const code of entry.commune.postalCodes) add(byCode, code, entry);
  }
  const homonyms = (key: string) => (byName.get(key)?.length ?? 0) > 1;
  const label = (entry: PlacedCommune) =>
    homonyms(entry.key) ? `${entry.commune.name} (${entry.commune.department})` : entry.commune.name;
  const placeOf = (entry: PlacedCommune, postalCode?: string): PlaceLookup => ({
    place: {
      name: entry.commune.name,
      department: entry.commune.department,
      postalCode: postalCode ?? entry.commune.postalCodes[0] ?? "",
      lat: entry.at.lat,
      lng: entry.at.lng,
    },
  });

  /** Nothing found: with the closest names, or with what to give instead. */
  function unknown(reason: string, suggestions: string[]): PlaceLookup {
    return {
      place: null,
      reason:
        suggestions.length > 0 ? reason : `${reason}: give a town's name or a 5-digit postal code, or lat and lng`,
      suggestions,
    };
  }

  function suggestionsFor(key: string): string[] {
    if (key.length === 0) return [];
    const most = key.length <= 5 ? 1 : 2;
    const found: { entry: PlacedCommune; distance: number }[] = [];
    const seen = new Set<string>();
    for (const entry of all) {
      const distance = entry.key.startsWith(key) ? 0 : boundedEditDistance(key, entry.key, most);
      if (distance > most) continue;
      const name = label(entry);
      if (seen.has(name)) continue;
      seen.add(name);
      found.push({ entry, distance });
    }
    return found
      .sort((a, b) => a.distance - b.distance || b.entry.commune.population - a.entry.commune.population)
      .slice(0, PLACE_SUGGESTIONS)
      .map(({ entry }) => label(entry));
  }

  function byPostalCode(code: string, name: string | null): PlaceLookup {
    const communes = byCode.get(code) ?? [];
    const named = name === null ? undefined : communes.find((entry) => entry.key === comparablePlace(name));
    const chosen = named ?? communes[0];
    if (chosen) return placeOf(chosen, code);
    const sameArea = all.filter((entry) =>
      entry.commune.postalCodes.some((other) => other.slice(0, 3) === code.slice(0, 3)),
    );
    return unknown(`no French commune has the postal code ${code}`, [
      ...new Set(sameArea.slice(0, PLACE_SUGGESTIONS).map(label)),
    ]);
  }

  return {
    find(text) {
      const typed = text.trim().replace(/\s+/g, " ");
      const codeFirst = /^(\d{5})(?:\s+(.+))?$/.exec(typed);
      if (codeFirst) return byPostalCode(codeFirst[1] as string, codeFirst[2] ?? null);
      const codeLast = /^(.+?)\s+(\d{5})$/.exec(typed);
      if (codeLast) return byPostalCode(codeLast[2] as string, codeLast[1] as string);
      // "Saint-Denis (93)", "Saint-Denis, 93", "Lyon 3e", "Paris 11".
      const department = /^(.+?)\s*(?:\((\w{2,3})\)|,\s*(\w{2,3}))$/.exec(typed);
      const name = (department ? (department[1] as string) : typed).replace(/\s+\d{1,2}\s*(?:e|er|eme|ème)?$/i, "");
      const wantedDepartment = department ? (department[2] ?? department[3] ?? "").toUpperCase() : null;
      const key = comparablePlace(name);
      const named = byName.get(key) ?? [];
      const chosen =
        wantedDepartment === null ? named[0] : named.find((entry) => entry.commune.department === wantedDepartment);
      if (chosen) return placeOf(chosen);
      const known = (unplaceable.get(key) ?? []).find(
        (commune) => wantedDepartment === null || commune.department === wantedDepartment,
      );
      if (known) {
        return {
          place: null,
          reason: `the commune reference has no coordinates for ${known.name} (${known.department}): give lat and lng`,
          suggestions: [],
        };
      }
      if (named.length > 0) {
        return {
          place: null,
          reason: `no commune named "${name}" in department ${wantedDepartment}`,
          suggestions: named.slice(0, PLACE_SUGGESTIONS).map(label),
        };
      }
      return unknown(`no French commune is named "${typed}"`, suggestionsFor(key));
    },
  };
}

/** Levenshtein distance when at most `most`, else most + 1 (stops as soon as it is exceeded). */
function boundedEditDistance(a: string, b: string, most: number): number {
  if (Math.abs(a.length - b.length) > most) return most + 1;
  let previous = Array.from({ length: b.length + 1 }, (_unused, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let rowBest = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      current.push(value);
      rowBest = Math.min(rowBest, value);
    }
    if (rowBest > most) return most + 1;
    previous = current;
  }
  return previous[b.length] as number;
}
