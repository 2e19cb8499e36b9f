/**
 * Client of API Sirene 3.11 (INSEE, portail-api.insee.fr): the establishments and companies INSEE
 * processed on a day, for the daily import (src/import/sirene/daily.ts). It implements the
 * domain's OfficialChanges port; jobs/import.ts (`sirene-daily`) uses it, never a request of the
 * HTTP server.
 *
 * What it relies on, from INSEE's documentation of the API (sirene.fr/static-resources, "API
 * Sirene - Documentation des services", 3.11) and recorded answers (test/fixtures/api-sirene):
 * - `GET {base}/siret?q=dateDernierTraitementEtablissement:AAAA-MM-JJ` asks the establishments
 *   processed on that day ("variabledate:AAAA-MM-JJ recherche sur le jour correspondant": a day,
 *   not a range); `/siren?q=dateDernierTraitementUniteLegale:AAAA-MM-JJ` the companies.
 * - The key goes in the `X-INSEE-Api-Key-Integration` header.
 * - `nombre` is at most 1,000 a page; `curseur=*` starts a cursor, `header.curseurSuivant` asks the
 *   next page, and "quand la valeur de curseurSuivant est la même que celle envoyée (curseur), il
 *   n'y a plus de résultat": the last page gives back its own cursor (with no records).
 * - 200: `{ header: { statut, message, total, debut, nombre, curseur, curseurSuivant },
 *   etablissements: [...] }` (resp. `unitesLegales`), each element as the unit answer
 *   (`/siret/{siret}`) writes it: the establishment's own variables, `uniteLegale` (its company's
 *   current values), `adresseEtablissement`, and `periodesEtablissement[]` (historised variables,
 *   newest first: the current period has `dateFin: null`); a company's `periodesUniteLegale[]`
 *   likewise. Variable names are StockEtablissement's and StockUniteLegale's columns, so a record
 *   is read by the stock import's own readers (`establishmentOf`, `legalUnitOf`, `refusedRow`).
 * - 404 `{ header: { statut: 404, message: "Aucun élément trouvé pour q=..." } }`: nothing matches,
 *   an empty day (a 404 without that answer is not API Sirene's: refused).
 * - 401 / 403: the key is missing, unknown or not subscribed to the API: refused, not retried.
 * - 429 Too Many Requests with `Retry-After` (30 requests a minute on the public plan); 5xx and
 *   timeouts are retried with backoff (src/official/paced-get.ts).
 * Requests are paced to at most 30 a minute whatever the caller asks.
 */
import { z } from "zod";
import type { ChangesPage, OfficialChanges, OfficialLegalUnitChange } from "../domain/merchants/official-changes.ts";
import type { OfficialEstablishment, OfficialLegalUnit } from "../domain/merchants/official-establishment.ts";
import { OfficialRegistryError } from "../domain/merchants/official-registry-lookup.ts";
import { isValidSiret } from "../domain/siret.ts";
import { quoted } from "../import/rejections.ts";
import { establishmentOf, legalUnitOf, periodStartOf, processedAtOf } from "../import/sirene/establishments.ts";
import { refusedRow } from "../import/sirene/row-check.ts";
import { createPacedGet, reasonOf } from "./paced-get.ts";
import { createRequestPacer, type PacerOptions, type RequestPacer, sleep } from "./request-pacer.ts";

/** INSEE's public API base. */
export const SIRENE_API_URL = "https://api.insee.fr/api-sirene/3.11";
/** The public plan's limit: 30 requests a minute. */
export const SIRENE_API_MAX_PER_MINUTE = 30;
/** Records a page: the API's most. */
export const SIRENE_PAGE_SIZE = 1000;
/** Added to each 2 s so arrivals that slip in transit stay within the limit (see the pacer). */
const PACING_MARGIN_MS = 50;
/** Without Retry-After, a 429 waits for the minute the limit counts over. */
const DEFAULT_RETRY_AFTER_MS = 60_000;
/** A page of 1,000 establishments is a few megabytes. */
const DEFAULT_MAX_ANSWER_BYTES = 32 * 1024 * 1024;

export interface SireneApiOptions {
  /** Scheme, host and path of the API (`https://api.insee.fr/api-sirene/3.11`). */
  baseUrl: string;
  /** The integration key (X-INSEE-Api-Key-Integration). */
  apiKey: string;
  /** Per attempt: the answer, body included, must arrive within it. */
  timeoutMs: number;
  userAgent: string;
  /** Records a page (at most 1,000). */
  pageSize?: number;
  /** Attempts in all for one request (timeouts, 5xx, unreachable, 429): default 4. */
  maxAttempts?: number;
  /** Wait before the 2nd attempt after a timeout or a 5xx, doubled each time (default 5 s). */
  backoffMs?: number;
  /** A 429 asking to wait longer than this fails the run instead (default 5 minutes). */
  maxRetryAfterMs?: number;
  maxAnswerBytes?: number;
  /** Injected in tests; the default paces at 30 a minute. */
  pacer?: RequestPacer;
  sleep?: (ms: number) => Promise<void>;
}

/** The pace of API Sirene's public plan: a request every 2 s (and a margin), 30 in any minute. */
export function sireneRequestPacer(clock: Pick<PacerOptions, "now" | "sleep"> = {}): RequestPacer {
  return createRequestPacer({ perSecond: SIRENE_API_MAX_PER_MINUTE / 60, marginMs: PACING_MARGIN_MS, ...clock });
}

export function createSireneApiClient(options: SireneApiOptions): OfficialChanges & { requests(): number } {
  const base = options.baseUrl.replace(/\/+$/, "");
  const pageSize = Math.min(SIRENE_PAGE_SIZE, Math.max(1, options.pageSize ?? SIRENE_PAGE_SIZE));
  let requests = 0;
  const pacer = options.pacer ?? sireneRequestPacer();
  const counted: RequestPacer = {
    acquire: async () => {
      await pacer.acquire();
      requests += 1;
    },
    holdFor: (ms) => pacer.holdFor(ms),
  };
  const get = createPacedGet({
    pacer: counted,
    timeoutMs: options.timeoutMs,
    headers: {
      accept: "application/json",
      "user-agent": options.userAgent,
      "X-INSEE-Api-Key-Integration": options.apiKey,
    },
    maxAttempts: options.maxAttempts ?? 4,
    backoffMs: options.backoffMs ?? 5_000,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 300_000,
    defaultRetryAfterMs: DEFAULT_RETRY_AFTER_MS,
    maxAnswerBytes: options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES,
    expectedSize: "a page of 1,000 records is a few megabytes",
    sleep: options.sleep ?? sleep,
  });

  /** A page of a day's query: its records, or an empty page for API Sirene's 404. */
  async function page(
    collection: "siret" | "siren",
    variable: string,
    day: string,
    cursor: string,
  ): Promise<{ url: string; header: PageHeader | null; records: unknown[] }> {
    // The variable's colon is left as written (RFC 3986 allows it in a query), as INSEE's examples write it.
    const q = encodeURIComponent(`${variable}:${day}`).replace(/%3A/g, ":");
    const url = `${base}/${collection}?q=${q}&nombre=${pageSize}&curseur=${encodeURIComponent(cursor)}`;
    const { status, body } = await get(url);
    if (status === 404) {
      if (isNoMatchAnswer(body)) return { url, header: null, records: [] };
      throw new OfficialRegistryError(
        "refused",
        url,
        `${url}: answered 404 without API Sirene's "Aucun élément trouvé" (is SIRENE_API_URL the API's address?)`,
      );
    }
    if (status === 401 || status === 403) {
      throw new OfficialRegistryError(
        "refused",
        url,
        `${url}: answered ${status}${messageOf(body)}: API Sirene refused the key (SIRENE_API_KEY: an integration key of portail-api.insee.fr subscribed to API Sirene)`,
      );
    }
    if (status !== 200) {
      throw new OfficialRegistryError("refused", url, `${url}: answered ${status}${messageOf(body)}`);
    }
    const list = collection === "siret" ? "etablissements" : "unitesLegales";
    let parsed: z.output<typeof pageSchema>;
    try {
      parsed = pageSchema.parse(JSON.parse(body));
    } catch (error) {
      throw new OfficialRegistryError(
        "invalid_answer",
        url,
        `${url}: not a page of API Sirene (${reasonOf(error).replace(/\s+/g, " ").slice(0, 300)})`,
      );
    }
    const records = parsed[list];
    if (!Array.isArray(records)) {
      throw new OfficialRegistryError("invalid_answer", url, `${url}: not a page of API Sirene (no ${list} list)`);
    }
    return { url, header: parsed.header, records };
  }

  /** A page of a day's query, each record read (or rejected with its reason) by `read`. */
  async function changesPage<Item>(
    collection: "siret" | "siren",
    variable: string,
    day: string,
    cursor: string,
    read: (record: unknown, asOf: string) => Item | Rejected,
  ): Promise<ChangesPage<Item>> {
    const { url, header, records } = await page(collection, variable, day, cursor);
    const changes: ChangesPage<Item> = {
      items: [],
      rejected: [],
      nextCursor: header?.curseurSuivant ?? cursor,
      total: header?.total ?? 0,
      url,
    };
    for (const record of records) {
      const item = read(record, dayStart(day));
      if (isRejected(item)) changes.rejected.push(item);
      else changes.items.push(item);
    }
    return changes;
  }

  return {
    requests: () => requests,
    establishmentsProcessedOn: (day, cursor) =>
      changesPage("siret", "dateDernierTraitementEtablissement", day, cursor, (record, asOf) =>
        establishmentIn(record, `${base}/siret`, asOf),
      ),
    legalUnitsProcessedOn: (day, cursor) =>
      changesPage("siren", "dateDernierTraitementUniteLegale", day, cursor, (record, asOf) =>
        legalUnitIn(record, `${base}/siren`, asOf),
      ),
  };
}

const pageHeaderSchema = z.object({
  statut: z.number(),
  total: z.number().int().nonnegative(),
  nombre: z.number().int().nonnegative(),
  curseur: z.string().min(1),
  curseurSuivant: z.string().min(1),
});
type PageHeader = z.output<typeof pageHeaderSchema>;
/** What a page must be to be read on: its header with the cursors (every other field is ignored). */
const pageSchema = z.object({
  header: pageHeaderSchema,
  etablissements: z.array(z.unknown()).optional(),
  unitesLegales: z.array(z.unknown()).optional(),
});

const noMatchSchema = z.object({ header: z.object({ statut: z.literal(404), message: z.string() }) });

/** API Sirene's "nothing matches" answer: `{ header: { statut: 404, message: "Aucun élément trouvé ..." } }`. */
function isNoMatchAnswer(body: string): boolean {
  try {
    return noMatchSchema.safeParse(JSON.parse(body)).success;
  } catch {
    return false;
  }
}

/** The message an error answer carries (`header.message`, or the gateway's `message`), said after the status. */
function messageOf(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    const header = z.object({ header: z.object({ message: z.string() }) }).safeParse(parsed);
    if (header.success) return `: ${quoted(header.data.header.message, 200)}`;
    const plain = z.object({ message: z.string() }).safeParse(parsed);
    if (plain.success) return `: ${quoted(plain.data.message, 200)}`;
  } catch {
    // Not JSON: the status says enough.
  }
  return "";
}

/** The start of a day, as the instant the register speaks as of for what it processed that day. */
const dayStart = (day: string) => `${day}T00:00:00.000Z`;

type Rejected = { id: string | null; error: string };
const isRejected = (item: unknown): item is Rejected =>
  typeof item === "object" && item !== null && "error" in item && "id" in item;

/** A JSON object's own scalar values as a stock row's text (null as empty, booleans and numbers written out). */
function scalarsOf(value: unknown): Record<string, string> {
  const row: Record<string, string> = {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) return row;
  for (const [name, item] of Object.entries(value)) {
    if (item === null) row[name] = "";
    else if (typeof item === "string") row[name] = item;
    else if (typeof item === "number" || typeof item === "boolean") row[name] = String(item);
  }
  return row;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The current period of a record's history: the one without an end (the API lists the newest first). */
function currentPeriod(periods: unknown): Record<string, unknown> | null {
  if (!Array.isArray(periods) || periods.length === 0) return null;
  const current = periods.find((period) => isObject(period) && period.dateFin === null) ?? periods[0];
  return isObject(current) ? current : null;
}

/** One element of `etablissements`, read as the stock import reads a row of StockEtablissement. */
function establishmentIn(record: unknown, siretUrl: string, asOf: string): OfficialEstablishment | Rejected {
  if (!isObject(record)) return { id: null, error: "not a JSON object" };
  const id = typeof record.siret === "string" ? record.siret : null;
  const period = currentPeriod(record.periodesEtablissement);
  if (!period) return { id, error: "no periodesEtablissement (not an establishment of API Sirene)" };
  if (!isObject(record.adresseEtablissement)) {
    return { id, error: "no adresseEtablissement (not an establishment of API Sirene)" };
  }
  const row = { ...scalarsOf(record), ...scalarsOf(record.adresseEtablissement), ...scalarsOf(period) };
  const refusal = refusedRow(row);
  if (refusal) return { id, error: refusal };
  const establishment = establishmentOf(row);
  if (!isValidSiret(establishment.siret)) {
    return { id, error: `siret: ${JSON.stringify(quoted(establishment.siret))} is not a valid SIRET` };
  }
  let legalUnit: OfficialLegalUnit | null = null;
  if (isObject(record.uniteLegale)) {
    const unitRow = { ...scalarsOf(record.uniteLegale), siren: establishment.siren };
    const unitRefusal = refusedRow(unitRow);
    if (unitRefusal) return { id, error: `uniteLegale: ${unitRefusal}` };
    legalUnit = legalUnitOf(unitRow);
  }
  return {
    ...establishment,
    legalUnit,
    asOf,
    readFrom: { source: "official_api", url: `${siretUrl}/${establishment.siret}` },
  };
}

/** One element of `unitesLegales`: its current period's name, state and legal form. */
function legalUnitIn(record: unknown, sirenUrl: string, asOf: string): OfficialLegalUnitChange | Rejected {
  if (!isObject(record)) return { id: null, error: "not a JSON object" };
  const id = typeof record.siren === "string" ? record.siren : null;
  if (id === null || !/^\d{9}$/.test(id)) return { id, error: `siren: ${JSON.stringify(id)} is not a SIREN` };
  const period = currentPeriod(record.periodesUniteLegale);
  if (!period) return { id, error: "no periodesUniteLegale (not a company of API Sirene)" };
  const row = { ...scalarsOf(record), ...scalarsOf(period) };
  const refusal = refusedRow(row);
  if (refusal) return { id, error: refusal };
  const ceased = row.etatAdministratifUniteLegale === "C";
  return {
    siren: id,
    ceased,
    ceasedOn: ceased ? periodStartOf(row) : null,
    unit: legalUnitOf(row),
    processedAt: processedAtOf(row.dateDernierTraitementUniteLegale ?? ""),
    asOf,
    url: `${sirenUrl}/${id}`,
  };
}
