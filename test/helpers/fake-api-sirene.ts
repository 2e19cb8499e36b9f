/**
 * A local stand-in for API Sirene 3.11 (https://api.insee.fr/api-sirene/3.11), answering the daily
 * import's two queries as INSEE documents them and as recorded answers show
 * (test/fixtures/api-sirene/README.md):
 * `GET /siret?q=dateDernierTraitementEtablissement:AAAA-MM-JJ&nombre=N&curseur=C` and
 * `GET /siren?q=dateDernierTraitementUniteLegale:AAAA-MM-JJ&...`, with the key in
 * `X-INSEE-Api-Key-Integration` (else 401). Pages by cursor: `curseur=*` first, `curseurSuivant`
 * next, and the last page answers no element and gives back its own cursor; a day with nothing is
 * API Sirene's 404 "Aucun élément trouvé". Scripted answers (a 429 with Retry-After, a 5xx, a 401,
 * a body of another shape, an answer that never comes) are given to the next requests first.
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

const fixtures = path.resolve(import.meta.dirname, "../fixtures/api-sirene");
const recorded = (name: string) => JSON.parse(readFileSync(path.join(fixtures, name), "utf8"));
/** The recorded establishment (MGDIS) and company (CAMAIEU INTERNATIONAL) the records are built from. */
const ESTABLISHMENT = recorded("siret-32816124500027.json").etablissement as Record<string, unknown>;
const LEGAL_UNIT = recorded("siren-345086177-a-date.json").uniteLegale as Record<string, unknown>;

/** The company an establishment belongs to, as the answer embeds it (its current values). */
export interface FakeCompany {
  name: string;
  createdOn: string;
  public?: boolean;
  legalForm?: string;
  /** INSEE's timestamp of the company's last processing ("2026-12-01T09:30:00"). */
  processedAt?: string;
  ceased?: boolean;
  /** The day it ceased: its current (ceased) period's dateDebut. */
  ceasedOn?: string;
}

export interface FakeEstablishmentValues {
  siret: string;
  /** INSEE's timestamp of the establishment's last processing ("2026-12-01T09:30:00"). */
  processedAt: string;
  createdOn?: string;
  public?: boolean;
  active?: boolean;
  /** The day it closed (active false): its current (closed) period's dateDebut, as INSEE writes it. */
  closedOn?: string;
  sign?: string | null;
  naf: string;
  naf2025?: string | null;
  street: { number: string | null; type: string | null; name: string };
  postalCode: string;
  city: string;
  communeCode: string;
  company: FakeCompany;
}

/** An element of `etablissements`: the recorded one, field for field, with these values. */
export function establishmentRecord(values: FakeEstablishmentValues): Record<string, unknown> {
  const record = structuredClone(ESTABLISHMENT) as Record<string, Record<string, unknown> & unknown[]>;
  const period = structuredClone((ESTABLISHMENT.periodesEtablissement as Record<string, unknown>[])[0]);
  return {
    ...record,
    siren: values.siret.slice(0, 9),
    nic: values.siret.slice(9),
    siret: values.siret,
    statutDiffusionEtablissement: values.public === false ? "P" : "O",
    dateCreationEtablissement: values.createdOn ?? "2019-03-11",
    dateDernierTraitementEtablissement: values.processedAt,
    activitePrincipaleNAF25Etablissement: values.naf2025 ?? null,
    uniteLegale: {
      ...record.uniteLegale,
      etatAdministratifUniteLegale: values.company.ceased ? "C" : "A",
      statutDiffusionUniteLegale: values.company.public === false ? "P" : "O",
      dateCreationUniteLegale: values.company.createdOn,
      categorieJuridiqueUniteLegale: values.company.legalForm ?? "5499",
      denominationUniteLegale: values.company.name,
      sigleUniteLegale: null,
      activitePrincipaleUniteLegale: values.naf,
      nicSiegeUniteLegale: values.siret.slice(9),
      dateDernierTraitementUniteLegale: values.company.processedAt ?? values.processedAt,
    },
    adresseEtablissement: {
      ...record.adresseEtablissement,
      numeroVoieEtablissement: values.street.number,
      typeVoieEtablissement: values.street.type,
      libelleVoieEtablissement: values.street.name,
      codePostalEtablissement: values.postalCode,
      libelleCommuneEtablissement: values.city,
      codeCommuneEtablissement: values.communeCode,
    },
    periodesEtablissement: [
      {
        ...period,
        dateDebut: (values.active === false ? values.closedOn : undefined) ?? values.createdOn ?? "2019-03-11",
        etatAdministratifEtablissement: values.active === false ? "F" : "A",
        enseigne1Etablissement: values.sign ?? null,
        activitePrincipaleEtablissement: values.naf,
      },
    ],
  };
}

/** An element of `unitesLegales`: the recorded one, field for field, with this company's values. */
export function legalUnitRecord(siren: string, company: FakeCompany): Record<string, unknown> {
  const period = structuredClone((LEGAL_UNIT.periodesUniteLegale as Record<string, unknown>[])[0]);
  return {
    ...structuredClone(LEGAL_UNIT),
    siren,
    statutDiffusionUniteLegale: company.public === false ? "P" : "O",
    dateCreationUniteLegale: company.createdOn,
    dateDernierTraitementUniteLegale: company.processedAt ?? "2026-12-01T09:30:00",
    nombrePeriodesUniteLegale: 1,
    periodesUniteLegale: [
      {
        ...period,
        dateDebut: (company.ceased ? company.ceasedOn : undefined) ?? period?.dateDebut,
        etatAdministratifUniteLegale: company.ceased ? "C" : "A",
        changementEtatAdministratifUniteLegale: company.ceased === true,
        denominationUniteLegale: company.name,
        categorieJuridiqueUniteLegale: company.legalForm ?? "5499",
      },
    ],
  };
}

export type FakeSireneAnswer =
  /** Answered as the day's pages are: the next scripted answer goes to the request after. */
  | { kind: "pass" }
  | { kind: "status"; status: number; body?: string; retryAfter?: string }
  /** A 200 whose body is this text (an answer of another shape). */
  | { kind: "body"; text: string }
  /** No answer at all: the request waits until the server closes. */
  | { kind: "stall" };

export interface FakeSireneRequest {
  collection: string;
  q: string | null;
  nombre: string | null;
  curseur: string | null;
  key: string | null;
  /** The query string as sent. */
  search: string;
}

export interface FakeApiSirene {
  url: string;
  requests: FakeSireneRequest[];
  /** What INSEE processed on a day: its establishments' and companies' records. */
  publish(day: string, records: { establishments?: unknown[]; legalUnits?: unknown[] }): void;
  /** Answers given to the next requests, in order, before the day's pages. */
  script(...answers: FakeSireneAnswer[]): void;
  /** Resolves when the server has received `count` requests in all. */
  received(count: number): Promise<void>;
  close(): Promise<void>;
}

const QUERY = /^dateDernierTraitement(Etablissement|UniteLegale):(\d{4}-\d{2}-\d{2})$/;

export async function startFakeApiSirene(options: {
  key: string;
  /** The most records a page answers whatever `nombre` asks (a cursor's pages may be shorter than asked). */
  pageSize?: number;
}): Promise<FakeApiSirene> {
  const days = new Map<string, { establishments: unknown[]; legalUnits: unknown[] }>();
  const scripted: FakeSireneAnswer[] = [];
  const requests: FakeSireneRequest[] = [];
  const waiting: { count: number; resolve: () => void }[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://fake");
    const key = request.headers["x-insee-api-key-integration"];
    const arrived: FakeSireneRequest = {
      collection: url.pathname,
      q: url.searchParams.get("q"),
      nombre: url.searchParams.get("nombre"),
      curseur: url.searchParams.get("curseur"),
      key: typeof key === "string" ? key : null,
      search: url.search,
    };
    requests.push(arrived);
    for (const waiter of waiting.filter((candidate) => requests.length >= candidate.count)) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
    const next = scripted.shift();
    if (next?.kind === "stall") return;
    if (next?.kind === "body") return send(response, 200, next.text);
    if (next?.kind === "status") {
      response.writeHead(next.status, {
        "content-type": "application/json;charset=utf-8",
        ...(next.retryAfter ? { "retry-after": next.retryAfter } : {}),
      });
      response.end(next.body ?? "");
      return;
    }
    if (arrived.key !== options.key) return send(response, 401, JSON.stringify({ message: "Unauthorized" }));
    const query = QUERY.exec(arrived.q ?? "");
    const collection =
      url.pathname === "/siret" ? "etablissements" : url.pathname === "/siren" ? "unitesLegales" : null;
    if (!query || !collection || (collection === "etablissements") !== (query[1] === "Etablissement")) {
      return send(response, 400, JSON.stringify({ header: { statut: 400, message: "Requête invalide" } }));
    }
    const published = days.get(query[2] as string);
    const all = (collection === "etablissements" ? published?.establishments : published?.legalUnits) ?? [];
    if (all.length === 0) {
      const noMatch = { header: { statut: 404, message: `Aucun élément trouvé pour q=${arrived.q}` } };
      return send(response, 404, JSON.stringify(noMatch));
    }
    const cursor = arrived.curseur ?? "*";
    const offset = cursor === "*" ? 0 : offsetOf(cursor);
    const size = Math.min(Number(arrived.nombre ?? 20), options.pageSize ?? Number.POSITIVE_INFINITY);
    const items = all.slice(offset, offset + size);
    const header = {
      statut: 200,
      message: "OK",
      total: all.length,
      debut: 0,
      nombre: items.length,
      curseur: cursor,
      // The last page (nothing left) gives back its own cursor.
      curseurSuivant: items.length === 0 ? cursor : cursorOf(offset + items.length),
    };
    send(response, 200, JSON.stringify({ header, [collection]: items }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    publish(day, records) {
      days.set(day, { establishments: records.establishments ?? [], legalUnits: records.legalUnits ?? [] });
    },
    script(...answers) {
      scripted.push(...answers);
    },
    received(count) {
      if (requests.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiting.push({ count, resolve }));
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Opaque cursors, as INSEE's are ("AoEuNDI4MjEyMzM2MDAwMjE="): here the offset, in base64. */
const cursorOf = (offset: number) => Buffer.from(`AoE.${offset}`).toString("base64");
const offsetOf = (cursor: string) => Number(Buffer.from(cursor, "base64").toString("utf8").slice(4)) || 0;

function send(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, { "content-type": "application/json;charset=utf-8" });
  response.end(body);
}
