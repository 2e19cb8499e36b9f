/**
 * The whole way in for a real merchant, as an operator runs it on the DATA_DIR the built server
 * serves: a row of INSEE's SIRENE stock becomes a PROBATION merchant with its identity verified
 * from the file, the operator completes and reviews its declaration, activates, edits, pauses and
 * archives it. Each step shows in search, resolve, the decision card, the audit log and the change
 * feed, and after the next refresh in the published files.
 */
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeSiren, makeSiret } from "../../src/domain/siret.ts";
import { publishedPath } from "../../src/publish/documents.ts";
import { readPublished } from "../helpers/published-packs.ts";
import { ESTABLISHMENT_HEADER, legalUnitsCsv, publicCompany, stockRow } from "../helpers/sirene-stock.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ count: 20 });
}, 120_000);

afterAll(async () => {
  await server?.close();
});

async function job(script: string, ...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [script, ...args], {
    cwd: root,
    env: { ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: "warn", REFRESH_CRON: "off" },
  });
  return stdout;
}

const operator = (...args: string[]) => job("jobs/merchants.ts", ...args, "--actor", "operator:lea");

async function searchIds(q: string): Promise<string[]> {
  const { body } = await server.getJson(`/api/registry/search?q=${encodeURIComponent(q)}`);
  return (body.results as { merchant: { ab_id: string } }[]).map((result) => result.merchant.ab_id);
}

async function statusEverywhere(abId: string) {
  const resolved = await server.getJson(`/api/registry/resolve/${abId}`);
  const card = await server.getJson(`/api/merchants/${abId}/decision-card`);
  return {
    resolve: resolved.status === 200 ? resolved.body._state.merchant_status : resolved.status,
    card: card.status === 200 ? card.body._state.merchant_status : card.status,
  };
}

/** The decision card as the refresh published it, or null when the merchant has no published files. */
async function publishedCard(abId: string): Promise<{ status: string; description: string | null } | null> {
  await job("jobs/refresh.ts", "--quiet");
  const bytes = readPublished(path.join(server.dataDir, "publish"), publishedPath("decision-card", abId));
  if (!bytes) return null;
  const body = JSON.parse(bytes.toString("utf8"));
  return {
    status: body._state.merchant_status,
    description: body.data.decision_card.merchant_signals.description ?? null,
  };
}

async function feedOf(abId: string): Promise<[number, string][]> {
  const { body } = await server.getJson("/api/registry/changes?limit=1000");
  return (body.changes as { ab_id: string; revision: number; change: string }[])
    .filter((change) => change.ab_id === abId)
    .map((change) => [change.revision, change.change]);
}

describe("a real merchant, from its SIRENE row to its archive", () => {
  it("is imported, completed, reviewed, activated, edited, paused and archived, each step visible, audited and published", async () => {
    const siren = makeSiren("77788899");
    const siret = makeSiret(siren, "0001");
    const stock = path.join(server.dataDir, "StockEtablissement_utf8.csv");
    writeFileSync(
      stock,
      `${ESTABLISHMENT_HEADER.join(",")}\n${stockRow({
        siren,
        nic: "00018",
        siret,
        statutDiffusionEtablissement: "O",
        dateCreationEtablissement: "2012-05-03",
        dateDernierTraitementEtablissement: "2026-10-15T07:30:00",
        numeroVoieEtablissement: "8",
        typeVoieEtablissement: "RUE",
        libelleVoieEtablissement: "DES TANNEURS",
        codePostalEtablissement: "69002",
        libelleCommuneEtablissement: "LYON 2E ARRONDISSEMENT",
        codeCommuneEtablissement: "69382",
        etatAdministratifEtablissement: "A",
        enseigne1Etablissement: "PLOMBERIE DES TANNEURS",
        activitePrincipaleEtablissement: "43.22A",
      })}\n`,
    );

    // 1. The SIRENE row: a PROBATION merchant, identity verified from the file.
    const units = path.join(server.dataDir, "StockUniteLegale_utf8.csv");
    writeFileSync(units, legalUnitsCsv([publicCompany(siren, "SARL PLOMBERIE DES TANNEURS", "2012-05-03")]));
    const imported = JSON.parse(
      await job("jobs/import.ts", "sirene", "--etablissements", stock, "--unites-legales", units, "--json"),
    );
    expect(imported).toMatchObject({ read: 1, created: 1, rejected: [] });
    const [abId] = await searchIds("Plomberie des Tanneurs");
    if (!abId) throw new Error("the imported merchant is not found by its name");
    expect(await statusEverywhere(abId)).toEqual({ resolve: "PROBATION", card: "PROBATION" });
    expect(await feedOf(abId)).toEqual([[1, "created"]]);
    expect(await publishedCard(abId)).toEqual({ status: "PROBATION", description: null });

    // 2. The operator completes the declaration, reviews the description and activates it.
    const declaration = path.join(server.dataDir, "tanneurs.json");
    writeFileSync(
      declaration,
      JSON.stringify({
        phone: "+33 4 78 00 12 34",
        description: "Plombier chauffagiste : dépannage, rénovation de salles de bains.",
        products: [
          {
            name: "Dépannage fuite",
            description: "Intervention sous 24 h dans Lyon",
            brick_type: "service",
            pricing_model: "on_quote",
            tags: ["depannage"],
          },
        ],
      }),
    );
    expect(JSON.parse(await operator("update", abId, declaration, "--json"))).toEqual({
      abId,
      // A description arrives unreviewed: the flag is part of the change.
      changed: ["phone", "description", "descriptionLlmUnreviewed", "products"],
      revision: 2,
    });
    expect(await operator("review", abId)).toBe(`${abId} description reviewed (revision 3)\n`);
    expect(await operator("status", abId, "ACTIVE")).toBe(`${abId} PROBATION -> ACTIVE (revision 4)\n`);
    expect(await statusEverywhere(abId)).toEqual({ resolve: "ACTIVE", card: "ACTIVE" });
    expect(await publishedCard(abId)).toEqual({
      status: "ACTIVE",
      description: "Plombier chauffagiste : dépannage, rénovation de salles de bains.",
    });

    // 3. An edit, then a pause: still listed, both published.
    writeFileSync(declaration, JSON.stringify({ description: "Plombier chauffagiste depuis 2012, Lyon 2e." }));
    expect(JSON.parse(await operator("update", abId, declaration, "--json")).revision).toBe(5);
    expect(await operator("review", abId)).toBe(`${abId} description reviewed (revision 6)\n`);
    expect(await operator("status", abId, "PAUSED")).toBe(`${abId} ACTIVE -> PAUSED (revision 7)\n`);
    expect(await statusEverywhere(abId)).toEqual({ resolve: "PAUSED", card: "PAUSED" });
    expect(await searchIds("Plomberie des Tanneurs")).toEqual([abId]);
    expect(await publishedCard(abId)).toEqual({
      status: "PAUSED",
      description: "Plombier chauffagiste depuis 2012, Lyon 2e.",
    });

    // 4. Archived: gone from search, resolve and the card; withdrawn from the feed and the folder.
    expect(await operator("status", abId, "ARCHIVED", "--reason", "cessation d'activité")).toBe(
      `${abId} PAUSED -> ARCHIVED (revision 8)\n`,
    );
    expect(await statusEverywhere(abId)).toEqual({ resolve: 404, card: 404 });
    expect(await searchIds("Plomberie des Tanneurs")).toEqual([]);
    expect(await publishedCard(abId)).toBeNull();
    expect(await feedOf(abId)).toEqual([
      [1, "created"],
      [2, "updated"],
      [3, "updated"],
      [4, "updated"],
      [5, "updated"],
      [6, "updated"],
      [7, "updated"],
      [8, "withdrawn"],
    ]);

    // The audit log tells the whole story, who and why.
    const shown = JSON.parse(await operator("show", abId, "--json")) as {
      events: { revision: number; actor: string; action: string; reason: string | null }[];
    };
    expect(shown.events.map((event) => [event.revision, event.actor, event.action, event.reason])).toEqual([
      [1, "import:sirene", "created", "établissement actif et diffusible au répertoire SIRENE"],
      [2, "operator:lea", "updated", null],
      [3, "operator:lea", "description_reviewed", null],
      [4, "operator:lea", "status_changed", null],
      [5, "operator:lea", "updated", null],
      [6, "operator:lea", "description_reviewed", null],
      [7, "operator:lea", "status_changed", null],
      [8, "operator:lea", "status_changed", "cessation d'activité"],
    ]);
  }, 180_000);
});
