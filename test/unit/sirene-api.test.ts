/**
 * The API Sirene client (src/official/sirene-api.ts) against a local stand-in that replays the
 * API's recorded answers (test/fixtures/api-sirene): a day's pages by cursor, the records read as
 * the stock's rows are, API Sirene's 404 as an empty day, and every way the API can fail: a
 * refused key, a 429 and its Retry-After, 5xx, no answer, an answer of another shape, records of
 * another shape. The pace of the public plan (30 a minute) on a clock of the test's own.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { OfficialRegistryError } from "../../src/domain/merchants/official-registry-lookup.ts";
import type { RequestPacer } from "../../src/official/request-pacer.ts";
import { createSireneApiClient, type SireneApiOptions, sireneRequestPacer } from "../../src/official/sirene-api.ts";
import {
  establishmentRecord,
  type FakeApiSirene,
  type FakeEstablishmentValues,
  legalUnitRecord,
  startFakeApiSirene,
} from "../helpers/fake-api-sirene.ts";

const KEY = "integration-key-of-the-tests";
let fake: FakeApiSirene;
beforeAll(async () => {
  fake = await startFakeApiSirene({ key: KEY });
});
afterAll(async () => {
  await fake.close();
});
afterEach(() => {
  fake.requests.length = 0;
});

/** A pacer that lets every request go at once, and remembers the holds asked. */
function recordingPacer(): RequestPacer & { holds: number[] } {
  const holds: number[] = [];
  return { holds, acquire: async () => undefined, holdFor: (ms) => void holds.push(ms) };
}

function client(options: Partial<SireneApiOptions> = {}) {
  return createSireneApiClient({
    baseUrl: fake.url,
    apiKey: KEY,
    timeoutMs: 2_000,
    userAgent: "abeille-tests",
    pacer: recordingPacer(),
    sleep: async () => undefined,
    ...options,
  });
}

async function failure(promise: Promise<unknown>): Promise<OfficialRegistryError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof OfficialRegistryError)) throw new Error(`expected an OfficialRegistryError, got ${error}`);
  return error;
}

/** KIKOU, a fast-food restaurant in Paris 9 (the values SIRENE gives it: test/fixtures/recherche-entreprises). */
const kikou: FakeEstablishmentValues = {
  siret: "91086648200011",
  processedAt: "2026-12-01T15:42:22.431",
  createdOn: "2022-02-22",
  naf: "56.10C",
  naf2025: "56.11J",
  street: { number: "56", type: "RUE", name: "CATHERINE DE LA ROCHEFOUCAULD" },
  postalCode: "75009",
  city: "PARIS 9",
  communeCode: "75109",
  company: { name: "KIKOU", createdOn: "2022-02-22", processedAt: "2026-12-01T15:42:23" },
};

describe("API Sirene: a day's changes", () => {
  it("asks the day's establishments page after page by the cursor, with the key, and reads each as the stock's row", async () => {
    const recorded = establishmentRecord({
      ...kikou,
      siret: "32816124500027",
      naf: "58.29C",
      naf2025: null,
      street: { number: null, type: "ALL", name: "NICOLAS LE BLANC" },
      postalCode: "56000",
      city: "VANNES",
      communeCode: "56260",
      company: { name: "MGDIS", createdOn: "1997-10-24", legalForm: "5710" },
    });
    fake.publish("2026-12-01", { establishments: [establishmentRecord(kikou), recorded] });
    const api = client({ pageSize: 1 });
    const first = await api.establishmentsProcessedOn("2026-12-01", "*");
    expect(first).toMatchObject({ total: 2, rejected: [] });
    expect(first.items).toEqual([
      {
        siret: "91086648200011",
        siren: "910866482",
        public: true,
        active: true,
        closedOn: null,
        nafCode: "56.10C",
        nafCode2025: "56.11J",
        name: null,
        street: "56 rue Catherine de la Rochefoucauld",
        postalCode: "75009",
        city: "PARIS 9",
        inseeCode: "75109",
        createdOn: "2022-02-22",
        processedAt: "2026-12-01T15:42:22.000Z",
        position: null,
        legalUnit: {
          siren: "910866482",
          legalName: "KIKOU",
          legalForm: "5499",
          createdOn: "2022-02-22",
          processedAt: "2026-12-01T15:42:23.000Z",
        },
        asOf: "2026-12-01T00:00:00.000Z",
        readFrom: { source: "official_api", url: `${fake.url}/siret/91086648200011` },
      },
    ]);
    const second = await api.establishmentsProcessedOn("2026-12-01", first.nextCursor);
    expect(second.items.map((item) => [item.siret, item.street, item.legalUnit?.legalName])).toEqual([
      ["32816124500027", "allée Nicolas le Blanc", "MGDIS"],
    ]);
    // The last page: nothing on it, its own cursor given back.
    const last = await api.establishmentsProcessedOn("2026-12-01", second.nextCursor);
    expect([last.items, last.nextCursor]).toEqual([[], second.nextCursor]);
    expect(fake.requests.map((request) => [request.collection, request.q, request.nombre, request.key])).toEqual([
      ["/siret", "dateDernierTraitementEtablissement:2026-12-01", "1", KEY],
      ["/siret", "dateDernierTraitementEtablissement:2026-12-01", "1", KEY],
      ["/siret", "dateDernierTraitementEtablissement:2026-12-01", "1", KEY],
    ]);
    expect(fake.requests.map((request) => request.curseur)).toEqual(["*", first.nextCursor, second.nextCursor]);
    expect(fake.requests[0]?.search).toBe("?q=dateDernierTraitementEtablissement:2026-12-01&nombre=1&curseur=*");
    expect(api.requests()).toBe(3);
  });

  it("asks 1,000 records a page unless told fewer", async () => {
    fake.publish("2026-12-02", { establishments: [establishmentRecord(kikou)] });
    await client().establishmentsProcessedOn("2026-12-02", "*");
    expect(fake.requests[0]?.nombre).toBe("1000");
  });

  it("reads a closed establishment's closing day from its current period (dateDebut), as the stock's column", async () => {
    fake.publish("2026-12-05", {
      establishments: [
        establishmentRecord({ ...kikou, active: false, closedOn: "2026-11-30", processedAt: "2026-12-05T09:00:00" }),
      ],
    });
    const page = await client().establishmentsProcessedOn("2026-12-05", "*");
    expect(page.items.map(({ siret, active, closedOn }) => ({ siret, active, closedOn }))).toEqual([
      { siret: kikou.siret, active: false, closedOn: "2026-11-30" },
    ]);
  });

  it("reads the day's companies: renamed, ceased, not public", async () => {
    fake.publish("2026-12-03", {
      legalUnits: [
        legalUnitRecord("910866482", {
          name: "KIKOU PARIS",
          createdOn: "2022-02-22",
          processedAt: "2026-12-03T10:00:00",
        }),
        legalUnitRecord("487444697", {
          name: "ESSOR ENERGIES",
          createdOn: "2005-12-06",
          ceased: true,
          ceasedOn: "2026-11-30",
        }),
        legalUnitRecord("981195464", { name: "[ND]", createdOn: "2023-11-20", public: false }),
      ],
    });
    const page = await client().legalUnitsProcessedOn("2026-12-03", "*");
    expect(fake.requests[0]?.q).toBe("dateDernierTraitementUniteLegale:2026-12-03");
    expect(
      page.items.map(({ siren, ceased, ceasedOn, unit, processedAt }) => ({
        siren,
        ceased,
        ceasedOn,
        unit,
        processedAt,
      })),
    ).toEqual([
      {
        siren: "910866482",
        ceased: false,
        // An active company's period start is no closing.
        ceasedOn: null,
        unit: {
          siren: "910866482",
          legalName: "KIKOU PARIS",
          legalForm: "5499",
          createdOn: "2022-02-22",
          processedAt: "2026-12-03T10:00:00.000Z",
        },
        processedAt: "2026-12-03T10:00:00.000Z",
      },
      {
        siren: "487444697",
        ceased: true,
        // Since when: its ceased period's dateDebut.
        ceasedOn: "2026-11-30",
        unit: expect.objectContaining({ legalName: "ESSOR ENERGIES" }),
        processedAt: "2026-12-01T09:30:00.000Z",
      },
      // Not public: its name is not to be used.
      { siren: "981195464", ceased: false, ceasedOn: null, unit: null, processedAt: "2026-12-01T09:30:00.000Z" },
    ]);
  });

  it("takes API Sirene's 404 ('Aucun élément trouvé') for an empty day, and refuses a 404 that is not API Sirene's", async () => {
    const empty = await client().establishmentsProcessedOn("2026-12-04", "*");
    expect(empty).toMatchObject({ items: [], rejected: [], nextCursor: "*", total: 0 });
    fake.script({ kind: "status", status: 404, body: "<html><body>Not Found</body></html>" });
    const refused = await failure(client().establishmentsProcessedOn("2026-12-04", "*"));
    expect([refused.failure, refused.message]).toEqual([
      "refused",
      `${fake.url}/siret?q=dateDernierTraitementEtablissement:2026-12-04&nombre=1000&curseur=*: answered 404 without API Sirene's "Aucun élément trouvé" (is SIRENE_API_URL the API's address?)`,
    ]);
  });

  it("says a refused key in one line, and asks no more", async () => {
    const refused = await failure(client({ apiKey: "wrong" }).establishmentsProcessedOn("2026-12-01", "*"));
    expect(refused.failure).toBe("refused");
    expect(refused.message).toBe(
      `${fake.url}/siret?q=dateDernierTraitementEtablissement:2026-12-01&nombre=1000&curseur=*: answered 401: Unauthorized: API Sirene refused the key (SIRENE_API_KEY: an integration key of portail-api.insee.fr subscribed to API Sirene)`,
    );
    expect(fake.requests).toHaveLength(1);
  });

  it("waits as a 429's Retry-After says (every request of the client), then asks again", async () => {
    fake.publish("2026-12-05", { establishments: [establishmentRecord(kikou)] });
    const pacer = recordingPacer();
    fake.script({ kind: "status", status: 429, retryAfter: "7" });
    const page = await client({ pacer }).establishmentsProcessedOn("2026-12-05", "*");
    expect(page.items).toHaveLength(1);
    expect(pacer.holds).toEqual([7_000]);
    expect(fake.requests).toHaveLength(2);
  });

  it("tries a 5xx again after a backoff, and gives up after its attempts", async () => {
    fake.publish("2026-12-06", { establishments: [establishmentRecord(kikou)] });
    const waits: number[] = [];
    fake.script({ kind: "status", status: 503 }, { kind: "status", status: 500 });
    const page = await client({ backoffMs: 100, sleep: async (ms) => void waits.push(ms) }).establishmentsProcessedOn(
      "2026-12-06",
      "*",
    );
    expect([page.items.length, waits]).toEqual([1, [100, 200]]);
    fake.script(...Array.from({ length: 4 }, () => ({ kind: "status" as const, status: 502 })));
    const failed = await failure(client().establishmentsProcessedOn("2026-12-06", "*"));
    expect([failed.failure, failed.message]).toEqual([
      "unavailable",
      `${fake.url}/siret?q=dateDernierTraitementEtablissement:2026-12-06&nombre=1000&curseur=*: answered 502 (4 attempts)`,
    ]);
  });

  it("gives up on an API that does not answer within the timeout, after its attempts", async () => {
    fake.script({ kind: "stall" }, { kind: "stall" });
    const failed = await failure(
      client({ timeoutMs: 200, maxAttempts: 2 }).establishmentsProcessedOn("2026-12-07", "*"),
    );
    expect([failed.failure, failed.message]).toEqual([
      "timeout",
      `${fake.url}/siret?q=dateDernierTraitementEtablissement:2026-12-07&nombre=1000&curseur=*: no answer within 200 ms (2 attempts)`,
    ]);
  });

  it("refuses a page of another shape in one line, and counts each record of another shape with its reason", async () => {
    fake.script({ kind: "body", text: '{"etablissements": []}' });
    const noHeader = await failure(client().establishmentsProcessedOn("2026-12-08", "*"));
    expect(noHeader.failure).toBe("invalid_answer");
    expect(noHeader.message).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/siret\?q=.*: not a page of API Sirene \(.*header.*\)$/,
    );
    fake.script({
      kind: "body",
      text: JSON.stringify({ header: { statut: 200, total: 1, nombre: 1, curseur: "*", curseurSuivant: "*" } }),
    });
    const noList = await failure(client().establishmentsProcessedOn("2026-12-08", "*"));
    expect(noList.message).toMatch(/: not a page of API Sirene \(no etablissements list\)$/);
    fake.script({ kind: "body", text: "<html>maintenance</html>" });
    expect((await failure(client().establishmentsProcessedOn("2026-12-08", "*"))).failure).toBe("invalid_answer");

    const { periodesEtablissement: _periods, ...withoutPeriods } = establishmentRecord({
      ...kikou,
      siret: "98119546400012",
    });
    fake.publish("2026-12-08", {
      establishments: [
        withoutPeriods,
        establishmentRecord({ ...kikou, siret: "91086648200012" }),
        "not an establishment",
        establishmentRecord(kikou),
      ],
    });
    const page = await client().establishmentsProcessedOn("2026-12-08", "*");
    expect(page.items.map((item) => item.siret)).toEqual(["91086648200011"]);
    expect(page.rejected).toEqual([
      { id: "98119546400012", error: "no periodesEtablissement (not an establishment of API Sirene)" },
      { id: "91086648200012", error: 'siret: "91086648200012" is not a valid SIRET' },
      { id: null, error: "not a JSON object" },
    ]);
  });
});

describe("the pace of API Sirene's public plan", () => {
  it("starts at most 30 requests in any minute", async () => {
    let now = 0;
    const pacer = sireneRequestPacer({
      now: () => now,
      sleep: async (ms) => {
        now += ms;
      },
    });
    const starts: number[] = [];
    for (let request = 0; request < 61; request++) {
      await pacer.acquire();
      starts.push(now);
    }
    for (let index = 30; index < starts.length; index++) {
      expect((starts[index] as number) - (starts[index - 30] as number)).toBeGreaterThanOrEqual(60_000);
    }
  });
});
