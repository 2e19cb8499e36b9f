/**
 * Small French word lists for the demo seed (common given names, surnames, street and place names,
 * as data in data/seed-words.json) and the few text helpers the seed builds names with.
 */

import { readFileSync } from "node:fs";
import { z } from "zod";
import { slugify } from "../domain/format.ts";

const wordsSchema = z.object({
  format: z.literal(1),
  first_names_f: z.array(z.string().min(1)).min(1),
  first_names_m: z.array(z.string().min(1)).min(1),
  last_names: z.array(z.string().min(1)).min(1),
  street_types: z.array(z.tuple([z.string().min(1), z.number().positive()])).min(1),
  street_names: z.array(z.string().min(1)).min(1),
  place_names: z.array(z.string().min(1)).min(1),
});

/** data/seed-words.json, checked on load (the arrays kept as the file has them). */
const words = wordsSchema.parse(
  JSON.parse(readFileSync(new URL("../../data/seed-words.json", import.meta.url), "utf8")),
);

export const FIRST_NAMES_F: readonly string[] = words.first_names_f;
export const FIRST_NAMES_M: readonly string[] = words.first_names_m;
export const LAST_NAMES: readonly string[] = words.last_names;
/** Street types with their share among French addresses (rue first, by far). */
export const STREET_TYPES: readonly [type: string, weight: number][] = words.street_types;
export const STREET_NAMES: readonly string[] = words.street_names;
/** Places a shop names itself after ("Boulangerie du Marché"). */
export const PLACE_NAMES: readonly string[] = words.place_names;

const slugCache = new Map<string, string>();

/** slugify() for the small vocabularies (names, communes, product names), remembered. */
export function cachedSlug(text: string): string {
  let slug = slugCache.get(text);
  if (slug === undefined) {
    slug = slugify(text);
    if (slugCache.size < 50_000) slugCache.set(text, slug);
  }
  return slug;
}

export { slugify };

const ELIDING = /^[aeiouyàâéèêëîïôöûü]/i;

/** "de" before a place name: "de Lyon", "d'Évreux", "du Mans", "des Sables-d'Olonne". */
export function deName(name: string): string {
  if (name.startsWith("Le ")) return `du ${name.slice(3)}`;
  if (name.startsWith("Les ")) return `des ${name.slice(4)}`;
  return ELIDING.test(name) ? `d'${name}` : `de ${name}`;
}

/** "à" before a place name: "à Lyon", "au Mans", "aux Sables-d'Olonne". */
export function aName(name: string): string {
  if (name.startsWith("Le ")) return `au ${name.slice(3)}`;
  if (name.startsWith("Les ")) return `aux ${name.slice(4)}`;
  return `à ${name}`;
}
