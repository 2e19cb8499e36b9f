/**
 * A local stand-in for the API Recherche d'entreprises (https://recherche-entreprises.api.gouv.fr),
 * answering `GET /search?q=<SIRET>` as its published OpenAPI description says
 * (annuaire-entreprises-data-gouv-fr/search-api, app/doc/open-api.yml): 200 with `results[]`
 * (siren, nom_complet, nom_raison_sociale, date_creation, etat_administratif, nature_juridique,
 * siege, matching_etablissements holding only the SIRET searched, ...), total_results, page,
 * per_page, total_pages; an unknown SIRET is a 200 with no results; 400 `{ "erreur": ... }`; 429
 * with Retry-After. Each SIRET follows a script of answers, the last one repeating.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeEstablishment {
  siret: string;
  /** The company's name (raison sociale). */
  name: string;
  nafCode: string;
  address: string;
  postalCode: string;
  city: string;
  communeCode: string;
  createdOn: string;
}

export type FakeAnswer =
  | { kind: "found"; establishment: FakeEstablishment }
  /** A 200 answer the real API gave, replayed as recorded (test/fixtures/recherche-entreprises). */
  | { kind: "recorded"; body: unknown }
  | { kind: "closed"; establishment: FakeEstablishment; closedOn: string }
  | { kind: "not_public"; establishment: FakeEstablishment }
  | { kind: "not_found" }
  | { kind: "bad_request"; message: string }
  | { kind: "too_many"; retryAfter: string | null }
  | { kind: "status"; status: number }
  | { kind: "slow"; delayMs: number; answer: FakeAnswer }
  /** A 200 of `bytes` bytes (a found establishment, then spaces), said in Content-Length or streamed without. */
  | { kind: "huge"; bytes: number; declared: boolean; establishment: FakeEstablishment };

export interface FakeRequest {
  q: string | null;
  url: string;
  userAgent: string | null;
  /** performance.now() when the request arrived. */
  at: number;
  /** Bytes of the answer's body the server could write before the client closed or it ended. */
  sent: number;
}

export interface FakeRechercheEntreprises {
  url: string;
  requests: FakeRequest[];
  /** Sets the answers for one SIRET, in order; the last repeats. Unknown SIRETs are not found. */
  script(siret: string, ...answers: FakeAnswer[]): void;
  close(): Promise<void>;
}

export async function startFakeRechercheEntreprises(): Promise<FakeRechercheEntreprises> {
  const scripts = new Map<string, FakeAnswer[]>();
  const requests: FakeRequest[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://fake");
    const q = url.searchParams.get("q");
    const arrived: FakeRequest = {
      q,
      url: url.pathname + url.search,
      userAgent: request.headers["user-agent"] ?? null,
      at: performance.now(),
      sent: 0,
    };
    requests.push(arrived);
    if (request.method !== "GET" || url.pathname !== "/search") {
      json(response, 404, { erreur: "Ressource non trouvée." });
      return;
    }
    if (!q) {
      json(response, 400, { erreur: "Veuillez indiquer au moins un paramètre de recherche." });
      return;
    }
    const script = scripts.get(q.replace(/ /g, ""));
    const answer =
      script && script.length > 1 ? (script.shift() as FakeAnswer) : (script?.[0] ?? { kind: "not_found" });
    answerWith(response, answer, arrived);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script(siret, ...answers) {
      scripts.set(siret, answers);
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function answerWith(response: ServerResponse, answer: FakeAnswer, arrived: FakeRequest): void {
  switch (answer.kind) {
    case "found":
      json(response, 200, payload([result(answer.establishment, "A", null, "O")]));
      return;
    case "recorded":
      json(response, 200, answer.body);
      return;
    case "closed":
      json(response, 200, payload([result(answer.establishment, "F", answer.closedOn, "O")]));
      return;
    case "not_public":
      json(response, 200, payload([result(answer.establishment, "A", null, "P")]));
      return;
    case "not_found":
      json(response, 200, payload([]));
      return;
    case "bad_request":
      json(response, 400, { erreur: answer.message });
      return;
    case "too_many":
      response.writeHead(429, {
        "content-type": "text/plain",
        ...(answer.retryAfter === null ? {} : { "retry-after": answer.retryAfter }),
      });
      response.end("Too Many Requests");
      return;
    case "status":
      json(response, answer.status, {
        erreur: "Une erreur inattendue s'est produite. Veuillez réessayer plus tard.",
      });
      return;
    case "slow": {
      const timer = setTimeout(() => answerWith(response, answer.answer, arrived), answer.delayMs);
      response.on("close", () => clearTimeout(timer));
      return;
    }
    case "huge": {
      void writeHuge(response, answer, arrived);
      return;
    }
  }
}

/** A valid answer padded with spaces to `bytes`, written as fast as the client reads it. */
async function writeHuge(
  response: ServerResponse,
  answer: Extract<FakeAnswer, { kind: "huge" }>,
  arrived: FakeRequest,
): Promise<void> {
  const head = Buffer.from(JSON.stringify(payload([result(answer.establishment, "A", null, "O")])));
  response.writeHead(200, {
    "content-type": "application/json",
    ...(answer.declared ? { "content-length": answer.bytes } : {}),
  });
  let closed = false;
  response.on("close", () => {
    closed = true;
  });
  const padding = Buffer.alloc(64 * 1024, " ");
  let left = answer.bytes;
  for (const piece of [head, padding]) {
    while (left > 0 && !closed) {
      const chunk = piece.subarray(0, Math.min(piece.length, left));
      left -= chunk.length;
      arrived.sent += chunk.length;
      if (!response.write(chunk)) {
        await new Promise<void>((resolve) => {
          response.once("drain", resolve);
          response.once("close", resolve);
        });
      }
      if (piece === head) break;
    }
  }
  if (!closed) response.end();
}

function json(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  response.end(text);
}

function payload(results: unknown[]) {
  return { results, total_results: results.length, page: 1, per_page: 10, total_pages: results.length > 0 ? 1 : 0 };
}

const MASKED = "[NON-DIFFUSIBLE]";

/** One unité légale with its single establishment (the siège), as a SIRET search returns it. */
function result(establishment: FakeEstablishment, state: "A" | "F", closedOn: string | null, diffusion: "O" | "P") {
  const masked = diffusion === "P";
  const etablissement = {
    activite_principale: establishment.nafCode,
    activite_principale_naf25: null,
    ancien_siege: false,
    annee_tranche_effectif_salarie: null,
    adresse: masked ? MASKED : establishment.address,
    caractere_employeur: "N",
    code_postal: masked ? MASKED : establishment.postalCode,
    commune: establishment.communeCode,
    date_creation: establishment.createdOn,
    date_debut_activite: establishment.createdOn,
    date_fermeture: closedOn,
    epci: null,
    est_siege: true,
    etat_administratif: state,
    geo_id: null,
    latitude: masked ? MASKED : "45.7667",
    libelle_commune: establishment.city,
    liste_enseignes: null,
    liste_finess: null,
    liste_id_bio: [],
    liste_idcc: [],
    liste_id_organisme_formation: [],
    liste_rge: [],
    liste_uai: [],
    longitude: masked ? MASKED : "4.8800",
    nom_commercial: null,
    region: "84",
    siret: establishment.siret,
    statut_diffusion_etablissement: diffusion,
    tranche_effectif_salarie: null,
  };
  return {
    siren: establishment.siret.slice(0, 9),
    nom_complet: establishment.name.toLowerCase(),
    nom_raison_sociale: establishment.name,
    sigle: null,
    nombre_etablissements: 1,
    nombre_etablissements_ouverts: state === "A" ? 1 : 0,
    siege: etablissement,
    activite_principale: establishment.nafCode,
    categorie_entreprise: "PME",
    caractere_employeur: "N",
    annee_categorie_entreprise: "2023",
    date_creation: establishment.createdOn,
    date_fermeture: state === "F" ? closedOn : null,
    date_mise_a_jour: "2026-10-02T08:15:31",
    date_mise_a_jour_insee: "2026-10-02T08:15:31",
    date_mise_a_jour_rne: null,
    dirigeants: [],
    etat_administratif: state === "A" ? "A" : "C",
    nature_juridique: "5499",
    section_activite_principale: "C",
    tranche_effectif_salarie: null,
    annee_tranche_effectif_salarie: null,
    statut_diffusion: "O",
    matching_etablissements: [etablissement],
    finances: {},
    complements: { est_entrepreneur_individuel: false, est_ess: false, est_association: false },
    tva: [],
  };
}
