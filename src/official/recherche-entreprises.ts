/**
 * Client of the API Recherche d'entreprises (DINUM, https://recherche-entreprises.api.gouv.fr, open,
 * no key): the registry's live check of a merchant's SIRET. It implements the domain's
 * OfficialRegistryLookup port; jobs/verify.ts uses it, never a request of the HTTP server.
 *
 * What it relies on, from the API's published OpenAPI description (github.com/annuaire-entreprises-
 * data-gouv-fr/search-api, app/doc/open-api.yml, as of commit 7cc364f of 2026-07-22) and the service's
 * code beside it (app/exceptions/, app/elastic/filters/siret.py):
 * - `GET /search?q=<SIRET>`: a `q` of exactly 14 digits is a direct search by SIRET (other filters
 *   ignored); the establishment comes back in `results[].matching_etablissements[]`, "only the SIRET
 *   searched" (for a 9-digit SIREN that list is always empty, hence the SIRET). An unknown SIRET is
 *   a 200 with `results: []` and `total_results: 0`. Non-diffusible companies are not served, and
 *   establishments with `statut_diffusion_etablissement` P come back with their address masked.
 * - An establishment's `activite_principale` is its NAF rev. 2 code and `activite_principale_naf25`
 *   its NAF 2025 code (null when SIRENE has none yet), "a temporary field, removed from 1 January
 *   2027", when NAF 2025 becomes SIRENE's reference and `activite_principale` carries it.
 * - 200: `{ results: [{ siren, nom_complet, nom_raison_sociale, date_creation, etat_administratif,
 *   nature_juridique, siege: {...}, matching_etablissements: [{ siret, etat_administratif (A | F),
 *   date_fermeture, activite_principale, adresse, statut_diffusion_etablissement, ... }], ... }],
 *   total_results, page, per_page, total_pages }`.
 * - 400: `{ "erreur": "..." }` (a request it refuses: asking again would not help).
 * - "at most 7 requests per second" per IP address (and 30 per ASN); beyond, 429 Too Many Requests
 *   whose `Retry-After` header says how long to wait. An explicit User-Agent is asked for.
 * - 5xx are not described; the service's code answers 500 `{ "erreur": ... }` on an internal error
 *   and its proxies 502-504: retried, with backoff, like a timeout or a refused connection.
 * An answer is read up to `maxAnswerBytes` (decoded): the answer for one SIRET is a few kilobytes,
 * and a larger one fails the lookup as `invalid_answer` (not retried) without being read further.
 */
import { z } from "zod";
import {
  type OfficialLookup,
  OfficialRegistryError,
  type OfficialRegistryLookup,
  type RegisteredEstablishment,
} from "../domain/merchants/official-registry-lookup.ts";
import { activityCodes } from "../domain/naf.ts";
import { createPacedGet, reasonOf } from "./paced-get.ts";
import { createRequestPacer, type RequestPacer, sleep } from "./request-pacer.ts";

export const RECHERCHE_ENTREPRISES_URL = "https://recherche-entreprises.api.gouv.fr";
/** The API's published limit (requests a second, per IP address). */
export const RECHERCHE_ENTREPRISES_MAX_PER_SECOND = 7;
/** Added to each 1/7 s so arrivals that slip in transit stay within the limit (see the pacer). */
const PACING_MARGIN_MS = 15;

export interface RechercheEntreprisesOptions {
  /** Scheme, host and optional path prefix (no trailing slash needed). */
  baseUrl: string;
  /** Per attempt: the answer, body included, must arrive within it. */
  timeoutMs: number;
  /** Sent as User-Agent, as the API asks. */
  userAgent: string;
  /** Attempts in all for one lookup (timeouts, 5xx, unreachable, 429): default 4. */
  maxAttempts?: number;
  /** Wait before the 2nd attempt after a timeout or a 5xx, doubled each time (default 1,000 ms). */
  backoffMs?: number;
  /** A 429 asking to wait longer than this fails the lookup instead (default 60 s). */
  maxRetryAfterMs?: number;
  /** Requests a second, at most the published 7 (default 7). */
  requestsPerSecond?: number;
  /** The largest answer read, in bytes once decoded (default 2 MiB): a larger one fails the lookup. */
  maxAnswerBytes?: number;
  /** Injected in tests. */
  pacer?: RequestPacer;
  sleep?: (ms: number) => Promise<void>;
}

/** Without a Retry-After header, a 429 waits one second. */
const DEFAULT_RETRY_AFTER_MS = 1_000;
/** The answer for one SIRET is a few kilobytes (10 results at most, each with its matching establishment). */
export const DEFAULT_MAX_ANSWER_BYTES = 2 * 1024 * 1024;
const MASKED = "[NON-DIFFUSIBLE]";

export function createRechercheEntreprisesClient(options: RechercheEntreprisesOptions): OfficialRegistryLookup {
  const base = options.baseUrl.replace(/\/+$/, "");
  const maxAttempts = Math.max(1, options.maxAttempts ?? 4);
  const backoffMs = options.backoffMs ?? 1_000;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;
  const perSecond = Math.min(
    options.requestsPerSecond ?? RECHERCHE_ENTREPRISES_MAX_PER_SECOND,
    RECHERCHE_ENTREPRISES_MAX_PER_SECOND,
  );
  const pacer = options.pacer ?? createRequestPacer({ perSecond, marginMs: PACING_MARGIN_MS });
  const wait = options.sleep ?? sleep;
  const maxAnswerBytes = options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;

  const pacedGet = createPacedGet({
    pacer,
    timeoutMs: options.timeoutMs,
    headers: { accept: "application/json", "user-agent": options.userAgent },
    maxAttempts,
    backoffMs,
    maxRetryAfterMs,
    defaultRetryAfterMs: DEFAULT_RETRY_AFTER_MS,
    maxAnswerBytes,
    expectedSize: "an answer for one SIRET is a few kilobytes",
    sleep: wait,
  });

  async function get(url: string): Promise<string> {
    const { status, body } = await pacedGet(url);
    if (status === 200) return body;
    // 400 and anything else: the request itself is refused; asking again would not help.
    throw new OfficialRegistryError("refused", url, `${url}: answered ${status}${errorMessageOf(body)}`);
  }

  return {
    async findEstablishment(siret: string): Promise<OfficialLookup> {
      const url = `${base}/search?q=${encodeURIComponent(siret)}`;
      // Anything but 14 digits would be a text search, not a lookup.
      if (!/^\d{14}$/.test(siret)) throw new OfficialRegistryError("refused", url, `${siret} is not a SIRET`);
      const body = await get(url);
      let payload: SearchPayload;
      try {
        payload = searchPayloadSchema.parse(JSON.parse(body));
      } catch (error) {
        throw new OfficialRegistryError(
          "invalid_answer",
          url,
          `${url}: unexpected answer (${reasonOf(error).slice(0, 300)})`,
        );
      }
      return { url, establishment: establishmentIn(payload, siret, url) };
    },
  };
}

const establishmentSchema = z.object({
  siret: z.string(),
  etat_administratif: z.string().nullish(),
  date_fermeture: z.string().nullish(),
  statut_diffusion_etablissement: z.string().nullish(),
  activite_principale: z.string().nullish(),
  activite_principale_naf25: z.string().nullish(),
  adresse: z.string().nullish(),
});

/** The part of the 200 answer the check reads (every other field is ignored). */
const searchPayloadSchema = z.object({
  results: z.array(
    z.object({
      siren: z.string(),
      nom_complet: z.string().nullish(),
      nom_raison_sociale: z.string().nullish(),
      siege: establishmentSchema.nullish(),
      matching_etablissements: z.array(establishmentSchema).nullish(),
    }),
  ),
  total_results: z.number().int().nonnegative(),
});
type SearchPayload = z.output<typeof searchPayloadSchema>;

function establishmentIn(payload: SearchPayload, siret: string, url: string): RegisteredEstablishment | null {
  for (const result of payload.results) {
    const found =
      result.matching_etablissements?.find((candidate) => candidate.siret === siret) ??
      (result.siege?.siret === siret ? result.siege : undefined);
    if (!found) continue;
    const state = found.etat_administratif;
    if (state !== "A" && state !== "F") {
      throw new OfficialRegistryError(
        "invalid_answer",
        url,
        `${url}: establishment ${siret} has the administrative state ${String(state)}, neither A nor F`,
      );
    }
    return {
      siret,
      siren: result.siren,
      active: state === "A",
      closedOn: found.date_fermeture ?? null,
      public: found.statut_diffusion_etablissement !== "P",
      ...registeredCodes(found.activite_principale ?? null, found.activite_principale_naf25 ?? null),
      address: shown(found.adresse),
      legalName: shown(result.nom_raison_sociale) ?? shown(result.nom_complet),
    };
  }
  return null;
}

const shown = (value: string | null | undefined) => (value && value !== MASKED ? value : null);

/** The two activity codes the API gives (either may be missing; NAF 2025 alone from 2027). */
function registeredCodes(
  main: string | null,
  naf2025: string | null,
): Pick<RegisteredEstablishment, "nafCode" | "nafCode2025"> {
  const codes = activityCodes(main ?? "", naf2025);
  return { nafCode: codes.nafCode || null, nafCode2025: codes.nafCode2025 };
}

function errorMessageOf(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === "object" && "erreur" in parsed && typeof parsed.erreur === "string") {
      return `: ${parsed.erreur}`;
    }
  } catch {
    // Not JSON: the status says enough.
  }
  return "";
}
