import { type LeadField, type LeadFieldType, type SectorKey, sectorOf } from "./sectors.ts";

/**
 * The lead contract: what an agent must send to POST /api/contact/brick for one merchant. It is
 * published in the decision card and by the MCP tool `get_lead_fields`, and the lead endpoint
 * validates `metadata` with `validateSectorMetadata` over the same field definitions, so the
 * document and the endpoint cannot drift apart.
 */

export const LEAD_ENDPOINT_PATH = "/api/contact/brick";
export const LEAD_SECTOR_FIELDS_PATH = "metadata";
export const LEAD_TYPES = ["estimation", "contact", "rdv", "quote"] as const;
export type LeadType = (typeof LEAD_TYPES)[number];

/** Fields the formal request schema requires (spec, POST /api/contact/brick; DESIGN, "Leads"). */
export const LEAD_REQUIRED_FIELDS = ["ab_id", "contact_name", "contact_email", "lead_type"] as const;

/**
 * Length limits (characters) of the base fields. The lead request schema must enforce these same
 * numbers: the contract publishes them as `max`.
 */
export const LEAD_FIELD_LIMITS = {
  contact_name: 100,
  contact_email: 254,
  contact_phone: 20,
  message: 5000,
  ai_context: 5000,
} as const;

/** Limit of a string sector field declared without its own `max`. */
export const SECTOR_STRING_DEFAULT_MAX = 500;

export interface LeadContractField {
  name: string;
  type: LeadFieldType;
  required: boolean;
  label: string;
  options?: string[];
  max?: number;
}

export type SectorMetadataValue = string | number | boolean;
export type SectorMetadata = Record<string, SectorMetadataValue>;

export interface LeadExamplePayload {
  ab_id: string;
  contact_name: string;
  contact_email: string;
  contact_phone: string;
  lead_type: LeadType;
  message: string;
  metadata: SectorMetadata;
}

export interface LeadContract {
  endpoint: string;
  method: "POST";
  policy: {
    all_fields_optional: boolean;
    /** What `all_fields_optional` speaks about: the sector fields under `metadata`. */
    all_fields_optional_applies_to: "sector_fields";
    ai_neutral: boolean;
  };
  required_target_fields: string[];
  base_fields: LeadContractField[];
  sector_fields: LeadContractField[];
  sector_fields_path: typeof LEAD_SECTOR_FIELDS_PATH;
  example_payload: LeadExamplePayload;
}

/*
 * The spec's sample contract marks every base field required=false under
 * `policy.all_fields_optional`, while the formal request schema (which the endpoint enforces, see
 * DESIGN "Leads") requires ab_id, contact_name, contact_email and lead_type. A contract an agent
 * follows to a 400 is not truthful, so the base fields carry the real `required` flags, and the
 * policy keeps `all_fields_optional: true` with `all_fields_optional_applies_to: "sector_fields"`:
 * every sector field is optional, which is true.
 */
export const LEAD_BASE_FIELDS: readonly LeadContractField[] = [
  {
    name: "contact_name",
    type: "string",
    required: true,
    label: "Nom du contact",
    max: LEAD_FIELD_LIMITS.contact_name,
  },
  {
    name: "contact_email",
    type: "email",
    required: true,
    label: "E-mail du contact",
    max: LEAD_FIELD_LIMITS.contact_email,
  },
  {
    name: "contact_phone",
    type: "tel",
    required: false,
    label: "Téléphone du contact",
    max: LEAD_FIELD_LIMITS.contact_phone,
  },
  { name: "lead_type", type: "enum", required: true, label: "Type de demande", options: [...LEAD_TYPES] },
  { name: "message", type: "text", required: false, label: "Message", max: LEAD_FIELD_LIMITS.message },
];

/** The sector fields of a sector family (empty for an unknown sector). */
export function sectorLeadFields(sectorKey: string): readonly LeadField[] {
  return sectorOf(sectorKey)?.leadFields ?? [];
}

/** The limit that applies to a field: its own `max`, else the default for free strings. */
export function fieldMax(field: Pick<LeadField, "type" | "max">): number | undefined {
  if (field.max !== undefined) return field.max;
  return field.type === "string" || field.type === "text" ? SECTOR_STRING_DEFAULT_MAX : undefined;
}

export interface BuildLeadContractOptions {
  /** Reference day for the example dates (next year's 15 June); defaults to today. */
  today?: Date;
}

export function buildLeadContract(
  baseUrl: string,
  sectorKey: string,
  abId: string,
  options: BuildLeadContractOptions = {},
): LeadContract {
  const fields = sectorLeadFields(sectorKey);
  const today = options.today ?? new Date();
  return {
    endpoint: `${baseUrl}${LEAD_ENDPOINT_PATH}`,
    method: "POST",
    policy: { all_fields_optional: true, all_fields_optional_applies_to: "sector_fields", ai_neutral: true },
    required_target_fields: ["ab_id"],
    base_fields: LEAD_BASE_FIELDS.map(copyField),
    sector_fields: fields.map(copyField),
    sector_fields_path: LEAD_SECTOR_FIELDS_PATH,
    example_payload: {
      ab_id: abId,
      contact_name: "Camille Martin",
      contact_email: "camille.martin@example.fr",
      contact_phone: "+33 6 12 34 56 78",
      lead_type: EXAMPLE_LEAD_TYPE[sectorKey as SectorKey] ?? "contact",
      message:
        EXAMPLE_MESSAGE[sectorKey as SectorKey] ?? "Bonjour, pourriez-vous me recontacter au sujet de ma demande ?",
      metadata: Object.fromEntries(fields.map((field) => [field.name, exampleValue(field, today)])),
    },
  };
}

function copyField(field: LeadField | LeadContractField): LeadContractField {
  const max = fieldMax(field);
  return {
    name: field.name,
    type: field.type,
    required: field.required,
    label: field.label,
    ...(field.options ? { options: [...field.options] } : {}),
    ...(max !== undefined ? { max } : {}),
  };
}

const EXAMPLE_LEAD_TYPE: Partial<Record<SectorKey, LeadType>> = {
  batiment: "quote",
  tourisme: "quote",
  alimentation: "quote",
  restauration: "rdv",
  beaute: "rdv",
  automobile: "rdv",
  immobilier: "estimation",
  assurance: "quote",
  sante_animale: "rdv",
  commerce: "contact",
  services: "quote",
};

const EXAMPLE_MESSAGE: Partial<Record<SectorKey, string>> = {
  tourisme: "Bonjour, nous organisons un séminaire d'équipe et souhaitons recevoir une proposition.",
  batiment: "Bonjour, je souhaite un devis pour des travaux à mon domicile.",
  alimentation: "Bonjour, je souhaite passer une commande pour un repas de famille.",
  restauration: "Bonjour, je souhaite réserver une table.",
  beaute: "Bonjour, je souhaite prendre rendez-vous.",
  automobile: "Bonjour, je souhaite prendre rendez-vous pour l'entretien de mon véhicule.",
  commerce: "Bonjour, avez-vous ce produit en stock ?",
  immobilier: "Bonjour, je souhaite faire estimer mon bien.",
  assurance: "Bonjour, je souhaite un devis d'assurance.",
  sante_animale: "Bonjour, je souhaite prendre rendez-vous pour mon animal.",
  services: "Bonjour, je souhaite un devis pour une prestation.",
};

/** Plausible values an agent can read as an illustration; each passes `validateSectorMetadata`. */
const EXAMPLE_VALUES: Record<string, SectorMetadataValue> = {
  nb_participants: 25,
  budget_range: "5 000 à 8 000 €",
  destination: "Annecy",
  surface_m2: 85,
  adresse_chantier: "12 rue des Lilas, 69003 Lyon",
  nb_personnes: 12,
  allergies: "Sans gluten pour deux personnes",
  nb_couverts: 4,
  heure: "20:00",
  regime_alimentaire: "Végétarien",
  prestation: "Coupe et brushing",
  premiere_visite: true,
  marque_modele: "Renault Clio IV",
  immatriculation: "AB-123-CD",
  kilometrage: 84000,
  produit_recherche: "Bouquet de saison",
  quantite: 2,
  localisation: "Bordeaux, quartier Chartrons",
  situation: "Propriétaire d'une maison, deux enfants",
  motif: "Vaccination annuelle",
  urgence: false,
};

function exampleValue(field: LeadField, today: Date): SectorMetadataValue {
  const known = EXAMPLE_VALUES[field.name];
  if (known !== undefined && validateField(field, known) === null) return known;
  switch (field.type) {
    case "enum":
      return field.options?.[0] ?? "";
    case "number":
      return Math.min(10, field.max ?? 10);
    case "date":
      // 15 June of next year: a plausible future date that moves only once a year.
      return `${today.getUTCFullYear() + 1}-06-15`;
    case "boolean":
      return true;
    case "email":
      return "contact@example.fr";
    case "tel":
      return "+33 6 12 34 56 78";
    default:
      return "À préciser";
  }
}

export interface MetadataIssue {
  path: string;
  message: string;
}

export type SectorMetadataResult = { ok: true; value: SectorMetadata } | { ok: false; issues: MetadataIssue[] };

/**
 * Checks a lead's `metadata` against the sector family's fields: unknown keys are refused (the
 * message lists the allowed ones), each value must have its field's type. An absent or null
 * `metadata`, and a null member, count as "not given". Issue paths are `metadata.<field>`.
 */
export function validateSectorMetadata(sectorKey: string, metadata: unknown): SectorMetadataResult {
  const fields = sectorLeadFields(sectorKey);
  const given = metadata ?? {};
  if (typeof given !== "object" || Array.isArray(given)) {
    return { ok: false, issues: [{ path: LEAD_SECTOR_FIELDS_PATH, message: "must be an object" }] };
  }
  const record = given as Record<string, unknown>;
  const byName = new Map(fields.map((field) => [field.name, field]));
  const allowed = fields.length > 0 ? fields.map((field) => field.name).join(", ") : "none";
  const issues: MetadataIssue[] = [];
  const value: SectorMetadata = {};
  for (const [key, raw] of Object.entries(record)) {
    const path = `${LEAD_SECTOR_FIELDS_PATH}.${key}`;
    const field = byName.get(key);
    if (!field) {
      issues.push({ path, message: `is not a field of the ${sectorKey} lead contract; allowed fields: ${allowed}` });
      continue;
    }
    if (raw === null || raw === undefined) continue;
    const problem = validateField(field, raw);
    if (problem !== null) issues.push({ path, message: problem });
    else value[key] = raw as SectorMetadataValue;
  }
  for (const field of fields) {
    if (field.required && (record[field.name] === undefined || record[field.name] === null)) {
      issues.push({ path: `${LEAD_SECTOR_FIELDS_PATH}.${field.name}`, message: "is required" });
    }
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value };
}

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const TEL_PATTERN = /^\+?[0-9 .()-]{6,20}$/;

/** Null when the value fits the field, else what is wrong, in technical English. */
function validateField(field: Pick<LeadField, "type" | "options" | "max">, raw: unknown): string | null {
  const max = fieldMax(field);
  switch (field.type) {
    case "number":
      if (typeof raw !== "number" || !Number.isFinite(raw)) return "must be a finite number";
      if (raw < 0) return "must not be negative";
      if (max !== undefined && raw > max) return `must be at most ${max}`;
      return null;
    case "boolean":
      return typeof raw === "boolean" ? null : "must be true or false";
    case "enum": {
      const options = field.options ?? [];
      return typeof raw === "string" && options.includes(raw) ? null : `must be one of: ${options.join(", ")}`;
    }
    case "date":
      return typeof raw === "string" && isCalendarDate(raw) ? null : "must be a calendar date written YYYY-MM-DD";
    case "email":
      if (typeof raw !== "string" || !EMAIL_PATTERN.test(raw)) return "must be an email address";
      return max !== undefined && raw.length > max ? `must be at most ${max} characters` : null;
    case "tel":
      return typeof raw === "string" && TEL_PATTERN.test(raw) ? null : "must be a phone number";
    default:
      if (typeof raw !== "string") return "must be a string";
      return max !== undefined && [...raw].length > max ? `must be at most ${max} characters` : null;
  }
}

function isCalendarDate(text: string): boolean {
  const match = DATE_PATTERN.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
