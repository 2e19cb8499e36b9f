/**
 * The BODACC reader (src/import/bodacc): records in the shape DILA's Opendatasoft API publishes
 * them (Explore API v2.1, dataset annonces-commerciales: flat fields, `registre` a list of SIRENs
 * in two spellings, the details as JSON inside strings), in its three layouts (JSON Lines, a JSON
 * array, a records page) whatever the chunk boundaries; and which announcements count against a
 * company (src/domain/merchants/apply-bodacc-announcements.ts).
 */
import { describe, expect, it } from "vitest";
import { adverseAnnouncements, withdrawnBy } from "../../src/domain/merchants/apply-bodacc-announcements.ts";
import type { OfficialAnnouncement } from "../../src/domain/merchants/official-announcement.ts";
import { makeSiren } from "../../src/domain/siret.ts";
import { announcementOf, bodaccDate, sirensIn } from "../../src/import/bodacc/announcements.ts";
import { BodaccFileError, bodaccRecords, RECORD_LIMIT, type RecordItem } from "../../src/import/bodacc/records.ts";

const SIREN = makeSiren("55566677");
const spaced = `${SIREN.slice(0, 3)} ${SIREN.slice(3, 6)} ${SIREN.slice(6)}`;
const BUYER = makeSiren("44433322");

/** A collective proceeding, every field of the published record (v2.1), null ones included. */
const COLLECTIVE = {
  id: "A202600521234",
  publicationavis: "A",
  publicationavis_facette: "Bodacc A",
  parution: "20260052",
  dateparution: "2026-03-18",
  numeroannonce: 1234,
  typeavis: "annonce",
  typeavis_lib: "Avis initial",
  familleavis: "collective",
  familleavis_lib: "Procédures collectives",
  numerodepartement: "69",
  departement_nom_officiel: "Rhône",
  region_code: 84,
  region_nom_officiel: "Auvergne-Rhône-Alpes",
  tribunal: "Greffe du Tribunal de Commerce de Lyon",
  commercant: "AU PAIN DORE",
  ville: "Villeurbanne",
  registre: [spaced, SIREN],
  cp: "69100",
  pdf_parution_subfolder: 1,
  ispdf_unitaire: "oui",
  listepersonnes: JSON.stringify({
    personne: {
      typePersonne: "pm",
      denomination: "AU PAIN DORE",
      formeJuridique: "Société à responsabilité limitée",
      numeroImmatriculation: { codeRCS: "RCS", numeroIdentification: spaced, nomGreffeImmat: "Lyon" },
      adresseSiegeSocial: {
        numeroVoie: "14",
        typeVoie: "avenue",
        nomVoie: "Roger Salengro",
        codePostal: "69100",
        ville: "Villeurbanne",
        pays: "france",
      },
    },
  }),
  listeetablissements: null,
  jugement: JSON.stringify({
    type: "initial",
    famille: "Jugement d'ouverture",
    nature: "Jugement d'ouverture de liquidation judiciaire",
    date: "10 mars 2026",
    complementJugement:
      "Jugement prononçant la liquidation judiciaire, date de cessation des paiements le 1 mars 2026.",
  }),
  acte: null,
  modificationsgenerales: null,
  radiationaurcs: null,
  depot: null,
  listeprecedentexploitant: null,
  listeprecedentproprietaire: null,
  divers: null,
  parutionavisprecedent: null,
  url_complete: "https://www.bodacc.fr/pages/annonces-commerciales-detail/?q.id=id:A202600521234",
};

const EXPECTED: OfficialAnnouncement = {
  id: "A202600521234",
  publishedOn: "2026-03-18",
  kind: "collective",
  family: "collective",
  familyLabel: "Procédures collectives",
  type: "annonce",
  replaces: null,
  court: "Greffe du Tribunal de Commerce de Lyon",
  url: "https://www.bodacc.fr/pages/annonces-commerciales-detail/?q.id=id:A202600521234",
  subjects: [SIREN],
  previousOwners: [],
  judgment: {
    family: "Jugement d'ouverture",
    nature: "Jugement d'ouverture de liquidation judiciaire",
    decidedOn: "2026-03-10",
  },
  deregistration: null,
  saleCategory: null,
};

const announcement = (record: Record<string, unknown>): OfficialAnnouncement => {
  const reading = announcementOf(record);
  if ("error" in reading) throw new Error(reading.error);
  return reading.announcement;
};

describe("announcementOf", () => {
  it("reads a published collective-proceeding record, its JSON-string subfields included", () => {
    expect(announcementOf(COLLECTIVE)).toEqual({ announcement: EXPECTED });
  });

  it("finds the SIREN however registre spells it: a v2.1 list, a v1 comma-joined string, with the name or the court", () => {
    expect(sirensIn([spaced, SIREN])).toEqual([SIREN]);
    expect(sirensIn(`${spaced},${SIREN}`)).toEqual([SIREN]);
    expect(sirensIn(`AU PAIN DORE ${spaced}`)).toEqual([SIREN]);
    expect(sirensIn(`${SIREN} RCS LYON`)).toEqual([SIREN]);
    expect(sirensIn([`${BUYER.slice(0, 3)}\u00a0${BUYER.slice(3, 6)}\u00a0${BUYER.slice(6)}`, SIREN])).toEqual([
      BUYER,
      SIREN,
    ]);
    // Not a SIREN: a failed check digit, too many digits, no digits.
    expect(sirensIn(["555 666 771", "12345678901234", "pas un siren"])).toEqual([]);
    expect(announcement({ ...COLLECTIVE, registre: `${spaced},${SIREN}` }).subjects).toEqual([SIREN]);
  });

  it("takes the SIREN from listepersonnes when the record has no registre, and finds none in a record without either", () => {
    const persons = JSON.stringify({
      personne: [
        { typePersonne: "pp", nom: "MARTIN", inscriptionRM: { numeroIdentificationRM: spaced, codeRM: "RM" } },
        { typePersonne: "pm", numeroImmatriculation: { numeroIdentification: BUYER } },
      ],
    });
    const { registre: _registre, ...withoutRegistre } = COLLECTIVE;
    expect(announcement({ ...withoutRegistre, listepersonnes: persons }).subjects).toEqual([SIREN, BUYER]);
    expect(announcement({ ...withoutRegistre, listepersonnes: null }).subjects).toEqual([]);
  });

  it("accepts a subfield given as an object, and rejects a record whose subfield is not JSON or whose id or date is not one", () => {
    expect(announcement({ ...COLLECTIVE, jugement: JSON.parse(COLLECTIVE.jugement) }).judgment).toEqual(
      EXPECTED.judgment,
    );
    expect(announcementOf({ ...COLLECTIVE, jugement: '{"nature": "Jugement d\'ouverture' })).toEqual({
      error: "jugement: not valid JSON",
    });
    expect(announcementOf({ ...COLLECTIVE, listepersonnes: "[1, 2]" })).toEqual({
      error: "listepersonnes: not a JSON object",
    });
    expect(announcementOf({ ...COLLECTIVE, id: undefined })).toEqual({ error: "id: null is not a BODACC id" });
    expect(announcementOf({ ...COLLECTIVE, dateparution: "18/03/2026" })).toEqual({
      error: 'dateparution: "18/03/2026" is not a date',
    });
    expect(announcementOf({ ...COLLECTIVE, dateparution: "2026-02-30" })).toEqual({
      error: 'dateparution: "2026-02-30" is not a date',
    });
  });

  it("reads a deregistration, a sale (who sold, who bought) and a correction pointing at an earlier announcement", () => {
    const radiation = announcement({
      ...COLLECTIVE,
      id: "B202600871201",
      publicationavis: "B",
      parution: "20260087",
      numeroannonce: 1201,
      dateparution: "2026-05-12",
      familleavis: "radiation",
      familleavis_lib: "Radiations",
      jugement: null,
      radiationaurcs: JSON.stringify({ radiationPM: "O" }),
      url_complete: undefined,
    });
    expect(radiation).toMatchObject({
      kind: "radiation",
      deregistration: { comment: null, ceasedOn: null },
      judgment: null,
      // No url_complete: the announcement's page on bodacc.fr, from its id.
      url: "https://www.bodacc.fr/pages/annonces-commerciales-detail/?q.id=id:B202600871201",
    });
    expect(
      announcement({
        ...COLLECTIVE,
        familleavis: "radiation",
        jugement: null,
        radiationaurcs: '{"radiationPP": {"dateCessationActivitePP": "31/01/2026"}}',
      }).deregistration,
    ).toEqual({ comment: null, ceasedOn: "2026-01-31" });

    const sale = announcement({
      ...COLLECTIVE,
      familleavis: "vente",
      familleavis_lib: "Ventes et cessions",
      registre: [BUYER],
      jugement: null,
      listepersonnes: JSON.stringify({
        personne: { typePersonne: "pm", numeroImmatriculation: { numeroIdentification: BUYER } },
      }),
      acte: JSON.stringify({
        vente: { categorieVente: "Achat d'un fonds par une personne morale" },
        dateCommencementActivite: "2026-03-01",
      }),
      listeprecedentproprietaire: JSON.stringify({
        personne: { typePersonne: "pm", numeroImmatriculation: { numeroIdentification: spaced } },
      }),
    });
    expect(sale).toMatchObject({
      kind: "sale",
      subjects: [BUYER],
      previousOwners: [SIREN],
      saleCategory: "Achat d'un fonds par une personne morale",
    });

    const correction = announcement({
      ...COLLECTIVE,
      id: "A202600600077",
      typeavis: "rectificatif",
      parutionavisprecedent: JSON.stringify({
        nomPublication: "BODACC A",
        numeroParution: "20260052",
        dateParution: "18 mars 2026",
        numeroAnnonce: "1234",
      }),
    });
    expect([correction.type, correction.replaces]).toEqual(["rectificatif", "A202600521234"]);
    // Numbers below 1000 are written on four digits in ids ("A202601950001").
    const cancellation = announcement({
      ...COLLECTIVE,
      typeavis: "annulation",
      parutionavisprecedent: JSON.stringify({
        nomPublication: "BODACC A",
        numeroParution: "20260195",
        numeroAnnonce: 1,
      }),
    });
    expect(cancellation.replaces).toBe("A202601950001");
  });

  it("reads the dates BODACC writes: ISO, day/month/year, in words, with a non-breaking space, and nothing else", () => {
    expect(bodaccDate("2026-03-10")).toBe("2026-03-10");
    expect(bodaccDate("10/03/2026")).toBe("2026-03-10");
    expect(bodaccDate("27 novembre 2008")).toBe("2008-11-27");
    expect(bodaccDate("1er février 2020")).toBe("2020-02-01");
    expect(bodaccDate("27\u00a0décembre\u00a02008")).toBe("2008-12-27");
    expect(bodaccDate("31 février 2020")).toBeNull();
    expect(bodaccDate("not a date")).toBeNull();
    expect(bodaccDate(null)).toBeNull();
  });
});

async function* chunked(text: string, size: number): AsyncGenerator<string> {
  for (let start = 0; start < text.length; start += size) yield text.slice(start, start + size);
}

async function read(text: string, size = text.length || 1, options: { layout?: "jsonl" } = {}): Promise<RecordItem[]> {
  const out: RecordItem[] = [];
  for await (const item of bodaccRecords(chunked(text, size), options)) out.push(item);
  return out;
}

const second = { ...COLLECTIVE, id: "A202600521235", numeroannonce: 1235, commercant: 'LE "FOURNIL", [PAINS] {BIO}\\' };

describe("bodaccRecords", () => {
  it("reads JSON Lines line by line, rejecting a malformed line with its number and going on", async () => {
    const text = `\uFEFF${JSON.stringify(COLLECTIVE)}\r\n\n{"id": "A1", "dateparution": \n[1]\n${JSON.stringify(second)}`;
    const expected: RecordItem[] = [
      { record: COLLECTIVE, number: 1, line: 1 },
      { error: expect.stringMatching(/^not valid JSON \(/) as unknown as string, number: 2, line: 3 },
      { error: "not a JSON object", number: 3, line: 4 },
      { record: second, number: 4, line: 5 },
    ];
    expect(await read(text)).toEqual(expected);
    for (let size = 1; size <= 40; size += 3) expect(await read(text, size), `chunks of ${size}`).toEqual(expected);
    // A .jsonl file is read as JSON Lines even when its first line is broken.
    expect(
      (await read(`{"id": \n${JSON.stringify(second)}\n`, 7, { layout: "jsonl" })).map((item) => item.line),
    ).toEqual([1, 2]);
  });

  it("streams a JSON array (/exports/json) element by element, whatever the chunk boundaries, strings with brackets included", async () => {
    const text = `[\n${JSON.stringify(COLLECTIVE, null, 2)},\n${JSON.stringify(second)},\n{"id": tru},\n"text"\n]\n`;
    const all = await read(text);
    expect(all).toEqual([
      { record: COLLECTIVE, number: 1, line: 2 },
      { record: second, number: 2, line: 40 },
      { error: expect.stringMatching(/^not valid JSON/) as unknown as string, number: 3, line: 41 },
      { error: "not a JSON object", number: 4, line: 42 },
    ]);
    for (const size of [1, 2, 3, 5, 8, 13, 64, 1000]) expect(await read(text, size), `chunks of ${size}`).toEqual(all);
    expect(await read("[]")).toEqual([]);
    expect(await read("")).toEqual([]);
  });

  it("stops at a file cut inside an array element, naming the line it began on", async () => {
    const text = `[${JSON.stringify(COLLECTIVE)},\n{"id": "A202600521235", "commercant": "COUPE`;
    const items: RecordItem[] = [];
    const reading = (async () => {
      for await (const item of bodaccRecords(chunked(text, 16))) items.push(item);
    })();
    await expect(reading).rejects.toThrow(new BodaccFileError("the file ends inside record 2, begun on line 2", 2));
    expect(items).toHaveLength(1);
  });

  it("reads a records page of the API ({total_count, results}), on one line or indented", async () => {
    const page = { total_count: 2, results: [COLLECTIVE, second] };
    const expected = [
      { record: COLLECTIVE, number: 1, line: null },
      { record: second, number: 2, line: null },
    ];
    expect(await read(JSON.stringify(page))).toEqual(expected);
    expect(await read(JSON.stringify(page, null, 2), 10)).toEqual(expected);
    await expect(read('{\n  "total_count": 0\n}')).rejects.toThrow('a JSON object without a "results" array');
    await expect(read("id;dateparution\n")).rejects.toThrow(BodaccFileError);
  });
});

/** Text never held whole: `head`, `count` times `piece`, then `tail`. */
async function* repeated(head: string, piece: string, count: number, tail: string): AsyncGenerator<string> {
  yield head;
  for (let index = 0; index < count; index++) yield piece;
  yield tail;
}

async function all(chunks: AsyncIterable<string>, options: { layout?: "jsonl" } = {}): Promise<RecordItem[]> {
  const out: RecordItem[] = [];
  for await (const item of bodaccRecords(chunks, options)) out.push(item);
  return out;
}

describe("the layouts of the older APIs, and records out of bounds", () => {
  const TOO_LONG = `longer than ${RECORD_LIMIT} characters (not an announcement): skipped`;
  // One more mebibyte of text than a record may have, in pieces of one.
  const MEBIBYTE = "a".repeat(1024 * 1024);
  const PIECES = RECORD_LIMIT / MEBIBYTE.length + 1;

  it("reads a record as v1 ({fields}) and v2.0 ({record: {fields}}) wrap it, in pages, arrays and lines", async () => {
    const v1 = {
      datasetid: "annonces-commerciales",
      recordid: "5b0a5a1c",
      fields: COLLECTIVE,
      record_timestamp: "2026-03-18T04:00:00Z",
    };
    const v20 = { links: [], record: { id: "9f1e", timestamp: "2026-03-18T04:00:00Z", size: 2048, fields: second } };
    const expected = (line: (index: number) => number | null) => [
      { record: COLLECTIVE, number: 1, line: line(1) },
      { record: second, number: 2, line: line(2) },
    ];
    expect(await read(JSON.stringify({ nhits: 2, parameters: {}, records: [v1, v20] }))).toEqual(expected(() => null));
    expect(await read(JSON.stringify({ total_count: 2, records: [v1, v20] }, null, 2), 7)).toEqual(
      expected(() => null),
    );
    expect(await read(`[${JSON.stringify(v1)},\n${JSON.stringify(v20)}]`, 9)).toEqual(expected((index) => index));
    expect(await read(`${JSON.stringify(v1)}\n${JSON.stringify(v20)}\n`, 11)).toEqual(expected((index) => index));
    await expect(read('{\n  "nhits": 0,\n  "parameters": {}\n}')).rejects.toThrow(
      'a JSON object without a "results" array (API v2.1) or a "records" array (v1, v2.0): not a records page',
    );
  });

  it("sets aside a line of JSON Lines longer than a record may be, with its number, and reads on", async () => {
    const items = await all(
      repeated(`${JSON.stringify(COLLECTIVE)}\n{"commercant": "`, MEBIBYTE, PIECES, `"}\n${JSON.stringify(second)}\n`),
      { layout: "jsonl" },
    );
    expect(items).toEqual([
      { record: COLLECTIVE, number: 1, line: 1 },
      { error: TOO_LONG, number: 2, line: 2 },
      { record: second, number: 3, line: 3 },
    ]);
  });

  it("sets aside an array element longer than a record may be, with the line it begins on, and reads on", async () => {
    const items = await all(
      repeated(
        `[${JSON.stringify(COLLECTIVE)},\n{"commercant": "`,
        MEBIBYTE,
        PIECES,
        `"},\n${JSON.stringify(second)}]`,
      ),
    );
    expect(items).toEqual([
      { record: COLLECTIVE, number: 1, line: 1 },
      { error: TOO_LONG, number: 2, line: 2 },
      { record: second, number: 3, line: 3 },
    ]);
  });

  it("refuses the CSV export, naming the exports to take instead", async () => {
    // The export's header as Opendatasoft writes it: the dataset's fields, semicolon separated.
    await expect(
      read("id;publicationavis;publicationavis_facette;parution;dateparution;numeroannonce\n"),
    ).rejects.toThrow(
      new BodaccFileError(
        "this is the CSV export (/exports/csv): the import reads the JSON exports, /exports/jsonl or /exports/json of the same dataset",
        1,
      ),
    );
  });

  it("reads a record naming 300,000 companies in linear time (a list searched at each one took two minutes)", () => {
    const sirens = Array.from({ length: 300_000 }, (_, index) => makeSiren(String(10_000_000 + index)));
    const registre = sirens.flatMap((siren) => [`${siren.slice(0, 3)} ${siren.slice(3, 6)} ${siren.slice(6)}`, siren]);
    const started = performance.now();
    const { subjects } = announcement({ ...COLLECTIVE, registre });
    const elapsed = performance.now() - started;
    expect(subjects).toHaveLength(300_001);
    expect(subjects.slice(0, 2)).toEqual(sirens.slice(0, 2));
    expect(subjects.at(-1)).toBe(SIREN);
    // Linear: under a second here; the quadratic dedupe took 126 s.
    expect(elapsed).toBeLessThan(10_000);
  });

  it("cleans kept texts of control characters and bidirectional overrides, and rejects one over 500 characters", () => {
    expect(
      announcement({ ...COLLECTIVE, tribunal: "Greffe\u0000 du Tribunal\u202e de Commerce\tde\u2066 Lyon\u0090" })
        .court,
    ).toBe("Greffe du Tribunal de Commerce de Lyon");
    const nature = `Jugement d'ouverture de liquidation judiciaire ${"x".repeat(454)}`;
    expect(nature).toHaveLength(501);
    expect(
      announcementOf({ ...COLLECTIVE, jugement: JSON.stringify({ famille: "Jugement d'ouverture", nature }) }),
    ).toEqual({
      error: "jugement.nature: 501 characters, more than the 500 a kept text may have",
    });
  });
});

const base: OfficialAnnouncement = { ...EXPECTED, subjects: [SIREN] };
const later = (changes: Partial<OfficialAnnouncement>): OfficialAnnouncement => ({
  ...base,
  id: "B202600990001",
  publishedOn: "2026-06-01",
  kind: "other",
  family: "modification",
  judgment: null,
  ...changes,
});

describe("which announcements count against a company", () => {
  const radiation = later({
    id: "B202600871201",
    publishedOn: "2026-05-12",
    kind: "radiation",
    family: "radiation",
    deregistration: { comment: null, ceasedOn: null },
  });

  it("counts its insolvency proceedings, its deregistration and the sale of a business it owned, newest first", () => {
    const sold = later({
      id: "A202600700001",
      publishedOn: "2026-04-01",
      kind: "sale",
      family: "vente",
      subjects: [BUYER],
      previousOwners: [SIREN],
    });
    const filedAccounts = later({ id: "C202600400001", publishedOn: "2026-04-02", family: "dpc" });
    expect(adverseAnnouncements(SIREN, [base, sold, filedAccounts, radiation]).map((item) => item.id)).toEqual([
      "B202600871201",
      "A202600700001",
      "A202600521234",
    ]);
    // The buyer of a business is not the worse for it.
    expect(adverseAnnouncements(BUYER, [sold])).toEqual([]);
  });

  it("does not count a deregistration the company outlived: its head office moved to another court, or it registered again", () => {
    expect(
      adverseAnnouncements(SIREN, [radiation, later({ court: "Greffe du Tribunal de Commerce de Paris" })]),
    ).toEqual([]);
    // The same court, however written, with a later announcement: still deregistered.
    expect(adverseAnnouncements(SIREN, [radiation, later({ court: "TRIBUNAL DE COMMERCE DE LYON" })])).toEqual([
      radiation,
    ]);
    expect(adverseAnnouncements(SIREN, [radiation, later({ family: "immatriculation" })])).toEqual([]);
    expect(
      adverseAnnouncements(SIREN, [
        { ...radiation, deregistration: { comment: "Transfert du siège hors ressort", ceasedOn: null } },
      ]),
    ).toEqual([]);
  });

  it("takes out what a cancellation, a correction or a retraction refers to", () => {
    expect(withdrawnBy(later({ id: "A2", type: "annulation", replaces: "A1" }))).toEqual(["A1", "A2"]);
    expect(withdrawnBy(later({ id: "A2", type: "rectificatif", replaces: "A1" }))).toEqual(["A1"]);
    expect(
      withdrawnBy(
        later({
          id: "B2",
          type: "rectificatif",
          replaces: "B1",
          deregistration: { comment: "Rapport de radiation d'office", ceasedOn: null },
        }),
      ),
    ).toEqual(["B1", "B2"]);
    expect(
      withdrawnBy(
        later({
          id: "A2",
          replaces: "A1",
          judgment: { family: "Rétractation sur tierce opposition", nature: null, decidedOn: null },
        }),
      ),
    ).toEqual(["A1", "A2"]);
    expect(withdrawnBy(base)).toEqual([]);
  });
});
