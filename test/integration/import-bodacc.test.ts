/**
 * `npm run import -- bodacc FILE`, run as its own process on the DATA_DIR the built server serves,
 * on merchants that came in through the SIRENE import: BODACC files in the layouts of DILA's
 * Opendatasoft API (/exports/jsonl, /exports/json), records in their published shape.
 */
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeSiren, makeSiret } from "../../src/domain/siret.ts";
import { ESTABLISHMENT_COLUMNS } from "../../src/import/sirene/establishments.ts";
import { openDatabase } from "../../src/store/db.ts";
import { createMerchantRegistryView } from "../../src/store/merchant-registry-repository.ts";
import { legalUnitsCsv, publicCompany } from "../helpers/sirene-stock.ts";
import { type JsonObject, startTestServer, type TestServer } from "../helpers/test-server.ts";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ count: 30 });
}, 120_000);

afterAll(async () => {
  await server?.close();
});

async function job(args: string[]): Promise<{ code: number; report: JsonObject }> {
  try {
    const { stdout } = await run(process.execPath, [...args, "--json"], {
      cwd: root,
      env: { ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: "warn" },
    });
    return { code: 0, report: JSON.parse(stdout) };
  } catch (failure) {
    const { code, stdout } = failure as { code: number; stdout: string };
    return { code, report: JSON.parse(stdout) };
  }
}

const file = (name: string, content: string) => {
  const target = path.join(server.dataDir, name);
  writeFileSync(target, content);
  return target;
};

// Three bakeries of three companies, from a SIRENE stock file (the columns the import reads).
const clean = makeSiren("31122233");
const insolvent = makeSiren("31133344");
const closing = makeSiren("31144455");
const stranger = makeSiren("31155566");
const spaced = (siren: string) => `${siren.slice(0, 3)} ${siren.slice(3, 6)} ${siren.slice(6)}`;

function sireneRow(siren: string, sign: string): string {
  const values: Record<string, string> = {
    siren,
    nic: "00012",
    siret: makeSiret(siren, "0001"),
    statutDiffusionEtablissement: "O",
    dateCreationEtablissement: "2012-04-02",
    dateDernierTraitementEtablissement: "2026-09-01T07:00:00",
    numeroVoieEtablissement: "3",
    typeVoieEtablissement: "RUE",
    libelleVoieEtablissement: "DU FOUR",
    codePostalEtablissement: "69100",
    libelleCommuneEtablissement: "VILLEURBANNE",
    codeCommuneEtablissement: "69266",
    etatAdministratifEtablissement: "A",
    enseigne1Etablissement: sign,
    activitePrincipaleEtablissement: "10.71C",
  };
  return ESTABLISHMENT_COLUMNS.map((name) => values[name] ?? "").join(",");
}

const LYON = "Greffe du Tribunal de Commerce de Lyon";
const url = (id: string) => `https://www.bodacc.fr/pages/annonces-commerciales-detail/?q.id=id:${id}`;
const company = (siren: string, name: string) =>
  JSON.stringify({
    personne: {
      typePersonne: "pm",
      denomination: name,
      formeJuridique: "Société à responsabilité limitée",
      numeroImmatriculation: { codeRCS: "RCS", numeroIdentification: spaced(siren), nomGreffeImmat: "Lyon" },
    },
  });

/** An announcement as the API publishes it: every field, the details as JSON inside strings. */
function announcement(fields: {
  id: string;
  date: string;
  family: string;
  familyLabel: string;
  siren: string | null;
  name: string;
  type?: string;
  jugement?: object;
  radiationaurcs?: object;
  depot?: object;
  parutionavisprecedent?: object;
}): object {
  const letter = fields.id[0] as string;
  return {
    id: fields.id,
    publicationavis: letter,
    publicationavis_facette: `Bodacc ${letter}`,
    parution: fields.id.slice(1, 9),
    dateparution: fields.date,
    numeroannonce: Number(fields.id.slice(9)),
    typeavis: fields.type ?? "annonce",
    typeavis_lib: { annonce: "Avis initial", annulation: "Avis d'annulation" }[fields.type ?? "annonce"],
    familleavis: fields.family,
    familleavis_lib: fields.familyLabel,
    numerodepartement: "69",
    departement_nom_officiel: "Rhône",
    region_code: 84,
    region_nom_officiel: "Auvergne-Rhône-Alpes",
    tribunal: LYON,
    commercant: fields.name,
    ville: "Villeurbanne",
    registre: fields.siren ? [spaced(fields.siren), fields.siren] : [],
    cp: "69100",
    listepersonnes: fields.siren ? company(fields.siren, fields.name) : null,
    listeetablissements: null,
    jugement: fields.jugement ? JSON.stringify(fields.jugement) : null,
    acte: null,
    modificationsgenerales: null,
    radiationaurcs: fields.radiationaurcs ? JSON.stringify(fields.radiationaurcs) : null,
    depot: fields.depot ? JSON.stringify(fields.depot) : null,
    listeprecedentexploitant: null,
    listeprecedentproprietaire: null,
    divers: null,
    parutionavisprecedent: fields.parutionavisprecedent ? JSON.stringify(fields.parutionavisprecedent) : null,
    url_complete: url(fields.id),
  };
}

const RECORDS = [
  // The clean company: its accounts filed, and a proceeding published then cancelled.
  announcement({
    id: "C202601771001",
    date: "2026-09-15",
    family: "dpc",
    familyLabel: "Dépôts des comptes",
    siren: clean,
    name: "AU PAIN DORE",
    depot: { dateCloture: "2025-12-31", typeDepot: "Comptes annuels et rapports" },
  }),
  announcement({
    id: "A202601900412",
    date: "2026-10-05",
    family: "collective",
    familyLabel: "Procédures collectives",
    siren: clean,
    name: "AU PAIN DORE",
    jugement: {
      type: "initial",
      famille: "Jugement d'ouverture",
      nature: "Jugement d'ouverture d'une procédure de redressement judiciaire",
      date: "2026-09-29",
    },
  }),
  announcement({
    id: "A202601950077",
    date: "2026-10-12",
    family: "collective",
    familyLabel: "Procédures collectives",
    type: "annulation",
    siren: clean,
    name: "AU PAIN DORE",
    parutionavisprecedent: {
      nomPublication: "BODACC A",
      numeroParution: "20260190",
      dateParution: "2026-10-05",
      numeroAnnonce: "412",
    },
  }),
  // The insolvent one: a liquidation.
  announcement({
    id: "A202602051234",
    date: "2026-10-20",
    family: "collective",
    familyLabel: "Procédures collectives",
    siren: insolvent,
    name: "LA FOURNEE",
    jugement: {
      type: "initial",
      famille: "Jugement d'ouverture",
      nature: "Jugement d'ouverture de liquidation judiciaire",
      date: "14 octobre 2026",
      complementJugement: "Jugement prononçant la liquidation judiciaire.",
    },
  }),
  // The closing one: deregistered.
  announcement({
    id: "B202602090815",
    date: "2026-10-28",
    family: "radiation",
    familyLabel: "Radiations",
    siren: closing,
    name: "LE FOURNIL",
    radiationaurcs: { radiationPM: "O" },
  }),
  // A company the registry does not know, and an announcement naming no company.
  announcement({
    id: "A202602050001",
    date: "2026-10-20",
    family: "collective",
    familyLabel: "Procédures collectives",
    siren: stranger,
    name: "AUTRE",
    jugement: { nature: "Jugement d'ouverture de liquidation judiciaire", date: "2026-10-14" },
  }),
  announcement({
    id: "B202602090002",
    date: "2026-10-28",
    family: "radiation",
    familyLabel: "Radiations",
    siren: null,
    name: "ASSOCIATION",
  }),
];

describe("npm run import -- bodacc", () => {
  it("records bodacc_clean from the announcements, records a deregistered merchant closed, and changes nothing the second time", async () => {
    const sirene = file(
      "StockEtablissement_bodacc.csv",
      `${ESTABLISHMENT_COLUMNS.join(",")}\n${[sireneRow(clean, "AU PAIN DORE"), sireneRow(insolvent, "LA FOURNEE"), sireneRow(closing, "LE FOURNIL")].join("\n")}\n`,
    );
    const units = file(
      "StockUniteLegale_bodacc.csv",
      legalUnitsCsv([
        publicCompany(clean, "SARL AU PAIN DORE"),
        publicCompany(insolvent, "SAS LA FOURNEE"),
        publicCompany(closing, "SARL LE FOURNIL"),
      ]),
    );
    expect(
      (await job(["jobs/import.ts", "sirene", "--etablissements", sirene, "--unites-legales", units])).report,
    ).toMatchObject({ created: 3 });
    const db = openDatabase(path.join(server.dataDir, "abeille.db"));
    const registry = createMerchantRegistryView(db);
    const [cleanId, insolventId, closingId] = [clean, insolvent, closing].map(
      (siren) => registry.abIdOfSiret(makeSiret(siren, "0001")) as string,
    ) as [string, string, string];
    db.$client.close();

    const lines = RECORDS.map((record) => JSON.stringify(record));
    lines.splice(5, 0, '{"id": "A202602060001", "dateparution": ');
    const jsonl = file("annonces-commerciales.jsonl", `${lines.join("\n")}\n`);
    const first = await job(["jobs/import.ts", "bodacc", jsonl]);
    expect(first).toEqual({
      code: 1,
      report: {
        read: 8,
        matched: 3,
        updated: 2,
        closed: 1,
        unchanged: 0,
        period: { from: "2026-09-15", to: "2026-10-28" },
        source_url: "https://bodacc-datadila.opendatasoft.com/explore/dataset/annonces-commerciales/",
        skipped: { not_in_registry: 1, no_siren: 1, cancelled: 2 },
        rejected: [{ record: 6, line: 6, error: "not valid JSON (Unexpected end of JSON input)" }],
        rejected_count: 1,
      },
    });

    // A clean history: verified from the file's last publication, for two years.
    const cleanEvidence = await server.getJson(`/api/verify/bodacc_clean/${cleanId}`);
    expect(cleanEvidence.body.data).toMatchObject({
      status: "verified",
      source: "official_file",
      proof_status: "official_source_verified",
      source_url: "https://bodacc-datadila.opendatasoft.com/explore/dataset/annonces-commerciales/",
      verified_at: "2026-10-28T00:00:00.000Z",
      recorded_at: "2026-10-28T00:00:00.000Z",
      expires_at: "2028-10-27T00:00:00.000Z",
      value: true,
      notice: null,
      contribution: { component: "trust", points: 4, counted: 4 },
    });

    // A liquidation: failed, the announcement as the evidence.
    const notice = {
      id: "A202602051234",
      published_on: "2026-10-20",
      kind: "collective",
      label: "Jugement d'ouverture de liquidation judiciaire",
      decided_on: "2026-10-14",
      court: LYON,
      url: url("A202602051234"),
    };
    const failed = await server.getJson(`/api/verify/bodacc_clean/${insolventId}`);
    expect(failed.body.data).toMatchObject({
      status: "failed",
      source: "official_file",
      source_url: url("A202602051234"),
      verified_at: "2026-10-28T00:00:00.000Z",
      expires_at: null,
      value: false,
      notice,
      contribution: { points: 0, counted: 0 },
      explanation: `The last check, on 2026-10-28, failed (notice A202602051234 published on 2026-10-20: Jugement d'ouverture de liquidation judiciaire, ${LYON}), so the signal adds no points to the trust component.`,
    });
    const resolved = await server.getJson(`/api/registry/resolve/${insolventId}`);
    expect(resolved.body.credentials.find((credential: JsonObject) => credential.key === "bodacc_clean")).toMatchObject(
      {
        status: "failed",
        source: "official_file",
        source_url: url("A202602051234"),
        verified_at: "2026-10-28T00:00:00.000Z",
        points: 0,
      },
    );

    // A deregistration: closed, since the publication, from the BODACC; resolvable, saying so; never a search hit.
    const closure = {
      closed_on: "2026-10-28",
      source: "bodacc",
      source_url: url("B202602090815"),
      label: "Radiations",
      announcement_id: "B202602090815",
      recorded_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    };
    const closed = await server.getJson(`/api/registry/resolve/${closingId}`);
    expect(closed.status).toBe(200);
    expect(closed.body.merchant.closure).toEqual(closure);
    expect(closed.body._state).toMatchObject({
      can_contact: false,
      can_receive_leads: false,
      blocked_because: expect.arrayContaining(["merchant_closed"]),
    });
    expect((await server.getJson("/api/registry/search?q=Fournil")).body.results).toEqual([]);
    expect(
      (await server.getJson("/api/registry/search?q=boulangerie Villeurbanne&limit=50")).body.results.map(
        (hit: JsonObject) => (hit.merchant as JsonObject).ab_id,
      ),
    ).not.toContain(closingId);
    const card = await server.getJson(`/api/merchants/${closingId}/decision-card`);
    expect(card.body.data.decision_card.trust.closure).toEqual(closure);
    const statement =
      "Établissement fermé depuis le 28 octobre 2026, selon le BODACC : Radiations, annonce B202602090815.";
    expect(await (await server.get(`/m/${closingId}/ai.md`)).text()).toContain(
      `> **${statement}** Source : ${url("B202602090815")}`,
    );
    const page = await (await server.get(`/m/${closingId}/`)).text();
    expect(page).toContain(statement);
    expect(page).not.toContain("Vous pouvez l'appeler");
    expect(JSON.parse(await (await server.get(`/api/merchants/${closingId}/jsonld`)).text())).toMatchObject({
      dissolutionDate: "2026-10-28",
    });
    const feed = async () => (await server.getJson("/api/registry/changes?limit=1000")).body.changes as JsonObject[];
    const changesOf = (changes: JsonObject[], abId: string) =>
      changes.filter((change) => change.ab_id === abId).map((change) => change.change);
    const before = await feed();
    expect(changesOf(before, closingId)).toEqual(["created", "updated"]);
    expect(changesOf(before, insolventId)).toEqual(["created", "updated"]);
    const { stdout } = await run(process.execPath, ["jobs/merchants.ts", "show", closingId, "--json"], {
      cwd: root,
      env: { ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: "warn" },
    });
    const shown = JSON.parse(stdout) as { merchant: { status: string }; events: JsonObject[] };
    expect(shown.merchant.status).toBe("PROBATION");
    expect(shown.events.at(-1)).toMatchObject({
      actor: "import:bodacc",
      action: "updated",
      changes: {
        closure: { from: null, to: { closed_on: "2026-10-28", source: "bodacc", announcement: "B202602090815" } },
        bodacc_clean: { from: null, to: { status: "failed", checked_on: "2026-10-28", notice: "B202602090815" } },
      },
      reason: `BODACC : Radiations, annonce B202602090815 publiée le 2026-10-28 (${LYON})`,
    });

    // The same file again, then the same announcements as an /exports/json array: nothing changes.
    const again = await job(["jobs/import.ts", "bodacc", jsonl]);
    expect(again.report).toMatchObject({ read: 8, matched: 3, updated: 0, closed: 0, unchanged: 3 });
    const array = file(
      "annonces-commerciales.json",
      `[${RECORDS.map((record) => JSON.stringify(record, null, 1)).join(",\n")}]`,
    );
    const asArray = await job(["jobs/import.ts", "bodacc", array]);
    expect(asArray).toEqual({
      code: 0,
      report: expect.objectContaining({ read: 7, matched: 3, updated: 0, closed: 0, unchanged: 3, rejected: [] }),
    });
    // Gzipped, as a download may be: read the same.
    const gzipped = path.join(server.dataDir, "annonces-commerciales.jsonl.gz");
    writeFileSync(gzipped, gzipSync(readFileSync(jsonl)));
    expect((await job(["jobs/import.ts", "bodacc", gzipped])).report).toMatchObject({
      read: 8,
      matched: 3,
      unchanged: 3,
      rejected: [{ record: 6, line: 6 }],
    });
    expect(await feed()).toEqual(before);

    // A later file that only shows filed accounts does not clear a failure published before its
    // period; an older clean file does not replace a later check.
    const november = file(
      "annonces-2026-11.jsonl",
      `${JSON.stringify(
        announcement({
          id: "C202602200100",
          date: "2026-11-10",
          family: "dpc",
          familyLabel: "Dépôts des comptes",
          siren: insolvent,
          name: "LA FOURNEE",
          depot: { dateCloture: "2026-06-30", typeDepot: "Comptes annuels et rapports" },
        }),
      )}\n`,
    );
    expect((await job(["jobs/import.ts", "bodacc", november])).report).toMatchObject({
      matched: 1,
      updated: 0,
      unchanged: 1,
    });
    const september = file("annonces-2026-09.jsonl", `${JSON.stringify(RECORDS[0])}\n`);
    expect((await job(["jobs/import.ts", "bodacc", september])).report).toMatchObject({
      period: { from: "2026-09-15", to: "2026-09-15" },
      matched: 1,
      unchanged: 1,
    });
    expect((await server.getJson(`/api/verify/bodacc_clean/${insolventId}`)).body.data.notice).toEqual(notice);
    expect((await server.getJson(`/api/verify/bodacc_clean/${cleanId}`)).body.data.verified_at).toBe(
      "2026-10-28T00:00:00.000Z",
    );
  }, 120_000);

  it("refuses a file it cannot read, and a wrong command line", async () => {
    const cut = file("cut.json", '[{"id": "A202602051234", "dateparution": "2026-10-20"},\n{"id": "A2026');
    await expect(
      run(process.execPath, ["jobs/import.ts", "bodacc", cut], {
        cwd: root,
        env: { ...process.env, DATA_DIR: server.dataDir },
      }),
    ).rejects.toMatchObject({
      code: 3,
      stderr: `import: ${cut}, line 2: the file ends inside record 2, begun on line 2\n`,
    });
    await expect(
      run(process.execPath, ["jobs/import.ts", "bodacc"], {
        cwd: root,
        env: { ...process.env, DATA_DIR: server.dataDir },
      }),
    ).rejects.toMatchObject({
      code: 2,
    });
  }, 60_000);
});
