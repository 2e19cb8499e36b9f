import type { LeadType } from "../lead-contract.ts";
import { sectorLeadFields } from "../lead-contract.ts";
import type { LeadField } from "../sectors.ts";
import { sectorOf } from "../sectors.ts";
import { type EmailRow, frenchDate, frenchNumber, humanizeCode } from "./email-format.ts";

/** French wording of lead fields for the merchant-facing emails. */

export const LEAD_TYPE_NOUN: Record<LeadType, string> = {
  estimation: "demande d'estimation",
  contact: "demande de contact",
  rdv: "demande de rendez-vous",
  quote: "demande de devis",
};

export function leadTypeNoun(leadType: string): string {
  return LEAD_TYPE_NOUN[leadType as LeadType] ?? "demande";
}

const URGENCY: Record<string, string> = {
  immediate: "Immédiate",
  within_week: "Dans la semaine",
  within_month: "Dans le mois",
  within_quarter: "Dans le trimestre",
  exploring: "En réflexion, sans urgence",
};

const PREFERRED_CONTACT: Record<string, string> = {
  email: "E-mail",
  phone: "Téléphone",
  whatsapp: "WhatsApp",
  both: "E-mail ou téléphone",
};

const INTENT_FIELDS: { key: string; label: string; values?: Record<string, string> }[] = [
  { key: "urgency", label: "Urgence", values: URGENCY },
  { key: "budget_range", label: "Budget" },
  { key: "project_type", label: "Type de projet" },
  { key: "timeline", label: "Calendrier" },
];

export function preferredContactLabel(value: string | undefined): string | null {
  return value ? (PREFERRED_CONTACT[value] ?? value) : null;
}

export function intentRows(intentData: Record<string, string> | null): EmailRow[] {
  if (!intentData) return [];
  return INTENT_FIELDS.flatMap(({ key, label, values }) => {
    const value = intentData[key];
    if (value === undefined || value === "") return [];
    return [{ label, value: values?.[value] ?? value }];
  });
}

/** Sector fields with their French labels from the lead contract, in the contract's order. */
export function sectorRows(sectorKey: string, metadata: Record<string, unknown> | null): EmailRow[] {
  if (!metadata) return [];
  return sectorLeadFields(sectorKey).flatMap((field) => {
    const value = metadata[field.name];
    if (value === undefined || value === null || value === "") return [];
    return [{ label: field.label, value: formatSectorValue(field, value) }];
  });
}

export function sectorLabel(sectorKey: string): string | null {
  return sectorOf(sectorKey)?.label ?? null;
}

function formatSectorValue(field: LeadField, value: unknown): string {
  if (typeof value === "boolean") return value ? "Oui" : "Non";
  if (typeof value === "number") return frenchNumber(value);
  const text = String(value);
  if (field.type === "date") return frenchDate(text);
  if (field.type === "enum") return field.optionLabels?.[text] ?? humanizeCode(text);
  return text;
}
