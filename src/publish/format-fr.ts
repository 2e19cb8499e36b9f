import { parisMoment } from "../domain/availability/opening.ts";
import type { HoursException, MerchantClosure, Product } from "../domain/merchant.ts";
import type { MerchantOpening } from "../schemas/registry.ts";

/** French renderings for merchant-facing text (microsite, ai.md, snippets). */

/** "1 234,50 €" with a regular space as the group separator (no ICU: stable and fast). */
export function formatAmountFr(cents: number, currency: string): string {
  const sign = cents < 0 ? "-" : "";
  const absolute = Math.abs(Math.round(cents));
  const units = String(Math.floor(absolute / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, " ");
  const text = `${sign}${units},${String(absolute % 100).padStart(2, "0")}`;
  return currency === "EUR" ? `${text} €` : `${text} ${currency}`;
}

/** "120,00 €", "à partir de 45,00 €", "60,00 € / heure" or "sur devis". */
export function formatPriceFr(product: Pick<Product, "priceCents" | "currency" | "pricingModel">): string {
  if (product.priceCents === null || product.pricingModel === "on_quote") return "sur devis";
  const amount = formatAmountFr(product.priceCents, product.currency);
  if (product.pricingModel === "from") return `à partir de ${amount}`;
  if (product.pricingModel === "hourly") return `${amount} / heure`;
  return amount;
}

const MONTHS = [
  "janvier",
  "février",
  "mars",
  "avril",
  "mai",
  "juin",
  "juillet",
  "août",
  "septembre",
  "octobre",
  "novembre",
  "décembre",
];

/** "1er mars 2026" from an ISO date or date-time (UTC calendar day); the input itself when unreadable. */
export function formatDateFr(iso: string | null): string {
  if (!iso) return "";
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(iso);
  if (!match) return iso;
  const day = Number(match[3]);
  const month = MONTHS[Number(match[2]) - 1] ?? match[2];
  return `${day === 1 ? "1er" : day} ${month} ${match[1]}`;
}

export const STATUS_LABELS_FR: Record<string, string> = {
  ACTIVE: "Actif",
  PROBATION: "En période probatoire",
  PAUSED: "En pause",
  SUSPENDED: "Suspendu",
  ARCHIVED: "Archivé",
};

export const COMPONENT_LABELS_FR = {
  experience: "Expérience",
  expertise: "Expertise",
  authority: "Autorité",
  trust: "Fiabilité",
} as const;

export const PROOF_LABELS_FR: Record<string, string> = {
  official_source_verified: "source officielle",
  machine_consistent: "contrôle automatique",
  merchant_declared: "déclaration du commerçant",
};

export const LEAD_TYPE_LABELS_FR: Record<string, string> = {
  contact: "Demande de contact",
  quote: "Demande de devis",
  estimation: "Demande d'estimation",
  rdv: "Demande de rendez-vous",
};

const CLOSURE_SOURCES_FR: Record<MerchantClosure["source"], string> = {
  sirene: "répertoire SIRENE (Insee)",
  bodacc: "BODACC",
};

/**
 * A closed business, in French, as the page and ai.md say it: closed, since when, and from which
 * source ("Établissement fermé depuis le 4 novembre 2020, selon le répertoire SIRENE (Insee) :
 * Établissement fermé au répertoire SIRENE.").
 */
export function closureStatementFr(closure: MerchantClosure): string {
  const announcement = closure.announcementId ? `, annonce ${closure.announcementId}` : "";
  return `Établissement fermé depuis le ${formatDateFr(closure.closedOn)}, selon le ${CLOSURE_SOURCES_FR[closure.source]} : ${closure.label}${announcement}.`;
}

/** Why contact is refused, in French, for people reading the microsite. */
export const BLOCKED_REASON_FR: Record<string, string> = {
  merchant_paused: "le commerçant a mis son activité en pause",
  merchant_suspended: "la fiche du commerçant est suspendue",
  merchant_archived: "la fiche du commerçant est archivée",
  merchant_closed: "l'établissement est fermé selon une source officielle",
  description_llm_unreviewed: "la description de la fiche attend la validation du commerçant",
  trust_score_below_basic_threshold: "la fiche n'a pas encore assez de preuves vérifiées",
  no_contact_channel: "aucun moyen de contact n'est enregistré",
};

export const LANGUAGE_LABELS_FR: Record<string, string> = {
  fr: "français",
  en: "anglais",
  es: "espagnol",
  de: "allemand",
  it: "italien",
  pt: "portugais",
  nl: "néerlandais",
  ar: "arabe",
  zh: "chinois",
  oc: "occitan",
  br: "breton",
  eu: "basque",
  ca: "catalan",
  co: "corse",
};

const parisClock = new Intl.DateTimeFormat("fr-FR", {
  timeZone: "Europe/Paris",
  weekday: "long",
  hour: "numeric",
  minute: "2-digit",
  hourCycle: "h23",
});

/** « à 19 h 30 », « demain à 7 h 00 », « mardi à 7 h 00 », « le 18 août 2026 à 7 h 00 »: an instant on the Paris clock, seen from `now`. */
function momentFr(at: Date, now: Date): string {
  const parts = Object.fromEntries(parisClock.formatToParts(at).map((part) => [part.type, part.value]));
  const clock = `${Number(parts.hour)} h ${parts.minute}`;
  const day = parisMoment(at).date;
  const days = Math.round(
    (Date.parse(`${day}T00:00:00Z`) - Date.parse(`${parisMoment(now).date}T00:00:00Z`)) / 86_400_000,
  );
  if (days === 0) return `à ${clock}`;
  if (days === 1) return `demain à ${clock}`;
  if (days > 1 && days < 7) return `${parts.weekday} à ${clock}`;
  return `le ${formatDateFr(day)} à ${clock}`;
}

/**
 * A search result's opening as a person reads it, at the search's instant: « Ouvert maintenant ·
 * ferme à 19 h 30 », « Fermé · ouvre mardi à 7 h 00 », « Horaires du jour non communiqués » (a day
 * not declared, a public holiday without an exception), « Horaires non renseignés ».
 */
export function openingStatusFr(opening: MerchantOpening, now: Date): string {
  const next = opening.next_change
    ? ` · ${opening.open_now === true ? "ferme" : "ouvre"} ${momentFr(new Date(opening.next_change), now)}`
    : "";
  if (opening.open_now === true) return `Ouvert maintenant${next}`;
  if (opening.open_now === false) return `Fermé${next}`;
  if (opening.today === null && opening.next_change === null) return "Horaires non renseignés";
  return `Horaires du jour non communiqués${next}`;
}

/** A dated exception as the merchant page says it: « Du 3 août 2026 au 23 août 2026 : fermé (congés d'été) ». */
export function hoursExceptionFr(exception: HoursException): string {
  const dates =
    exception.from === exception.to
      ? `Le ${formatDateFr(exception.from)}`
      : `Du ${formatDateFr(exception.from)} au ${formatDateFr(exception.to)}`;
  const hours = exception.hours === "fermé" ? "fermé" : exception.hours.split(",").join(", ").replaceAll("-", " – ");
  return `${dates} : ${hours}${exception.note ? ` (${exception.note})` : ""}`;
}
