/**
 * The daily import (src/import/sirene/daily.ts) on both engines, from a local stand-in of API
 * Sirene replaying its recorded answers (test/helpers/fake-api-sirene.ts): a day's establishments
 * come in, close (their closure recorded, as the stock's), are renamed through their company, each
 * verified as of the day processed; an
 * empty day (404) is empty; how far the run got is kept in the store, so a run stopped by the API
 * is taken up at its next page, and the next run starts the day after the last day done.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MerchantRegistryStore } from "../../src/domain/merchants/merchant-registry.ts";
import { OfficialRegistryError } from "../../src/domain/merchants/official-registry-lookup.ts";
import type { SettingsRepository } from "../../src/domain/settings-store.ts";
import { makeSiren, makeSiret } from "../../src/domain/siret.ts";
import {
  importSireneDays,
  readDailyState,
  SIRENE_DAILY_STATE_KEY,
  type SireneDailyDeps,
} from "../../src/import/sirene/daily.ts";
import { createSireneApiClient } from "../../src/official/sirene-api.ts";
import { createCommuneLookup } from "../../src/seed/communes.ts";
import { createMerchantRegistryRepository } from "../../src/store/merchant-registry-repository.ts";
import { createPostgresMerchantRegistryRepository } from "../../src/store/postgres/merchant-registry-repository.ts";
import { createSettingsRepository } from "../../src/store/settings-repository.ts";
import {
  establishmentRecord,
  type FakeApiSirene,
  type FakeEstablishmentValues,
  legalUnitRecord,
  startFakeApiSirene,
} from "../helpers/fake-api-sirene.ts";
import { type OpenedStore, storeEngines } from "../helpers/store-engines.ts";

const KEY = "integration-key-of-the-tests";
const RUN_AT = new Date("2026-12-04T06:40:00.000Z");
let fake: FakeApiSirene;
beforeAll(async () => {
  fake = await startFakeApiSirene({ key: KEY });
});
afterAll(async () => {
  await fake.close();
});

/** Real establishments of local commerce, with the values SIRENE gives them (test/fixtures/recherche-entreprises). */
const kikou: FakeEstablishmentValues = {
  siret: "91086648200011",
  processedAt: "2026-12-01T15:42:22",
  createdOn: "2022-02-22",
  naf: "56.10C",
  naf2025: "56.11J",
  street: { number: "56", type: "RUE", name: "CATHERINE DE LA ROCHEFOUCAULD" },
  postalCode: "75009",
  city: "PARIS 9",
  communeCode: "75109",
  company: { name: "KIKOU", createdOn: "2022-02-22" },
};
const solarsud: FakeEstablishmentValues = {
  siret: "48744469700428",
  processedAt: "2026-12-01T20:01:54",
  createdOn: "2019-03-11",
  sign: "SOLARSUD",
  naf: "43.21A",
  naf2025: "43.21G",
  street: { number: "22", type: "RUE", name: "MAISON BLANCHE" },
  postalCode: "24330",
  city: "BOULAZAC ISLE MANOIRE",
  communeCode: "24053",
  company: { name: "ESSOR ENERGIES", createdOn: "2005-12-06" },
};
const grocery: FakeEstablishmentValues = {
  siret: "83501379800029",
  processedAt: "2026-12-06T15:37:32",
  createdOn: "2018-02-16",
  naf: "47.11B",
  naf2025: "47.11G",
  street: { number: "81", type: "RUE", name: "ALPHONSE GUERIN" },
  postalCode: "35000",
  city: "RENNES",
  communeCode: "35238",
  company: { name: "EPICERIE GUERIN", createdOn: "2018-02-16" },
};
const hidden = makeSiret(makeSiren("77788899"), "0001");

function portsOf(store: OpenedStore): { registry: MerchantRegistryStore; settings: SettingsRepository } {
  if (store.sqlite) {
    return {
      registry: createMerchantRegistryRepository(store.sqlite),
      settings: createSettingsRepository(store.sqlite),
    };
  }
  if (!store.postgres) throw new Error("no store");
  return {
    registry: createPostgresMerchantRegistryRepository(store.postgres),
    settings: createSettingsRepository(store.postgres.storeDb),
  };
}

function dailyDeps(store: OpenedStore): SireneDailyDeps {
  let drawn = 0;
  return {
    ...portsOf(store),
    communes: createCommuneLookup(),
    now: () => RUN_AT,
    randomId: () => `ab_day${String(++drawn).padStart(5, "0")}`,
    changes: createSireneApiClient({
      baseUrl: fake.url,
      apiKey: KEY,
      timeoutMs: 2_000,
      userAgent: "abeille-tests",
      pageSize: 2,
      pacer: { acquire: async () => undefined, holdFor: () => undefined },
      sleep: async () => undefined,
      backoffMs: 1,
    }),
  };
}

const identityOf = async (registry: MerchantRegistryStore, siret: string) => {
  const registered = await registry.find((await registry.abIdOfSiret(siret)) as string);
  const signal = registered?.signals.find((candidate) => candidate.key === "siret_verified");
  return {
    status: registered?.merchant.status,
    legalName: registered?.merchant.legalName,
    identity: signal && [signal.source, signal.origin, signal.verifiedAt, signal.expiresAt, signal.changedAt],
  };
};

for (const engine of storeEngines()) {
  describe(`the daily import on ${engine.name}`, () => {
    it("brings in a day's creations, closures and renamings, verified as of the day; keeps where it got to; takes up a run the API stopped at its page", async () => {
      fake.publish("2026-12-01", {
        establishments: [
          establishmentRecord(kikou),
          establishmentRecord(solarsud),
          // Another trade, and an establishment that is not public: as the stock treats them.
          establishmentRecord({ ...kikou, siret: "32816124500027", naf: "58.29C", naf2025: null }),
          establishmentRecord({ ...kikou, siret: hidden, public: false }),
        ],
      });
      fake.publish("2026-12-03", {
        // SOLARSUD closed on 30 November, processed on the 3rd, and its company ceased with it.
        establishments: [
          establishmentRecord({
            ...solarsud,
            active: false,
            closedOn: "2026-11-30",
            processedAt: "2026-12-03T09:00:00",
          }),
        ],
        legalUnits: [
          legalUnitRecord("910866482", {
            name: "KIKOU PARIS",
            createdOn: "2022-02-22",
            processedAt: "2026-12-03T10:00:00",
          }),
          legalUnitRecord(solarsud.siret.slice(0, 9), {
            ...solarsud.company,
            ceased: true,
            ceasedOn: "2026-11-30",
            processedAt: "2026-12-03T09:00:01",
          }),
        ],
      });
      const store = await engine.open();
      const deps = dailyDeps(store);
      fake.requests.length = 0;
      const first = await importSireneDays(deps, { since: "2026-12-01", today: "2026-12-04" }, "import:sirene-daily");
      expect(first).toEqual({
        from: "2026-12-01",
        to: "2026-12-04",
        through: "2026-12-03",
        resumed: false,
        pages: 12,
        establishments: 5,
        legal_units: 2,
        created: 2,
        updated: 1,
        archived: 0,
        // SOLARSUD's closure, recorded by its establishment's row; its ceased company finds it recorded.
        closed: 1,
        confirmed: 0,
        unchanged: 1,
        skipped: { naf_not_covered: 1, not_public: 1 },
        rejected: [],
        rejected_count: 0,
      });
      // Day by day, the establishments then the companies; each query page after page to its last.
      expect(
        fake.requests.map(
          (request) => `${request.collection} ${request.q?.slice(-10)} ${request.curseur === "*" ? "*" : "next"}`,
        ),
      ).toEqual([
        "/siret 2026-12-01 *",
        "/siret 2026-12-01 next",
        "/siret 2026-12-01 next",
        "/siren 2026-12-01 *",
        "/siret 2026-12-02 *",
        "/siren 2026-12-02 *",
        "/siret 2026-12-03 *",
        "/siret 2026-12-03 next",
        "/siren 2026-12-03 *",
        "/siren 2026-12-03 next",
        "/siret 2026-12-04 *",
        "/siren 2026-12-04 *",
      ]);
      const { registry, settings } = portsOf(store);
      // Verified as of the day INSEE processed it (its change that day), for 730 days, by SIRENE's API.
      expect(await identityOf(registry, kikou.siret)).toEqual({
        status: "PROBATION",
        legalName: "KIKOU PARIS",
        identity: [
          "official_api",
          "sirene",
          "2026-12-01T15:42:22.000Z",
          "2028-11-30T15:42:22.000Z",
          "2026-12-01T15:42:22.000Z",
        ],
      });
      // Closed, not archived (docs/decisions.md, "Issue 37: only what is in business"): still
      // resolvable, saying since when and where API Sirene said so; never a search hit.
      const closed = await registry.find((await registry.abIdOfSiret(solarsud.siret)) as string);
      expect(closed?.merchant.status).toBe("PROBATION");
      expect(closed?.merchant.closure).toEqual({
        closedOn: "2026-11-30",
        source: "sirene",
        sourceUrl: `${fake.url}/siret/${solarsud.siret}`,
        label: "Établissement fermé (état administratif F)",
        announcementId: null,
        recordedAt: RUN_AT.toISOString(),
      });
      expect(await registry.abIdOfSiret(hidden)).toBeNull();
      expect(readDailyState(await settings.get(SIRENE_DAILY_STATE_KEY))).toEqual({ through: "2026-12-03", at: null });

      // The next run starts the day after the last day done; empty days stay to be asked again.
      fake.requests.length = 0;
      const next = await importSireneDays(deps, { since: null, today: "2026-12-05" }, "import:sirene-daily");
      expect([next.from, next.through, next.pages]).toEqual(["2026-12-04", "2026-12-03", 4]);

      // A day of three establishments; the API fails after the first page (every attempt): the run
      // stops, what it applied stays, and the next run asks that page again, not the first.
      fake.publish("2026-12-06", {
        establishments: [
          establishmentRecord(grocery),
          establishmentRecord({
            ...grocery,
            siret: "98119546400012",
            company: { name: "UNE POIGNEE DE FRIANDISES", createdOn: "2023-11-20" },
          }),
          establishmentRecord({ ...kikou, processedAt: "2026-12-06T08:00:00" }),
        ],
      });
      fake.requests.length = 0;
      const stopped = importSireneDays(deps, { since: null, today: "2026-12-07" }, "import:sirene-daily", {
        onPage: (_report, day, query) => {
          if (day === "2026-12-06" && query === "establishments") {
            fake.script(...Array.from({ length: 4 }, () => ({ kind: "status" as const, status: 503 })));
          }
        },
      });
      await expect(stopped).rejects.toBeInstanceOf(OfficialRegistryError);
      const kept = readDailyState(await settings.get(SIRENE_DAILY_STATE_KEY));
      expect(kept).toMatchObject({
        through: "2026-12-03",
        at: { from: "2026-12-04", day: "2026-12-06", query: "establishments" },
      });
      const stoppedAt = kept.at?.cursor as string;
      expect(stoppedAt).not.toBe("*");
      expect((await identityOf(registry, grocery.siret)).status).toBe("PROBATION");
      expect(await registry.abIdOfSiret("98119546400012")).not.toBeNull();

      fake.requests.length = 0;
      const resumed = await importSireneDays(deps, { since: null, today: "2026-12-07" }, "import:sirene-daily");
      expect(fake.requests[0]?.curseur).toBe(stoppedAt);
      expect(resumed).toMatchObject({
        from: "2026-12-04",
        resumed: true,
        through: "2026-12-06",
        establishments: 1,
        confirmed: 0,
        updated: 1,
      });
      // KIKOU processed again on the 6th: its check moved to that day's processing.
      expect((await identityOf(registry, kikou.siret)).identity?.[2]).toBe("2026-12-06T08:00:00.000Z");
      expect(readDailyState(await settings.get(SIRENE_DAILY_STATE_KEY))).toEqual({ through: "2026-12-06", at: null });
    }, 60_000);
  });
}
