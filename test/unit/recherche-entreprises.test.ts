/**
 * The API Recherche d'entreprises client (src/official/recherche-entreprises.ts) against a local
 * server answering as the API's OpenAPI description says: what a found, closed, unknown or
 * non-public establishment becomes, 400 refused at once, 429 waiting its Retry-After, timeouts
 * and 5xx retried a bounded number of times, and never more than 7 requests a second.
 */
import { readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { OfficialRegistryError } from "../../src/domain/merchants/official-registry-lookup.ts";
import { makeSiren, makeSiret } from "../../src/domain/siret.ts";
import { retryAfterMs } from "../../src/official/paced-get.ts";
import {
  createRechercheEntreprisesClient,
  type RechercheEntreprisesOptions,
} from "../../src/official/recherche-entreprises.ts";
import { createRequestPacer } from "../../src/official/request-pacer.ts";
import {
  type FakeEstablishment,
  type FakeRechercheEntreprises,
  startFakeRechercheEntreprises,
} from "../helpers/fake-recherche-entreprises.ts";

let fake: FakeRechercheEntreprises;
beforeAll(async () => {
  fake = await startFakeRechercheEntreprises();
});
afterAll(async () => {
  await fake?.close();
});
afterEach(() => {
  fake.requests.length = 0;
});

const siren = makeSiren("55566677");
const siret = makeSiret(siren, "0001");
const bakery: FakeEstablishment = {
  siret,
  name: "SARL AU PAIN DORE",
  nafCode: "10.71C",
  address: "14 B AVENUE ROGER SALENGRO 69100 VILLEURBANNE",
  postalCode: "69100",
  city: "VILLEURBANNE",
  communeCode: "69266",
  createdOn: "2011-09-15",
};

const client = (options: Partial<RechercheEntreprisesOptions> = {}) =>
  createRechercheEntreprisesClient({
    baseUrl: `${fake.url}/`,
    timeoutMs: 2_000,
    userAgent: "abeille-test",
    backoffMs: 10,
    ...options,
  });

async function failure(promise: Promise<unknown>): Promise<OfficialRegistryError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OfficialRegistryError) return error;
    throw error;
  }
  throw new Error("the lookup did not fail");
}

describe("findEstablishment", () => {
  it("asks GET /search?q=<SIRET> with a User-Agent and reads the establishment the API matched", async () => {
    fake.script(siret, { kind: "found", establishment: bakery });
    const lookup = await client().findEstablishment(siret);
    expect(lookup).toEqual({
      url: `${fake.url}/search?q=${siret}`,
      establishment: {
        siret,
        siren,
        active: true,
        closedOn: null,
        public: true,
        nafCode: "10.71C",
        nafCode2025: null,
        address: "14 B AVENUE ROGER SALENGRO 69100 VILLEURBANNE",
        legalName: "SARL AU PAIN DORE",
      },
    });
    expect(fake.requests.map((request) => [request.url, request.userAgent])).toEqual([
      [`/search?q=${siret}`, "abeille-test"],
    ]);
  });

  it("reads both activity codes of recorded real answers: NAF rev. 2 and NAF 2025 (activite_principale_naf25)", async () => {
    const recorded = (name: string) =>
      JSON.parse(
        readFileSync(new URL(`../fixtures/recherche-entreprises/${name}`, import.meta.url), "utf8"),
      ) as unknown;
    fake.script("48744469700428", { kind: "recorded", body: recorded("search-48744469700428.json") });
    fake.script("91086648200011", { kind: "recorded", body: recorded("search-910866482-kikou.json") });
    expect((await client().findEstablishment("48744469700428")).establishment).toEqual({
      siret: "48744469700428",
      siren: "487444697",
      active: true,
      closedOn: null,
      public: true,
      nafCode: "43.21A",
      nafCode2025: "43.21G",
      address: "22 RUE MAISON BLANCHE 24330 BOULAZAC ISLE MANOIRE",
      legalName: "ESSOR ENERGIES",
    });
    expect((await client().findEstablishment("91086648200011")).establishment).toMatchObject({
      nafCode: "56.10C",
      nafCode2025: "56.11J",
      active: true,
    });
  });

  it("reads a NAF 2025 code alone, as the API writes it from 2027 in activite_principale", async () => {
    const body = JSON.parse(
      readFileSync(new URL("../fixtures/recherche-entreprises/search-910866482-kikou.json", import.meta.url), "utf8"),
    ) as { results: { matching_etablissements: Record<string, unknown>[] }[] };
    const [etablissement] = body.results[0]?.matching_etablissements ?? [];
    if (etablissement) Object.assign(etablissement, { activite_principale: "56.11J", activite_principale_naf25: null });
    fake.script("91086648200011", { kind: "recorded", body });
    expect((await client().findEstablishment("91086648200011")).establishment).toMatchObject({
      nafCode: "56.11J",
      nafCode2025: "56.11J",
    });
  });

  it("says when an establishment is closed (etat_administratif F) and since when", async () => {
    fake.script(siret, { kind: "closed", establishment: bakery, closedOn: "2026-09-30" });
    const { establishment } = await client().findEstablishment(siret);
    expect(establishment).toMatchObject({ siret, active: false, closedOn: "2026-09-30", public: true });
  });

  it("gives no establishment for an unknown SIRET (200, results: [])", async () => {
    const unknown = makeSiret(makeSiren("99988877"), "0001");
    expect(await client().findEstablishment(unknown)).toEqual({
      url: `${fake.url}/search?q=${unknown}`,
      establishment: null,
    });
  });

  it("marks a non-public establishment (statut_diffusion_etablissement P) and keeps no masked text", async () => {
    fake.script(siret, { kind: "not_public", establishment: bakery });
    const { establishment } = await client().findEstablishment(siret);
    expect(establishment).toMatchObject({ active: true, public: false, address: null });
  });

  it("refuses what is not a SIRET without asking (it would be a text search)", async () => {
    const error = await failure(client().findEstablishment("boulangerie"));
    expect([error.failure, error.message]).toEqual(["refused", "boulangerie is not a SIRET"]);
    expect(fake.requests).toHaveLength(0);
  });

  it("fails at once on a 400, with the API's own message", async () => {
    fake.script(siret, { kind: "bad_request", message: "Veuillez indiquer au moins un paramètre de recherche." });
    const error = await failure(client().findEstablishment(siret));
    expect(error.failure).toBe("refused");
    expect(error.message).toBe(
      `${fake.url}/search?q=${siret}: answered 400: Veuillez indiquer au moins un paramètre de recherche.`,
    );
    expect(fake.requests).toHaveLength(1);
  });
});

describe("an answer larger than a lookup may take", () => {
  // 50 MB: a valid answer (the establishment found) padded with spaces. Without a cap it was read
  // whole, however large (an answer of 10.5 GB was).
  const BYTES = 50 * 1024 * 1024;

  it("fails the lookup when Content-Length says so, without reading the body nor asking again", async () => {
    fake.script(siret, { kind: "huge", bytes: BYTES, declared: true, establishment: bakery });
    const error = await failure(client({ maxAnswerBytes: 1024 * 1024 }).findEstablishment(siret));
    expect([error.failure, error.message]).toEqual([
      "invalid_answer",
      `${fake.url}/search?q=${siret}: answered 200 with more than 1048576 bytes (an answer for one SIRET is a few kilobytes)`,
    ]);
    expect(fake.requests).toHaveLength(1);
  });

  it("stops reading a streamed answer at the cap (2 MiB by default) and fails the lookup", async () => {
    fake.script(siret, { kind: "huge", bytes: BYTES, declared: false, establishment: bakery });
    const error = await failure(client().findEstablishment(siret));
    expect([error.failure, error.message]).toEqual([
      "invalid_answer",
      `${fake.url}/search?q=${siret}: answered 200 with more than 2097152 bytes (an answer for one SIRET is a few kilobytes)`,
    ]);
    expect(fake.requests).toHaveLength(1);
    // The server stopped once the client let go: what it wrote is the cap and what the sockets
    // buffered, not the 50 MB.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fake.requests[0]?.sent).toBeLessThan(BYTES / 2);
  });

  it("reads an answer under the cap as usual", async () => {
    fake.script(siret, { kind: "huge", bytes: 512 * 1024, declared: false, establishment: bakery });
    const lookup = await client().findEstablishment(siret);
    expect(lookup.establishment?.siret).toBe(siret);
  });
});

describe("when the API is busy or slow", () => {
  it("waits the Retry-After of a 429, then asks again", async () => {
    fake.script(siret, { kind: "too_many", retryAfter: "1" }, { kind: "found", establishment: bakery });
    const started = performance.now();
    const lookup = await client().findEstablishment(siret);
    expect(lookup.establishment?.active).toBe(true);
    expect(fake.requests).toHaveLength(2);
    const [first, second] = fake.requests;
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(990);
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
  });

  it("fails rather than wait a Retry-After beyond its bound", async () => {
    fake.script(siret, { kind: "too_many", retryAfter: "3600" });
    const error = await failure(client({ maxRetryAfterMs: 60_000 }).findEstablishment(siret));
    expect(error.failure).toBe("rate_limited");
    expect(error.message).toBe(`${fake.url}/search?q=${siret}: 429 Too Many Requests, Retry-After 3600 (1 attempts)`);
    expect(fake.requests).toHaveLength(1);
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2026-11-24T10:00:00Z");
    expect(retryAfterMs("2", now)).toBe(2_000);
    expect(retryAfterMs("Tue, 24 Nov 2026 10:00:05 GMT", now)).toBe(5_000);
    expect(retryAfterMs("Tue, 24 Nov 2026 09:00:00 GMT", now)).toBe(0);
    expect(retryAfterMs("soon", now)).toBeNull();
    expect(retryAfterMs(null, now)).toBeNull();
  });

  it("gives up on an answer slower than the timeout with a clear error, after its bounded attempts", async () => {
    fake.script(siret, { kind: "slow", delayMs: 5_000, answer: { kind: "found", establishment: bakery } });
    const started = performance.now();
    const error = await failure(client({ timeoutMs: 200, maxAttempts: 2 }).findEstablishment(siret));
    expect(error.failure).toBe("timeout");
    expect(error.message).toBe(`${fake.url}/search?q=${siret}: no answer within 200 ms (2 attempts)`);
    expect(fake.requests).toHaveLength(2);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("retries a 503 after a backoff and takes the answer that follows", async () => {
    fake.script(siret, { kind: "status", status: 503 }, { kind: "found", establishment: bakery });
    const lookup = await client({ backoffMs: 100 }).findEstablishment(siret);
    expect(lookup.establishment?.siret).toBe(siret);
    const [first, second] = fake.requests;
    expect(fake.requests).toHaveLength(2);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(95);
  });

  it("bounds the retries: a server that keeps failing costs maxAttempts requests, then an error", async () => {
    fake.script(siret, { kind: "status", status: 502 });
    const error = await failure(client({ maxAttempts: 3 }).findEstablishment(siret));
    expect(error.failure).toBe("unavailable");
    expect(error.message).toBe(`${fake.url}/search?q=${siret}: answered 502 (3 attempts)`);
    expect(fake.requests).toHaveLength(3);
  });

  it("names an unreachable server", async () => {
    const error = await failure(client({ baseUrl: "http://127.0.0.1:9", maxAttempts: 2 }).findEstablishment(siret));
    expect(error.failure).toBe("unavailable");
    expect(error.message).toMatch(/^http:\/\/127\.0\.0\.1:9\/search\?q=\d{14}: fetch failed: .*\(2 attempts\)$/);
  });
});

describe("the client-side limit of 7 requests a second", () => {
  it("spreads 15 concurrent lookups over at least 2 seconds, never 8 within one second", async () => {
    fake.script(siret, { kind: "found", establishment: bakery });
    const lookup = client();
    const started = performance.now();
    await Promise.all(Array.from({ length: 15 }, () => lookup.findEstablishment(siret)));
    const elapsed = performance.now() - started;
    // 15 starts one 1/7 s + 15 ms apart: the 15th at 14 x 158 ms = 2.2 s. Without the limiter: a
    // few milliseconds.
    expect(elapsed).toBeGreaterThanOrEqual(2_200);
    const arrivals = fake.requests.map((request) => request.at);
    expect(arrivals).toHaveLength(15);
    for (let i = 7; i < arrivals.length; i += 1) {
      // As the server sees them: the 15 ms margin keeps 100 ms for a request slowed on its way.
      expect((arrivals[i] ?? 0) - (arrivals[i - 7] ?? 0)).toBeGreaterThanOrEqual(1_000);
    }
  });

  it("never goes above 7 a second, whatever is asked for", async () => {
    fake.script(siret, { kind: "found", establishment: bakery });
    const lookup = client({ requestsPerSecond: 50 });
    const started = performance.now();
    await Promise.all(Array.from({ length: 8 }, () => lookup.findEstablishment(siret)));
    expect(performance.now() - started).toBeGreaterThanOrEqual(980);
  });

  it("holds every caller back during a Retry-After (fake clock)", async () => {
    let clock = 0;
    const slept: number[] = [];
    const pacer = createRequestPacer({
      perSecond: 7,
      marginMs: 15,
      now: () => clock,
      sleep: async (ms) => {
        slept.push(ms);
        clock += ms;
      },
    });
    await pacer.acquire();
    await pacer.acquire();
    pacer.holdFor(3_000);
    await pacer.acquire();
    expect(slept).toEqual([158, 3_000]);
    expect(clock).toBe(3_158);
  });
});
