/**
 * One record of DILA's BODACC dataset `annonces-commerciales` (Opendatasoft Explore API v2.1 of
 * bodacc-datadila.opendatasoft.com: `/api/explore/v2.1/catalog/datasets/annonces-commerciales/
 * records`, `/exports/json`, `/exports/jsonl`) read as an OfficialAnnouncement. Pure.
 *
 * The record, as published (flat; field names are the dataset's):
 *
 *   id               "A202600521234": the bulletin's letter (publicationavis), the issue
 *                    (parution) and the announcement's number (numeroannonce) on four digits at
 *                    least, end to end ("A202601950001" is number 1 of issue 20260195)
 *   publicationavis  "A" (sales, registrations, collective proceedings), "B" (modifications,
 *                    deregistrations), "C" (filed accounts)
 *   parution         "20260052"; dateparution "2026-03-18" (a date); numeroannonce 1234 (an integer)
 *   typeavis         "annonce" | "rectificatif" | "annulation" (typeavis_lib "Avis initial", ...)
 *   familleavis      "collective" (familleavis_lib "Procédures collectives"), "radiation"
 *                    ("Radiations"), "vente" ("Ventes et cessions"), "immatriculation",
 *                    "creation", "modification", "dpc" (filed accounts), "conciliation",
 *                    "retablissement_professionnel", "divers"
 *   tribunal         "Greffe du Tribunal de Commerce de Lyon" (free text, capitals or not)
 *   commercant, ville, cp, numerodepartement, region_code, ...: the company's name and place
 *   registre         its SIREN numbers: in the v2.1 API a list holding each in two spellings,
 *                    ["482 309 382", "482309382"]; older exports and the v1 API give one string
 *                    "833 310 592,833310592"; some records have none (associations, ...)
 *   url_complete     "https://www.bodacc.fr/pages/annonces-commerciales-detail/?q.id=id:A202600521234"
 *   listepersonnes   JSON in a string: {"personne": {...} or [{...}, ...]}, each with
 *                    numeroImmatriculation.numeroIdentification ("833 310 592", RCS) or
 *                    inscriptionRM.numeroIdentificationRM (trades register), typePersonne
 *                    "pm"/"pp", names and addresses (personal data for sole traders: not kept)
 *   jugement         JSON in a string: {"famille": "Jugement d'ouverture", "nature": "Jugement
 *                    d'ouverture de liquidation judiciaire", "date": "2026-03-10" (also
 *                    "10/03/2026" or "10 mars 2026"), "complementJugement": "..."}
 *   radiationaurcs   JSON in a string: {"radiationPM": "O"}, {"dateCessationActivitePP": "..."}
 *                    (formerly {"radiationPP": {"dateCessationActivitePP": ...}}), or
 *                    {"commentaire": "Rapport de radiation d'office" | "Transfert du siège hors ressort"}
 *   acte             JSON in a string; for a sale {"vente": {"categorieVente": "Achat d'un fonds ..."}}
 *   listeprecedentproprietaire, listeprecedentexploitant: JSON in a string, {"personne": ...}
 *                    like listepersonnes: who owned or ran the business sold (the seller)
 *   parutionavisprecedent: JSON in a string, {"nomPublication": "BODACC A", "numeroParution":
 *                    "20260040", "dateParution": ..., "numeroAnnonce": "811"}: the announcement a
 *                    correction or cancellation refers to
 *   depot, modificationsgenerales, divers, listeetablissements: JSON in a string, not read here
 *
 * Sources: the dataset's pages on bodacc-datadila.opendatasoft.com and data.gouv.fr ("API
 * Bulletin officiel des annonces civiles et commerciales (BODACC)"); the BODACC client of
 * annuaire-entreprises-data-gouv-fr/site (field-by-field comments, v1 `registre` string) and its
 * pipeline annuaire-entreprises-data-gouv-fr/search-infra, workflows/data_pipelines/bodacc
 * (utils.py: date spellings, parutionavisprecedent and how corrections, cancellations and
 * retractions cancel announcements; radiations.py: radiationaurcs; rule.yml: judgment natures).
 * The subfields are JSON strings in every export; an object in their place is accepted too.
 */
import type { OfficialAnnouncement } from "../../domain/merchants/official-announcement.ts";
import { isValidSiren } from "../../domain/siret.ts";
import { withoutControlCharacters } from "../../schemas/common.ts";
import type { RawRecord } from "./records.ts";

const ANNOUNCEMENT_URL = "https://www.bodacc.fr/pages/annonces-commerciales-detail/?q.id=id:";

class FieldError extends Error {}

/**
 * One line of text: without control characters nor bidirectional overrides (the rule of
 * src/schemas/common.ts: a line break or a tab becomes a space), runs of spaces made one.
 */
function text(value: unknown): string | null {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value !== "string") return null;
  const cleaned = withoutControlCharacters(value)
    .replace(/[\u00a0\s]+/g, " ")
    .trim();
  return cleaned === "" ? null : cleaned;
}

/**
 * The longest a text the announcement keeps may be (the court, the wording of a judgment, of a
 * sale, of a deregistration; the announcement's URL): they are shown on evidence pages and in the
 * audit log. BODACC's own are under 200 characters; a record over it is rejected, not cut.
 */
const KEPT_TEXT_MAX = 500;

/** A text the announcement keeps, held to KEPT_TEXT_MAX. */
function kept(name: string, value: unknown): string | null {
  const written = text(value);
  if (written !== null && written.length > KEPT_TEXT_MAX) {
    throw new FieldError(`${name}: ${written.length} characters, more than the ${KEPT_TEXT_MAX} a kept text may have`);
  }
  return written;
}

/** A subfield published as JSON inside a string (an object in its place is accepted). */
function subfield(record: RawRecord, name: string): Record<string, unknown> | null {
  const value = record[name];
  if (value === undefined || value === null || value === "") return null;
  let parsed: unknown = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new FieldError(`${name}: not valid JSON`);
    }
  }
  if (parsed === null) return null;
  if (typeof parsed !== "object" || Array.isArray(parsed)) throw new FieldError(`${name}: not a JSON object`);
  return parsed as Record<string, unknown>;
}

const asObject = (value: unknown): Record<string, unknown> | null =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
const asList = (value: unknown): unknown[] =>
  Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];

const SIREN_IN_TEXT = /(?<!\d)\d{3}[ \u00a0.]?\d{3}[ \u00a0.]?\d{3}(?!\d)/g;

/** The valid SIREN numbers a text holds, however spaced ("833 310 592", "833310592 RCS Lyon"), each once. */
export function sirensIn(value: unknown): string[] {
  return [...addSirensIn(value, new Set())];
}

/**
 * Adds to `found` the SIRENs `value` holds, in the order met. A Set keeps them: a record listing
 * 300,000 of them took two minutes with a list searched at each one.
 */
function addSirensIn(value: unknown, found: Set<string>): Set<string> {
  for (const item of asList(value)) {
    if (typeof item !== "string" && typeof item !== "number") continue;
    for (const match of String(item).matchAll(SIREN_IN_TEXT)) {
      const siren = match[0].replace(/\D/g, "");
      if (!found.has(siren) && isValidSiren(siren)) found.add(siren);
    }
  }
  return found;
}

/** The SIRENs of a `{"personne": ...}` list (RCS number, or trades register number), added to `found`. */
function sirensOfPersons(list: Record<string, unknown> | null, found = new Set<string>()): Set<string> {
  for (const person of asList(list?.personne)) {
    const entry = asObject(person);
    if (!entry) continue;
    const numbers = [
      ...asList(entry.numeroImmatriculation).map((item) => asObject(item)?.numeroIdentification),
      ...asList(entry.inscriptionRM).map((item) => asObject(item)?.numeroIdentificationRM),
    ];
    addSirensIn(numbers, found);
  }
  return found;
}

const MONTHS: Record<string, string> = {
  janvier: "01",
  fevrier: "02",
  mars: "03",
  avril: "04",
  mai: "05",
  juin: "06",
  juillet: "07",
  aout: "08",
  septembre: "09",
  octobre: "10",
  novembre: "11",
  decembre: "12",
};

const isRealDate = (iso: string) => {
  const time = Date.parse(`${iso}T00:00:00Z`);
  return Number.isFinite(time) && new Date(time).toISOString().startsWith(iso);
};

/** A date as BODACC writes it ("2026-03-10", "10/03/2026", "10 mars 2026", "1er mars 2026"), as YYYY-MM-DD. */
export function bodaccDate(value: unknown): string | null {
  const written = text(value);
  if (!written) return null;
  let iso: string | null = null;
  const isoMatch = /^(\d{4}-\d{2}-\d{2})(?:$|T)/.exec(written);
  const numeric = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(written);
  const words = /^(\d{1,2})(?:er)? (\p{L}+) (\d{4})$/u.exec(written);
  if (isoMatch?.[1]) iso = isoMatch[1];
  else if (numeric) iso = `${numeric[3]}-${numeric[2]}-${numeric[1]}`;
  else if (words?.[1] && words[2] && words[3]) {
    const month = MONTHS[words[2].normalize("NFD").replace(/\p{M}/gu, "").toLowerCase()];
    if (month) iso = `${words[3]}-${month}-${words[1].padStart(2, "0")}`;
  }
  return iso && isRealDate(iso) ? iso : null;
}

function kindOf(family: string): OfficialAnnouncement["kind"] {
  if (family === "collective" || family === "retablissement_professionnel") return "collective";
  if (family === "radiation") return "radiation";
  if (family === "vente") return "sale";
  return "other";
}

/** The id of the announcement a correction or cancellation refers to: letter, issue, number (4 digits at least). */
function previousId(reference: Record<string, unknown> | null): string | null {
  if (!reference) return null;
  const letter = /^(?:bodacc\s*)?([abc])$/i.exec(text(reference.nomPublication) ?? "")?.[1]?.toUpperCase();
  const issue = text(reference.numeroParution);
  const number = text(reference.numeroAnnonce);
  if (!letter || !issue || !/^\d+$/.test(issue) || !number || !/^\d+$/.test(number)) return null;
  return `${letter}${issue}${String(Number(number)).padStart(4, "0")}`;
}

export type AnnouncementReading = { announcement: OfficialAnnouncement } | { error: string };

export function announcementOf(record: RawRecord): AnnouncementReading {
  try {
    return { announcement: read(record) };
  } catch (error) {
    if (error instanceof FieldError) return { error: error.message };
    throw error;
  }
}

function read(record: RawRecord): OfficialAnnouncement {
  const id = text(record.id);
  if (!id || !/^[A-Z]\d{1,20}$/.test(id))
    throw new FieldError(`id: ${JSON.stringify(record.id ?? null)} is not a BODACC id`);
  const publishedOn = bodaccDate(record.dateparution);
  if (!publishedOn || !/^\d{4}-/.test(String(record.dateparution))) {
    throw new FieldError(`dateparution: ${JSON.stringify(record.dateparution ?? null)} is not a date`);
  }
  const family = kept("familleavis", record.familleavis)?.toLowerCase() ?? "";
  const kind = kindOf(family);
  const judgment = subfield(record, "jugement");
  const deregistration = subfield(record, "radiationaurcs");
  const act = subfield(record, "acte");
  const persons = subfield(record, "listepersonnes");
  const previousOwners = [
    ...sirensOfPersons(
      subfield(record, "listeprecedentexploitant"),
      sirensOfPersons(subfield(record, "listeprecedentproprietaire")),
    ),
  ];
  const subjects = [...sirensOfPersons(persons, addSirensIn(record.registre, new Set()))];
  const url = kept("url_complete", record.url_complete);
  const ceasedOn =
    bodaccDate(deregistration?.dateCessationActivitePP) ??
    bodaccDate(asObject(deregistration?.radiationPP)?.dateCessationActivitePP);

  return {
    id,
    publishedOn,
    kind,
    family,
    familyLabel: kept("familleavis_lib", record.familleavis_lib),
    type: kept("typeavis", record.typeavis)?.toLowerCase() ?? "annonce",
    replaces: previousId(subfield(record, "parutionavisprecedent")),
    court: kept("tribunal", record.tribunal),
    url: url?.startsWith("https://") ? url : `${ANNOUNCEMENT_URL}${id}`,
    subjects,
    previousOwners,
    judgment: judgment
      ? {
          family: kept("jugement.famille", judgment.famille),
          nature: kept("jugement.nature", judgment.nature),
          decidedOn: bodaccDate(judgment.date),
        }
      : null,
    deregistration:
      deregistration || kind === "radiation"
        ? { comment: kept("radiationaurcs.commentaire", deregistration?.commentaire), ceasedOn }
        : null,
    saleCategory: kept("acte.vente.categorieVente", asObject(act?.vente)?.categorieVente),
  };
}
