import { readFileSync } from "node:fs";
import { z } from "zod";

/**
 * How well ProConnect knows the person who signs in: the `acr` of its ID token
 * (data/proconnect-assurance.json, from ProConnect's partner documentation). Abeille asks for it as
 * an essential claim at the levels the deployment accepts (`PROCONNECT_MIN_ACR`, eidas1 by
 * default) and checks it in the ID token: a token without `acr`, with a value ProConnect does not
 * document, or below the minimum opens no session.
 *
 * The `siret` ProConnect sends is the organisation the person chose, not a proof of ownership: it
 * reaches that one establishment. Only the company-manager level (`certification-dirigeant`: the
 * person is a registered manager of the company in the RNE and SIRENE) reaches every
 * establishment of the company (the `siren`).
 */

const assuranceSchema = z.object({
  format: z.literal(1),
  company_manager: z.string().min(1),
  levels: z
    .array(z.object({ acr: z.string().min(1), rank: z.number().int().min(0), label_fr: z.string().min(1) }))
    .min(1),
});

const assurance = assuranceSchema.parse(
  JSON.parse(readFileSync(new URL("../../../data/proconnect-assurance.json", import.meta.url), "utf8")),
);

/** The level that proves the person manages the company (RNE, SIRENE). */
export const COMPANY_MANAGER_ACR: string = assurance.company_manager;

const ranks = new Map(assurance.levels.map((level) => [level.acr, level.rank]));
const labels = new Map(assurance.levels.map((level) => [level.acr, level.label_fr]));

/** The eIDAS levels a deployment may set as its minimum (PROCONNECT_MIN_ACR). */
export const MINIMUM_ACR_CHOICES: readonly string[] = assurance.levels
  .map((level) => level.acr)
  .filter((acr) => acr !== COMPANY_MANAGER_ACR);

export const DEFAULT_MINIMUM_ACR = "eidas1";

export function isKnownAcr(acr: string): boolean {
  return ranks.has(acr);
}

/** The French words for a level, as the pages show it. */
export function acrLabelFr(acr: string): string {
  return labels.get(acr) ?? acr;
}

/** What a sign-in asks ProConnect for: the accepted levels (most assured first), or the company manager's alone. */
export type AssuranceRequest = "standard" | "company_manager";

/**
 * The `acr` values a sign-in requests as essential: for the standard sign-in, every eIDAS level at
 * or above the minimum (ProConnect answers the one the person's authentication reached); for the
 * company manager's, that level alone (ProConnect then checks the person against the RNE).
 */
export function requestedAcrValues(minimum: string, request: AssuranceRequest): string[] {
  if (request === "company_manager") return [COMPANY_MANAGER_ACR];
  const floor = ranks.get(minimum) ?? Number.POSITIVE_INFINITY;
  return assurance.levels
    .filter((level) => level.acr !== COMPANY_MANAGER_ACR && level.rank >= floor)
    .sort((a, b) => b.rank - a.rank)
    .map((level) => level.acr);
}

/** Why an ID token's `acr` opens no session. */
export type AssuranceRefusal = "missing" | "unknown" | "below_minimum";

/** Null when `acr` opens a session at this minimum; otherwise why not. */
export function assuranceRefusal(acr: string | null, minimum: string): AssuranceRefusal | null {
  if (acr === null) return "missing";
  const rank = ranks.get(acr);
  if (rank === undefined) return "unknown";
  return rank >= (ranks.get(minimum) ?? Number.POSITIVE_INFINITY) ? null : "below_minimum";
}
