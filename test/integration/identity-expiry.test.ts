/**
 * An identity check that expires changes every surface at that instant, with no write: a merchant
 * imported from SIRENE is read everywhere (resolve, decision card, search, JSON-LD, ai.md, the AI
 * digest, the microsite, its evidence page, its signed manifest) before its check expires and
 * again after, on the built server; the lifecycle lets it become ACTIVE before, and refuses after.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeSiren, makeSiret } from "../../src/domain/siret.ts";
import { openDatabase } from "../../src/store/db.ts";
import { runJob } from "../helpers/run-job.ts";
import { ESTABLISHMENT_HEADER, legalUnitsCsv, publicCompany, stockRow } from "../helpers/sirene-stock.ts";
import { startTestServer, TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ count: 20 });
}, 120_000);

afterAll(async () => {
  await server?.close();
});

const job = (script: string, ...args: string[]) =>
  runJob([script, ...args], { dataDir: server.dataDir, baseUrl: TEST_BASE_URL });

/** What each surface says of the merchant's identity, read through HTTP. */
async function surfaces(abId: string) {
  const resolved = await server.getJson(`/api/registry/resolve/${abId}`);
  const card = await server.getJson(`/api/merchants/${abId}/decision-card`);
  const search = await server.getJson("/api/registry/search?q=PLOMBERIE%20DU%20PORT");
  const jsonld = await (await server.get(`/api/merchants/${abId}/jsonld`)).text();
  const aiMd = await (await server.get(`/m/${abId}/ai.md`)).text();
  const digest = await server.getJson(`/api/merchants/${abId}/ai-digest`);
  const microsite = await (await server.get(`/m/${abId}/`)).text();
  const evidence = await server.getJson(`/api/verify/siret_verified/${abId}`);
  const manifest = await server.getJson(`/api/registry/verify/${abId}`);
  const jws = manifest.body.data.jws as string;
  const signed = JSON.parse(Buffer.from(jws.split(".")[1] as string, "base64url").toString("utf8"));
  const found = (search.body.results as { merchant: { ab_id: string; trust_level: string } }[]).find(
    (result) => result.merchant.ab_id === abId,
  );
  const evidenceUrl = `/api/verify/siret_verified/${abId}`;
  return {
    resolve: [
      resolved.body.merchant.trust.status,
      (resolved.body.credentials as { key: string; status: string }[]).find((item) => item.key === "siret_verified")
        ?.status,
    ],
    card: [
      card.body.data.decision_card.identity.legal_identifiers.siret.verified,
      card.body.data.decision_card.trust.trust_level,
    ],
    search: found?.merchant.trust_level,
    jsonld: jsonld.includes(evidenceUrl),
    aiMd: /- SIRET : \d{14} \(([^:)]+)/
      .exec(aiMd)?.[1]
      ?.replace(/\d+(er)? \p{L}+ \d{4}/u, "<date>")
      .trim(),
    digest: digest.body.data.trust.level,
    microsite: /Identité (vérifiée|à revérifier|non vérifiée)/.exec(microsite)?.[0],
    evidence: evidence.body.data.status,
    manifest: [signed.identity.legal_identifiers.siret.verified, signed.trust.trust_level],
  };
}

describe("an identity check that expires", () => {
  it("changes every surface at that instant, and the lifecycle refuses ACTIVE after it", async () => {
    const siren = makeSiren("66677788");
    const siret = makeSiret(siren, "0001");
    const stock = path.join(server.dataDir, "StockEtablissement_expiry.csv");
    writeFileSync(
      stock,
      `${ESTABLISHMENT_HEADER.join(",")}\n${stockRow({
        siren,
        nic: "00016",
        siret,
        statutDiffusionEtablissement: "O",
        dateCreationEtablissement: "2014-06-02",
        dateDernierTraitementEtablissement: "2026-09-30T05:12:44",
        numeroVoieEtablissement: "3",
        typeVoieEtablissement: "QUAI",
        libelleVoieEtablissement: "DU PORT",
        codePostalEtablissement: "13002",
        libelleCommuneEtablissement: "MARSEILLE",
        codeCommuneEtablissement: "13202",
        etatAdministratifEtablissement: "A",
        enseigne1Etablissement: "PLOMBERIE DU PORT",
        activitePrincipaleEtablissement: "43.22A",
        nomenclatureActivitePrincipaleEtablissement: "NAFRev2",
      })}\n`,
    );
    const units = path.join(server.dataDir, "StockUniteLegale_expiry.csv");
    writeFileSync(units, legalUnitsCsv([publicCompany(siren, "SARL PLOMBERIE DU PORT", "2014-06-02")]));
    const imported = await job(
      "jobs/import.ts",
      "sirene",
      "--etablissements",
      stock,
      "--unites-legales",
      units,
      "--json",
    );
    expect(JSON.parse(imported.stdout)).toMatchObject({ created: 1, rejected: [] });
    const listed = JSON.parse((await job("jobs/merchants.ts", "list", "--json")).stdout) as {
      abId: string;
      businessName: string;
    }[];
    const abId = listed.find((item) => item.businessName === "PLOMBERIE DU PORT")?.abId as string;
    expect(await job("jobs/merchants.ts", "status", abId, "ACTIVE", "--actor", "operator:lea")).toMatchObject({
      code: 0,
      signal: null,
    });
    expect(await job("jobs/merchants.ts", "status", abId, "PAUSED", "--actor", "operator:lea")).toMatchObject({
      code: 0,
      signal: null,
    });

    // The check ends in 20 seconds (as if INSEE had processed the row two years ago), then the
    // refresh publishes the merchant's files, valid until that instant.
    const expiry = new Date(Date.now() + 20_000).toISOString();
    const db = openDatabase(path.join(server.dataDir, "abeille.db"));
    db.$client
      .prepare("UPDATE signals SET expires_at = ? WHERE ab_id = ? AND key IN ('siret_verified', 'company_age_years')")
      .run(expiry, abId);
    db.$client.close();
    expect(await job("jobs/refresh.ts", "--quiet")).toMatchObject({ code: 0, signal: null });

    const before = await surfaces(abId);
    expect(Date.now()).toBeLessThan(Date.parse(expiry));
    expect(before).toEqual({
      resolve: ["certified", "verified"],
      card: [true, "certified"],
      search: "certified",
      jsonld: true,
      aiMd: "vérifié au répertoire SIRENE le <date>",
      digest: "certified",
      microsite: "Identité vérifiée",
      evidence: "verified",
      manifest: [true, "certified"],
    });

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(expiry) - Date.now()) + 250));
    expect(await surfaces(abId)).toEqual({
      resolve: ["declared", "expired"],
      card: [false, "declared"],
      search: "declared",
      jsonld: false,
      aiMd: "vérification au répertoire SIRENE expirée le <date>, à renouveler",
      digest: "declared",
      microsite: "Identité à revérifier",
      evidence: "expired",
      manifest: [false, "declared"],
    });

    const refused = await job("jobs/merchants.ts", "status", abId, "ACTIVE", "--actor", "operator:lea");
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("PAUSED -> ACTIVE: the identity is not verified (siret_verified)");
  }, 90_000);
});
