import { readFileSync } from "node:fs";
import { z } from "zod";
import { type NafNomenclature, nomenclatureOf } from "./naf.ts";

/**
 * Trades the registry knows, grouped into sector families. A family decides the lead contract's
 * sector fields and which sector-specific signals apply; a trade decides the NAF code, the
 * Schema.org type and the words a searcher may type.
 */
export type LeadFieldType = "string" | "number" | "date" | "enum" | "boolean" | "email" | "tel" | "text";

export interface LeadField {
  name: string;
  type: LeadFieldType;
  required: boolean;
  label: string;
  options?: string[];
  /** Each option as a person reads it, in French (the options themselves are codes agents send). */
  optionLabels?: Readonly<Record<string, string>>;
  /** Upper bound for strings (characters) or numbers (value). */
  max?: number;
}

export const SECTOR_KEYS = [
  "batiment",
  "alimentation",
  "restauration",
  "beaute",
  "automobile",
  "tourisme",
  "commerce",
  "immobilier",
  "assurance",
  "sante_animale",
  "services",
] as const;

export type SectorKey = (typeof SECTOR_KEYS)[number];

export interface Sector {
  key: SectorKey;
  label: string;
  leadFields: LeadField[];
}

export interface Trade {
  key: string;
  /** The trade's first NAF rev. 2 sub-class (its NAF 2025 one when it has none): the code the demo seed gives it. */
  nafCode: string;
  /** Its NAF rev. 2 sub-classes. */
  nafCodes: readonly string[];
  /** Its NAF 2025 sub-classes. */
  naf2025Codes: readonly string[];
  /** The trade as people name it, in French (singular). */
  label: string;
  /** Its name in English. */
  nameEn: string;
  sector: SectorKey;
  schemaOrgType: string;
  /**
   * The JSON-LD's types when the trade's own type is not a LocalBusiness (a vet's office is a
   * MedicalOrganization): with LocalBusiness beside it, the address, hours and prices are
   * properties of the node's types.
   */
  schemaOrgTypes?: readonly string[];
  /** What searchers call the trade, French and English: a one-word name is a trade word (docs/search.md). */
  names: readonly string[];
  /** Other words indexed with the trade (French, singular). */
  keywords: readonly string[];
}

const dateField = (name: string, label: string): LeadField => ({ name, type: "date", required: false, label });
const textField = (name: string, label: string, max = 200): LeadField => ({
  name,
  type: "string",
  required: false,
  label,
  max,
});
const numberField = (name: string, label: string, max: number): LeadField => ({
  name,
  type: "number",
  required: false,
  label,
  max,
});
/** A choice among codes, each given with its French label: `[code, label]`. */
const enumField = (name: string, label: string, options: readonly (readonly [string, string])[]): LeadField => ({
  name,
  type: "enum",
  required: false,
  label,
  options: options.map(([code]) => code),
  optionLabels: Object.fromEntries(options),
});

export const sectors: Record<SectorKey, Sector> = {
  tourisme: {
    key: "tourisme",
    label: "Tourisme et événementiel",
    leadFields: [
      enumField("event_type", "Type d'événement", [
        ["seminaire", "Séminaire"],
        ["team_building", "Team building"],
        ["incentive", "Voyage de motivation (incentive)"],
        ["sejour_groupe", "Séjour de groupe"],
        ["visite_guidee", "Visite guidée"],
        ["hebergement", "Hébergement"],
      ]),
      numberField("nb_participants", "Nombre de participants", 10000),
      dateField("date_souhaitee", "Date souhaitée"),
      textField("budget_range", "Budget"),
      textField("destination", "Destination"),
    ],
  },
  batiment: {
    key: "batiment",
    label: "Bâtiment et travaux",
    leadFields: [
      enumField("type_travaux", "Type de travaux", [
        ["installation", "Installation"],
        ["renovation", "Rénovation"],
        ["depannage", "Dépannage"],
        ["entretien", "Entretien"],
        ["diagnostic", "Diagnostic"],
      ]),
      numberField("surface_m2", "Surface (m²)", 100000),
      textField("adresse_chantier", "Adresse du chantier"),
      dateField("date_souhaitee", "Date souhaitée"),
      textField("budget_range", "Budget"),
    ],
  },
  alimentation: {
    key: "alimentation",
    label: "Alimentation",
    leadFields: [
      enumField("type_commande", "Type de commande", [
        ["retrait_boutique", "Retrait en boutique"],
        ["livraison", "Livraison"],
        ["evenement", "Événement"],
      ]),
      numberField("nb_personnes", "Nombre de personnes", 10000),
      dateField("date_souhaitee", "Date souhaitée"),
      textField("allergies", "Allergies ou régimes"),
    ],
  },
  restauration: {
    key: "restauration",
    label: "Restauration",
    leadFields: [
      numberField("nb_couverts", "Nombre de couverts", 1000),
      dateField("date_souhaitee", "Date souhaitée"),
      textField("heure", "Heure", 20),
      enumField("occasion", "Occasion", [
        ["repas", "Repas"],
        ["anniversaire", "Anniversaire"],
        ["affaires", "Repas d'affaires"],
        ["groupe", "Groupe"],
      ]),
      textField("regime_alimentaire", "Régime alimentaire"),
    ],
  },
  beaute: {
    key: "beaute",
    label: "Beauté et bien-être",
    leadFields: [
      textField("prestation", "Prestation"),
      dateField("date_souhaitee", "Date souhaitée"),
      enumField("creneau", "Créneau", [
        ["matin", "Matin"],
        ["apres_midi", "Après-midi"],
        ["soir", "Soir"],
      ]),
      { name: "premiere_visite", type: "boolean", required: false, label: "Première visite" },
    ],
  },
  automobile: {
    key: "automobile",
    label: "Automobile",
    leadFields: [
      textField("marque_modele", "Marque et modèle"),
      textField("immatriculation", "Immatriculation", 20),
      numberField("kilometrage", "Kilométrage", 2000000),
      enumField("type_intervention", "Type d'intervention", [
        ["entretien", "Entretien"],
        ["reparation", "Réparation"],
        ["controle", "Contrôle"],
        ["pneus", "Pneus"],
        ["carrosserie", "Carrosserie"],
      ]),
    ],
  },
  commerce: {
    key: "commerce",
    label: "Commerce de proximité",
    leadFields: [
      textField("produit_recherche", "Produit recherché"),
      numberField("quantite", "Quantité", 10000),
      dateField("date_souhaitee", "Date souhaitée"),
      enumField("retrait_ou_livraison", "Retrait ou livraison", [
        ["retrait", "Retrait en magasin"],
        ["livraison", "Livraison"],
      ]),
    ],
  },
  immobilier: {
    key: "immobilier",
    label: "Immobilier",
    leadFields: [
      enumField("projet", "Projet", [
        ["achat", "Achat"],
        ["vente", "Vente"],
        ["location", "Location"],
        ["gestion", "Gestion locative"],
        ["estimation", "Estimation"],
      ]),
      enumField("type_bien", "Type de bien", [
        ["appartement", "Appartement"],
        ["maison", "Maison"],
        ["terrain", "Terrain"],
        ["local", "Local commercial ou professionnel"],
      ]),
      numberField("surface_m2", "Surface (m²)", 100000),
      textField("budget_range", "Budget"),
      textField("localisation", "Localisation"),
    ],
  },
  assurance: {
    key: "assurance",
    label: "Assurance",
    leadFields: [
      enumField("type_contrat", "Type de contrat", [
        ["habitation", "Habitation"],
        ["auto", "Automobile"],
        ["sante", "Santé"],
        ["prevoyance", "Prévoyance"],
        ["professionnelle", "Assurance professionnelle"],
      ]),
      textField("situation", "Situation"),
      dateField("date_effet", "Date d'effet souhaitée"),
    ],
  },
  sante_animale: {
    key: "sante_animale",
    label: "Santé animale",
    leadFields: [
      enumField("espece", "Espèce", [
        ["chien", "Chien"],
        ["chat", "Chat"],
        ["nac", "Nouvel animal de compagnie (NAC)"],
        ["equide", "Cheval ou autre équidé"],
        ["autre", "Autre"],
      ]),
      textField("motif", "Motif de consultation"),
      { name: "urgence", type: "boolean", required: false, label: "Urgence" },
    ],
  },
  services: {
    key: "services",
    label: "Services aux particuliers",
    leadFields: [
      textField("prestation", "Prestation"),
      dateField("date_souhaitee", "Date souhaitée"),
      textField("budget_range", "Budget"),
    ],
  },
};

/*
 * The trades come from data/naf-trades.json: every NAF rev. 2 and NAF 2025 sub-class of commerce
 * and services open to the public, each in one trade, and what is left out with why (data/README.md).
 */
const TABLE_FILE = "data/naf-trades.json";
const tableSchema = z.object({
  format: z.literal(1),
  trades: z.array(
    z.strictObject({
      key: z.string().regex(/^[a-z][a-z0-9_]*$/),
      sector: z.enum(SECTOR_KEYS),
      schema_org: z.union([z.string().min(1), z.array(z.string().min(1)).min(2)]),
      name_fr: z.string().min(1),
      name_en: z.string().min(1),
      naf_rev2: z.array(z.string()),
      naf_2025: z.array(z.string()),
      names: z.array(z.string().min(1)).min(1),
      keywords: z.array(z.string().min(1)),
    }),
  ),
  left_out: z.array(
    z.strictObject({
      why: z.string().min(1),
      naf_rev2: z.array(z.string().regex(/^\d{2}(?:\.\d{1,2}[A-Z]?)?$/)),
      naf_2025: z.array(z.string().regex(/^\d{2}(?:\.\d{1,2}[A-Z]?)?$/)),
    }),
  ),
});

const table = tableSchema.parse(JSON.parse(readFileSync(new URL(`../../${TABLE_FILE}`, import.meta.url), "utf8")));

/** What the registry leaves out, and why: each code is a division, group, class or sub-class. */
export interface LeftOutActivities {
  why: string;
  nafRev2: readonly string[];
  naf2025: readonly string[];
}

export const leftOutActivities: readonly LeftOutActivities[] = table.left_out.map((entry) => ({
  why: entry.why,
  nafRev2: entry.naf_rev2,
  naf2025: entry.naf_2025,
}));

export const trades: Trade[] = table.trades.map((entry) => {
  const [first = entry.naf_2025[0]] = entry.naf_rev2;
  if (first === undefined)
    throw new Error(`${TABLE_FILE}: trade ${entry.key} has no NAF code; give it one or remove it`);
  return {
    key: entry.key,
    nafCode: first,
    nafCodes: entry.naf_rev2,
    naf2025Codes: entry.naf_2025,
    label: entry.name_fr,
    nameEn: entry.name_en,
    sector: entry.sector,
    schemaOrgType: typeof entry.schema_org === "string" ? entry.schema_org : (entry.schema_org[0] as string),
    ...(typeof entry.schema_org === "string" ? {} : { schemaOrgTypes: entry.schema_org }),
    names: entry.names,
    keywords: entry.keywords,
  };
});

/** Each code's trade, one map per nomenclature; a code in two trades, or in the wrong list, stops the start. */
function codeMap(nomenclature: NafNomenclature, codesOf: (trade: Trade) => readonly string[]): Map<string, Trade> {
  const byCode = new Map<string, Trade>();
  const list = nomenclature === "rev2" ? "naf_rev2" : "naf_2025";
  for (const trade of trades) {
    for (const code of codesOf(trade)) {
      if (nomenclatureOf(code) !== nomenclature) {
        throw new Error(
          `${TABLE_FILE}: ${code} in ${list} of trade ${trade.key} is not a NAF ${nomenclature} sub-class`,
        );
      }
      const other = byCode.get(code);
      if (other) throw new Error(`${TABLE_FILE}: ${code} is in trades ${other.key} and ${trade.key}; keep it in one`);
      byCode.set(code, trade);
    }
  }
  return byCode;
}

const tradesByNafRev2 = codeMap("rev2", (trade) => trade.nafCodes);
const tradesByNaf2025 = codeMap("2025", (trade) => trade.naf2025Codes);
const tradesByKey = new Map(trades.map((trade) => [trade.key, trade]));
if (tradesByKey.size !== trades.length) throw new Error(`${TABLE_FILE}: two trades share a key`);

/** The trade of a NAF sub-class, of NAF rev. 2 or NAF 2025 (the two share no code). */
export function tradeForNaf(nafCode: string): Trade | undefined {
  return tradesByNafRev2.get(nafCode) ?? tradesByNaf2025.get(nafCode);
}

/** The trade of a NAF 2025 sub-class. */
export function tradeForNaf2025(nafCode: string): Trade | undefined {
  return tradesByNaf2025.get(nafCode);
}

export function tradeByKey(key: string): Trade | undefined {
  return tradesByKey.get(key);
}

/**
 * An establishment's trade from its two codes: the NAF 2025 code when it has one (INSEE's
 * newer and finer classification, and SIRENE's only one from 2027, so a merchant keeps its trade
 * across the switch), else the NAF rev. 2 code. A NAF 2025 code the table leaves out leaves the
 * establishment out, whatever its rev. 2 code (docs/decisions.md).
 */
export function tradeOf(codes: { nafCode: string; nafCode2025: string | null }): Trade | undefined {
  if (codes.nafCode2025 !== null && nomenclatureOf(codes.nafCode2025) === "2025") {
    return tradesByNaf2025.get(codes.nafCode2025);
  }
  return tradeForNaf(codes.nafCode);
}

export function sectorOf(key: string): Sector | undefined {
  return (sectors as Record<string, Sector | undefined>)[key];
}
