import { LEAD_TYPES, type LeadType } from "../domain/lead-contract.ts";

/**
 * The lead types that fit a sector, most fitting first. The endpoint accepts all four for every
 * merchant; documents offer these (the first is what a product or the trade defaults to).
 */
const SECTOR_LEAD_TYPES: Record<string, LeadType[]> = {
  batiment: ["quote", "contact"],
  tourisme: ["quote", "contact"],
  alimentation: ["quote", "contact"],
  restauration: ["rdv", "contact"],
  beaute: ["rdv", "contact"],
  automobile: ["rdv", "quote", "contact"],
  immobilier: ["estimation", "contact"],
  assurance: ["quote", "contact"],
  sante_animale: ["rdv", "contact"],
  commerce: ["contact", "quote"],
  services: ["quote", "contact"],
};

export function leadTypesFor(sector: string): LeadType[] {
  return [...(SECTOR_LEAD_TYPES[sector] ?? LEAD_TYPES)];
}
