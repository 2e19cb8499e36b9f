import { readFileSync } from "node:fs";
import { z } from "zod";

/**
 * What each trade of src/domain/sectors.ts looks like in the demo registry: how shops name
 * themselves, what they sell (the "bricks"), their opening hours and a few description phrases.
 * Everything is invented but plausible; tags are lowercase ASCII slugs. The catalogue itself is
 * data (data/trade-content.json); this module gives it its types and checks it on load.
 */
export type PricingModel = "fixed" | "from" | "on_quote" | "hourly";
export type InventoryStatus = "in_stock" | "on_quote" | "made_to_order";
export type BrickType = "service" | "product";

export interface ProductTemplate {
  name: string;
  description: string;
  tags: string[];
  type: BrickType;
  /** Reference price in euros; null when the price is given on quote. */
  price: number | null;
  pricing: PricingModel;
  inventory: InventoryStatus;
  /** What the price is for ("le kg", "par personne"), appended to price answers. */
  unit?: string;
}

export type HoursKey =
  | "artisan"
  | "bakery"
  | "butcher"
  | "office"
  | "restaurant"
  | "salon"
  | "garage"
  | "shop"
  | "hotel"
  | "tourism"
  | "clinic"
  | "gym";

export interface TradeContent {
  /** Words a trade name is built on ("Plomberie"); the search word is derived from them. */
  nameWords: string[];
  /** {W} trade word, {L} surname, {F} first name, {P} place ("du Marché"), {C} commune. */
  namePatterns: string[];
  /** "une entreprise de plomberie et de chauffage" */
  activity: string;
  specialties: string[];
  closings: string[];
  hours: HoursKey;
  /** Travels to customers: zones list the communes served. */
  travels: boolean;
  /** Usual lead times, for Q&A answers. */
  delays: string[];
  products: ProductTemplate[];
}

const HOURS_KEYS = [
  "artisan",
  "bakery",
  "butcher",
  "office",
  "restaurant",
  "salon",
  "garage",
  "shop",
  "hotel",
  "tourism",
  "clinic",
  "gym",
] as const satisfies readonly HoursKey[];

const productTemplateSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string().min(1),
  tags: z.array(z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/)),
  type: z.enum(["service", "product"]),
  price: z.number().min(0).nullable(),
  pricing: z.enum(["fixed", "from", "on_quote", "hourly"]),
  inventory: z.enum(["in_stock", "on_quote", "made_to_order"]),
  unit: z.string().min(1).optional(),
});

const tradeContentSchema = z.strictObject({
  nameWords: z.array(z.string().min(1)).min(1),
  namePatterns: z.array(z.string().min(1)).min(1),
  activity: z.string().min(1),
  specialties: z.array(z.string().min(1)).min(1),
  closings: z.array(z.string().min(1)).min(1),
  hours: z.enum(HOURS_KEYS),
  travels: z.boolean(),
  delays: z.array(z.string().min(1)).min(1),
  products: z.array(productTemplateSchema).min(1),
});

const tradeContentFileSchema = z.object({
  format: z.literal(1),
  trades: z.record(z.string(), tradeContentSchema),
  hours: z.record(z.enum(HOURS_KEYS), z.array(z.array(z.string()).length(7)).min(1)),
});

interface TradeContentFile {
  trades: Record<string, TradeContent>;
  hours: Record<HoursKey, string[][]>;
}

/**
 * data/trade-content.json, checked against the schema above. The file's own objects are kept
 * (not zod's copies), so the seed reads them in the file's order and stays byte for byte the same.
 */
function loadTradeContent(): TradeContentFile {
  const raw: unknown = JSON.parse(readFileSync(new URL("../../data/trade-content.json", import.meta.url), "utf8"));
  tradeContentFileSchema.parse(raw);
  return raw as TradeContentFile;
}

const content = loadTradeContent();

export const tradeContent: Record<string, TradeContent> = content.trades;

/** Opening hours per pattern: one alternative is drawn per merchant (lundi ... dimanche). */
export const HOURS: Record<HoursKey, string[][]> = content.hours;

export const WEEKDAYS = ["lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"] as const;
