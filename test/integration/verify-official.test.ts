/**
 * `npm run verify` run as its own process on the DATA_DIR the built server serves, against a local
 * API Recherche d'entreprises answering as its OpenAPI description says (a 503 then the answer, a
 * 429 with Retry-After, a closed establishment, an unknown SIRET, a 400). Merchants come in through
 * the SIRENE import; what the check recorded is read back through the HTTP API.
 */
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeSiren, makeSiret } from "../../src/domain/siret.ts";
import {
  type FakeEstablishment,
  type FakeRechercheEntreprises,
  startFakeRechercheEntreprises,
} from "../helpers/fake-recherche-entreprises.ts";
import { ESTABLISHMENT_HEADER, legalUnitsCsv, publicCompany, stockRow } from "../helpers/sirene-stock.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const DAY = 24 * 3_600_000;
let server: TestServer;
let fake: FakeRechercheEntreprises;

beforeAll(async () => {
  fake = await startFakeRechercheEntreprises();
  // No demo merchants: the due list holds only what this file imports.
  server = await startTestServer({ count: 0 });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await fake?.close();
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function job(script: string, ...args: string[]): Promise<Run> {
  const env = {
    ...process.env,
    DATA_DIR: server.dataDir,
    LOG_LEVEL: "warn",
    RECHERCHE_ENTREPRISES_URL: fake.url,
    RECHERCHE_ENTREPRISES_TIMEOUT_MS: "2000",
  };
  try {
    const { stdout, stderr } = await run(process.execPath, [script, ...args], { cwd: root, env });
    return { code: 0, stdout, stderr };
  } catch (failure) {
    const { code, stdout, stderr } = failure as Run;
    return { code, stdout, stderr };
  }
}
const verify = (...args: string[]) => job("jobs/verify.ts", ...args);

const shop = (siren: string, name: string): FakeEstablishment => ({
  siret: makeSiret(siren, "0001"),
  name,
  nafCode: "10.71C",
  address: `14 AVENUE ROGER SALENGRO 69100 VILLEURBANNE`,
  postalCode: "69100",
  city: "VILLEURBANNE",
  communeCode: "69266",
  createdOn: "2011-09-15",
});
const fournil = shop(makeSiren("71122233"), "LE FOURNIL");
const mie = shop(makeSiren("72233344"), "LA BELLE MIE");
const epi = shop(makeSiren("73344455"), "L EPI DORE");
const searched = (siret: string) => `${fake.url}/search?q=${siret}`;

describe("npm run verify", () => {
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    // INSEE processed the rows 700 days ago: their identity check ends in 30 days.
    const processed = new Date(Date.now() - 700 * DAY).toISOString().slice(0, 19);
    const rows = [fournil, mie, epi].map((establishment, position) =>
      stockRow({
        siren: establishment.siret.slice(0, 9),
        nic: establishment.siret.slice(9),
        siret: establishment.siret,
        statutDiffusionEtablissement: "O",
        dateCreationEtablissement: "2011-09-15",
        dateDernierTraitementEtablissement: processed,
        numeroVoieEtablissement: String(14 + position),
        typeVoieEtablissement: "AV",
        libelleVoieEtablissement: "ROGER SALENGRO",
        codePostalEtablissement: "69100",
        libelleCommuneEtablissement: "VILLEURBANNE",
        codeCommuneEtablissement: "69266",
        etatAdministratifEtablissement: "A",
        enseigne1Etablissement: establishment.name,
        activitePrincipaleEtablissement: "10.71C",
        nomenclatureActivitePrincipaleEtablissement: "NAFRev2",
      }),
    );
    const file = path.join(server.dataDir, "StockEtablissement_verify.csv");
    writeFileSync(file, `${ESTABLISHMENT_HEADER.join(",")}\r\n${rows.join("\r\n")}\r\n`);
    const units = path.join(server.dataDir, "StockUniteLegale_verify.csv");
    writeFileSync(
      units,
      legalUnitsCsv([fournil, mie, epi].map((item) => publicCompany(item.siret.slice(0, 9), `SARL ${item.name}`))),
    );
    const imported = await job(
      "jobs/import.ts",
      "sirene",
      "--etablissements",
      file,
      "--unites-legales",
      units,
      "--json",
    );
    expect(JSON.parse(imported.stdout)).toMatchObject({ created: 3, rejected: [] });
    const listed = JSON.parse((await job("jobs/merchants.ts", "list", "--json")).stdout) as {
      abId: string;
      businessName: string;
    }[];
    for (const { abId, businessName } of listed) ids[businessName] = abId;
    expect(Object.keys(ids).sort()).toEqual(["L EPI DORE", "LA BELLE MIE", "LE FOURNIL"]);
  });

  it("checks the merchants whose identity check ends within the horizon, and shows the answers through the API", async () => {
    const none = await verify("--due", "--within-days", "10", "--json");
    expect([none.code, JSON.parse(none.stdout)]).toEqual([
      0,
      { selected: 0, checked: 0, verified: 0, not_found: 0, closed: 0, not_public: 0, archived: 0, errors: [] },
    ]);
    expect(fake.requests).toHaveLength(0);

    fake.script(fournil.siret, { kind: "status", status: 503 }, { kind: "found", establishment: fournil });
    fake.script(mie.siret, { kind: "closed", establishment: mie, closedOn: "2026-10-31" });
    fake.script(epi.siret, { kind: "too_many", retryAfter: "1" }, { kind: "not_found" });
    const before = new Date().toISOString();
    const due = await verify("--due", "--within-days", "60", "--json");
    const after = new Date().toISOString();
    expect([due.code, JSON.parse(due.stdout), due.stderr]).toEqual([
      0,
      { selected: 3, checked: 3, verified: 1, not_found: 1, closed: 1, not_public: 0, archived: 0, errors: [] },
      "",
    ]);
    // The 503 and the 429 were asked again; every question was the SIRET itself.
    const asked = fake.requests.map((request) => request.url).sort();
    expect(asked).toEqual(
      [fournil, fournil, mie, epi, epi].map((establishment) => `/search?q=${establishment.siret}`).sort(),
    );
    expect(new Set(fake.requests.map((request) => request.userAgent))).toEqual(
      new Set(["Abeille registry verify job (+http://abeille.test)"]),
    );

    // Found and active: verified from the API, for two years from the check.
    const fournilId = ids["LE FOURNIL"] as string;
    const evidence = (await server.getJson(`/api/verify/siret_verified/${fournilId}`)).body.data;
    expect(evidence).toMatchObject({
      signal: "siret_verified",
      ab_id: fournilId,
      status: "verified",
      proof_status: "official_source_verified",
      source: "official_api",
      source_url: searched(fournil.siret),
      value: true,
      contribution: { component: "trust", points: 8, counted: 8 },
    });
    expect(evidence.verified_at >= before && evidence.verified_at <= after).toBe(true);
    expect(evidence.recorded_at).toBe(evidence.verified_at);
    expect(evidence.expires_at).toBe(new Date(Date.parse(evidence.verified_at) + 730 * DAY).toISOString());
    const resolved = await server.getJson(`/api/registry/resolve/${fournilId}`);
    expect(resolved.status).toBe(200);
    expect(resolved.body._state.merchant_status).toBe("PROBATION");

    // Unknown to the register: the check failed, the merchant stays listed.
    const epiId = ids["L EPI DORE"] as string;
    expect((await server.getJson(`/api/verify/siret_verified/${epiId}`)).body.data).toMatchObject({
      status: "failed",
      source: "official_api",
      source_url: searched(epi.siret),
      value: false,
      contribution: { points: 0, counted: 0 },
    });
    expect((await server.getJson(`/api/registry/resolve/${epiId}`)).status).toBe(200);

    // Closed: its closure recorded (resolvable, saying closed, since when, from which source), never
    // a search hit, still in the feed as updated; the audit log says why.
    const mieId = ids["LA BELLE MIE"] as string;
    const closed = await server.getJson(`/api/registry/resolve/${mieId}`);
    expect(closed.status).toBe(200);
    expect(closed.body.merchant.closure).toEqual({
      closed_on: "2026-10-31",
      source: "sirene",
      source_url: searched(mie.siret),
      label: "Établissement fermé (API Recherche d'entreprises)",
      announcement_id: null,
      recorded_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    expect(closed.body._state.blocked_because).toContain("merchant_closed");
    expect((await server.getJson("/api/registry/search?q=Belle%20Mie")).body.results).toEqual([]);
    const { body: feed } = await server.getJson("/api/registry/changes?limit=1000");
    const changesOf = (abId: string) =>
      (feed.changes as { ab_id: string; change: string }[])
        .filter((change) => change.ab_id === abId)
        .map((change) => change.change);
    expect([changesOf(fournilId), changesOf(mieId), changesOf(epiId)]).toEqual([
      ["created", "updated"],
      ["created", "updated"],
      ["created", "updated"],
    ]);
    const shown = JSON.parse((await job("jobs/merchants.ts", "show", mieId, "--json")).stdout) as {
      merchant: { status: string };
      events: { actor: string; action: string; changes: Record<string, unknown>; reason: string }[];
    };
    expect(shown.merchant.status).toBe("PROBATION");
    expect(shown.events.at(-1)).toMatchObject({
      actor: "verify:recherche-entreprises",
      action: "updated",
      changes: { closure: { from: null, to: { closed_on: "2026-10-31", source: "sirene" } } },
      reason: "établissement fermé au répertoire SIRENE depuis le 2026-10-31 (API Recherche d'entreprises)",
    });

    // The next run: only the merchant whose check failed is due again (the closed one is not).
    fake.requests.length = 0;
    const again = await verify("--due", "--within-days", "60", "--json");
    expect(JSON.parse(again.stdout)).toMatchObject({ selected: 1, checked: 1, not_found: 1 });
    expect(fake.requests.map((request) => request.q)).toEqual([epi.siret]);
  }, 60_000);

  it("checks one merchant by ab_id, and says so when the register refuses or the command is wrong", async () => {
    const fournilId = ids["LE FOURNIL"] as string;
    fake.script(fournil.siret, { kind: "found", establishment: fournil });
    const one = await verify(fournilId);
    expect([one.code, one.stdout]).toEqual([
      0,
      `1 of 1 checked: 1 verified, 0 not found, 0 closed, 0 not public; 0 archived; 0 not checked\n${fournilId}: verified, ${searched(fournil.siret)}\n`,
    ]);

    fake.script(fournil.siret, {
      kind: "bad_request",
      message: "Veuillez indiquer au moins un paramètre de recherche.",
    });
    const refused = await verify(fournilId, "--json");
    expect(refused.code).toBe(1);
    const error = `refused: ${searched(fournil.siret)}: answered 400: Veuillez indiquer au moins un paramètre de recherche.`;
    expect(JSON.parse(refused.stdout)).toEqual({
      selected: 1,
      checked: 0,
      verified: 0,
      not_found: 0,
      closed: 0,
      not_public: 0,
      archived: 0,
      errors: [{ ab_id: fournilId, error }],
      results: [],
    });
    expect(refused.stderr).toBe(`verify: ${fournilId}: ${error}\n`);
    // Nothing was written: the last check stands.
    expect((await server.getJson(`/api/verify/siret_verified/${fournilId}`)).body.data.status).toBe("verified");

    // An archived merchant (the operator archived the closed one) is not checked.
    expect(
      await job(
        "jobs/merchants.ts",
        "status",
        ids["LA BELLE MIE"] as string,
        "ARCHIVED",
        "--reason",
        "fermé",
        "--actor",
        "operator:lea",
      ),
    ).toMatchObject({ code: 0 });
    const archived = await verify(ids["LA BELLE MIE"] as string);
    expect([archived.code, archived.stderr]).toEqual([
      1,
      `verify: ${ids["LA BELLE MIE"]}: CONFLICT: Merchant ${ids["LA BELLE MIE"]} is ARCHIVED, which is final: its identity is not checked\n`,
    ]);
    expect((await verify("ab_zzzzzzzz")).stderr).toBe(
      "verify: ab_zzzzzzzz: MERCHANT_NOT_FOUND: No merchant has ab_id ab_zzzzzzzz\n",
    );
    for (const args of [
      [],
      [fournilId, "--due"],
      ["--due", "--within-days", "soon"],
      [fournilId, "--within-days", "5"],
    ]) {
      expect((await verify(...args)).code, args.join(" ")).toBe(2);
    }
  }, 60_000);
});
