import type { BrandVoice, HoursException, Product } from "../../domain/merchant.ts";
import type { ValidationIssue } from "../../errors/service-error.ts";
import { merchantVocabulary, type ProductDeclaration } from "../../schemas/merchant-declaration.ts";

/*
 * The merchant space's listing forms, posted as plain HTML forms (no JavaScript): the fields as the
 * browser sends them, read as the declaration the domain takes (src/schemas/merchant-declaration.ts:
 * one schema), and the domain's refusals said in French beside the field they concern. Form
 * fields are named by the declaration's paths (`phone`, `hours.lundi`, `products.0.name`), so a
 * refusal's path names its field; lists typed one per line are refused as a whole field.
 */

/** The sections of the listing page, each a form of its own (the `section` field says which). */
export const LISTING_SECTIONS = [
  "coordonnees",
  "horaires",
  "produits",
  "voix",
  "e-mail",
  "question",
  "statut",
] as const;
export type ListingSection = (typeof LISTING_SECTIONS)[number];

export type FormFields = Readonly<Record<string, string>>;

/** What a form makes: the declaration's input, or the faults found before it reaches the domain. */
export type FormReading =
  | { ok: true; input: Record<string, unknown>; rows?: number[] }
  | { ok: false; issues: ValidationIssue[] };

const lines = (value: string | undefined): string[] =>
  (value ?? "")
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "");

/** Empty means "none" for a field that may be absent. */
const orNull = (value: string | undefined): string | null => {
  const trimmed = (value ?? "").trim();
  return trimmed === "" ? null : trimmed;
};

/** Phone, website, description, languages, service zones. */
export function contactFromForm(fields: FormFields): FormReading {
  const input: Record<string, unknown> = {
    phone: orNull(fields.phone),
    website: orNull(fields.website),
    description: orNull(fields.description),
    zones: lines(fields.zones),
  };
  // Languages: codes separated by commas or spaces; none given leaves them as they are (at least one is required).
  const languages = (fields.languages ?? "")
    .split(/[\s,;]+/)
    .map((code) => code.trim().toLowerCase())
    .filter((code) => code !== "");
  if (languages.length > 0) input.languages = languages;
  return { ok: true, input };
}

/** A day's hours as typed: spaces out, lower case, "ferme" as "fermé". */
const typedHours = (value: string) => {
  const compact = value.trim().replace(/\s+/g, "").toLowerCase();
  return compact === "ferme" ? "fermé" : compact;
};

/**
 * One field per day; an empty day is not declared, no day at all removes the hours. The dated
 * exceptions: one per line (`hours_exceptions`), read by exceptionOfLine; `rows` gives each
 * exception's line (refusals name it).
 */
export function hoursFromForm(fields: FormFields): FormReading {
  const hours: Record<string, string> = {};
  for (const day of merchantVocabulary.days) {
    const value = typedHours(fields[`hours.${day}`] ?? "");
    if (value !== "") hours[day] = value;
  }
  const exceptions: Record<string, unknown>[] = [];
  const rows: number[] = [];
  const issues: ValidationIssue[] = [];
  (fields.hours_exceptions ?? "").split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === "") return;
    const exception = exceptionOfLine(line);
    if (exception === null) {
      issues.push({ path: EXCEPTIONS_FIELD, message: `line ${index + 1} ${EXCEPTION_LINE_RULE}` });
      return;
    }
    exceptions.push(exception);
    rows.push(index + 1);
  });
  if (issues.length > 0) return { ok: false, issues };
  return {
    ok: true,
    input: { hours: Object.keys(hours).length === 0 ? null : hours, hours_exceptions: exceptions },
    rows,
  };
}

export const EXCEPTIONS_FIELD = "hours_exceptions";
const EXCEPTION_LINE_RULE = 'must read like "24/12/2026 : 09:00-12:00" or "03/08/2026 au 23/08/2026 : fermé (congés)"';

/** A date typed as 24/12/2026 (or 2026-12-24), as YYYY-MM-DD; the text itself otherwise (the schema then refuses it). */
function isoDateOf(typed: string): string {
  const french = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(typed);
  if (!french) return typed;
  return `${french[3]}-${(french[2] as string).padStart(2, "0")}-${(french[1] as string).padStart(2, "0")}`;
}

/**
 * One exception as a merchant types it: a date, or two joined by « au » (or a dash), then « : »,
 * the hours as for a day of the week, and a note in parentheses: « 24/12/2026 : 09:00-12:00 »,
 * « 03/08/2026 au 23/08/2026 : fermé (congés d'été) ». Null when it does not read so; the
 * dates and hours themselves are checked by the declaration's schema.
 */
export function exceptionOfLine(line: string): Record<string, unknown> | null {
  const match = /^\s*(?:du\s+|le\s+)?(\S+)(?:\s*(?:au|-|–)\s*(\S+))?\s*:\s*([^()]*?)\s*(?:\(([^()]*)\))?\s*$/iu.exec(
    line,
  );
  if (!match) return null;
  const hours = typedHours(match[3] ?? "");
  if (hours === "") return null;
  const note = (match[4] ?? "").trim();
  return {
    from: isoDateOf(match[1] as string),
    ...(match[2] ? { to: isoDateOf(match[2]) } : {}),
    hours,
    ...(note ? { note } : {}),
  };
}

/** An exception as the form shows it: « 03/08/2026 au 23/08/2026 : fermé (congés d'été) ». */
export function exceptionLine(exception: HoursException): string {
  const french = (iso: string) => `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`;
  const dates =
    exception.from === exception.to ? french(exception.from) : `${french(exception.from)} au ${french(exception.to)}`;
  return `${dates} : ${exception.hours}${exception.note ? ` (${exception.note})` : ""}`;
}

/** A price typed in euros ("12", "12,50", "12.5") in cents; null when empty; undefined when unreadable. */
export function centsOf(typed: string | undefined): number | null | undefined {
  const value = (typed ?? "").trim().replace(/\s|€/g, "").replace(",", ".");
  if (value === "") return null;
  if (!/^\d{1,7}(?:\.\d{1,2})?$/.test(value)) return undefined;
  return Math.round(Number(value) * 100);
}

/** The declaration of a stored product: what the form does not show is kept as it is. */
export function declarationOfProduct(product: Product): ProductDeclaration {
  return {
    slug: product.slug,
    name: product.name,
    description: product.description,
    brick_type: product.brickType,
    pricing_model: product.pricingModel,
    price_cents: product.priceCents,
    inventory_status: product.inventoryStatus,
    tags: product.tags,
    image_url: product.imageUrl,
    external_url: product.externalUrl,
  };
}

export const PRICE_FIELD = "price";

/**
 * The whole product list afterwards: each row `products.<n>.*` is a product (its `slug` says which
 * stored one it is), a row with `remove` is dropped, an empty row (the one to add) is skipped.
 * `rows` gives, for each product of the list sent, the form row it came from (refusals name rows).
 */
export function productsFromForm(fields: FormFields, current: readonly Product[]): FormReading {
  const formRows = new Set<number>();
  for (const name of Object.keys(fields)) {
    const match = /^products\.(\d{1,3})\./.exec(name);
    if (match) formRows.add(Number(match[1]));
  }
  const bySlug = new Map(current.map((product) => [product.slug, product]));
  const products: Record<string, unknown>[] = [];
  const rows: number[] = [];
  const issues: ValidationIssue[] = [];
  for (const row of [...formRows].sort((a, b) => a - b)) {
    const field = (name: string) => (fields[`products.${row}.${name}`] ?? "").trim();
    if (field("remove") !== "") continue;
    const kept = bySlug.get(field("slug"));
    if (!kept && field("name") === "" && field("description") === "" && field(PRICE_FIELD) === "") continue;
    const cents = centsOf(field(PRICE_FIELD));
    if (cents === undefined) {
      issues.push({ path: `products.${row}.${PRICE_FIELD}`, message: "must be a price in euros" });
      continue;
    }
    rows.push(row);
    products.push({
      ...(kept ? declarationOfProduct(kept) : {}),
      name: field("name"),
      description: field("description"),
      brick_type: field("brick_type"),
      pricing_model: field("pricing_model"),
      price_cents: cents,
    });
  }
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, input: { products }, rows };
}

/** Tone, values, what to do and not to do (one per line), and the merchant's approval to publish it. */
export function brandVoiceFromForm(fields: FormFields, current: BrandVoice | null): FormReading {
  const tone = (fields["brand_voice.tone"] ?? "").trim();
  const values = lines(fields["brand_voice.values"]);
  const does = lines(fields["brand_voice.do"]);
  const donts = lines(fields["brand_voice.dont"]);
  if (tone === "" && values.length === 0 && does.length === 0 && donts.length === 0) {
    return { ok: true, input: { brand_voice: null } };
  }
  return {
    ok: true,
    input: {
      brand_voice: {
        tone,
        values,
        do: does,
        dont: donts,
        consumer_surface: current?.consumer_surface ?? "ai_digest",
        is_published: (fields["brand_voice.is_published"] ?? "") !== "",
      },
    },
  };
}

/**
 * The form field a refusal of the domain concerns: list items name their list (`zones.3` ->
 * `zones`), products their form row, a product's price in cents the price typed in euros.
 */
export function formFieldOf(path: string, rows: readonly number[] = []): string {
  const product = /^products\.(\d+)\.([a-z_]+)/.exec(path);
  if (product) {
    const row = rows[Number(product[1])] ?? Number(product[1]);
    const name = product[2] === "price_cents" ? PRICE_FIELD : product[2];
    return `products.${row}.${name}`;
  }
  const listItem = /^(zones|languages|brand_voice\.(?:values|do|dont))\.\d+$/.exec(path);
  if (listItem?.[1]) return listItem[1];
  if (path.startsWith(`${EXCEPTIONS_FIELD}.`)) return EXCEPTIONS_FIELD;
  return path;
}

/** The declaration's field messages (technical English) as a merchant reads them; the first match wins. */
const ISSUES_FR: readonly (readonly [pattern: RegExp, french: string])[] = [
  [/^is required$|^must not be empty$/, "Ce champ est obligatoire."],
  [/^must be at most (\d+) characters$/, "Ce champ ne doit pas dépasser $1 caractères."],
  [
    /^is proven by official sources/,
    "Cette information vient des registres officiels (SIRENE) : elle ne se modifie pas ici.",
  ],
  [/email address/, "Saisissez une adresse e-mail valide, par exemple contact@exemple.fr."],
  [
    /French number in international form/,
    "Saisissez un numéro au format international, par exemple +33 6 12 34 56 78.",
  ],
  [/http\(s\) URL/, "Saisissez l'adresse complète du site, commençant par https://."],
  [/"fermé" or ranges/, "Écrivez « fermé » ou des plages horaires comme 09:00-12:30,14:00-18:00."],
  [
    /^line (\d+) must read like/,
    "Ligne $1 : écrivez une date, « : » puis les horaires, par exemple « 24/12/2026 : 09:00-12:00 » ou « 03/08/2026 au 23/08/2026 : fermé (congés) ».",
  ],
  [/^must be a date like|^Invalid ISO date|^is required$/, "Écrivez la date comme 24/12/2026."],
  [/^must not be before from$/, "La date de fin est avant la date de début."],
  [/^must be within (\d+) days of from$/, "Une exception dure au plus $1 jours : découpez-la en plusieurs lignes."],
  [/^overlaps another exception$/, "Ces dates chevauchent une autre exception : une date n'a qu'un horaire."],
  [/^must hold at most (\d+) exceptions$/, "Indiquez au plus $1 exceptions."],
  [
    /postal code \(5 digits\) or a commune name/,
    "Indiquez un code postal (5 chiffres) ou le nom d'une commune par ligne.",
  ],
  [/^must be a price in euros$/, "Saisissez un prix en euros, par exemple 12,50."],
  [/^must be one of/, "Choisissez une des valeurs proposées."],
  [/^is used twice$/, "Deux produits portent le même nom : donnez-leur des noms différents."],
  [
    /one line|control characters/,
    "Ce champ contient des caractères non acceptés (retours à la ligne ou caractères de contrôle).",
  ],
  [/^Too big|at most \d+ items|^must contain at most/, "Cette liste est trop longue."],
];
const ISSUE_FALLBACK_FR = "Cette valeur n'est pas acceptée.";

export function frenchFieldIssue(message: string): string {
  for (const [pattern, french] of ISSUES_FR) {
    const match = pattern.exec(message);
    if (match) return french.replace("$1", match[1] ?? "");
  }
  return ISSUE_FALLBACK_FR;
}

/**
 * One French message per form field (the first), and those no field of the form shows. A refusal
 * of one exception names its line (`rows`: the line of each exception sent).
 */
export function fieldErrorsOf(
  issues: readonly ValidationIssue[],
  rows: readonly number[] = [],
): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of issues) {
    const exception = new RegExp(`^${EXCEPTIONS_FIELD}\\.(\\d+)`).exec(issue.path);
    const line = exception ? rows[Number(exception[1])] : undefined;
    const french = frenchFieldIssue(issue.message);
    errors[formFieldOf(issue.path, rows)] ??= line === undefined ? french : `Ligne ${line} : ${french}`;
  }
  return errors;
}
