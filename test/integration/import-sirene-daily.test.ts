/**
 * `npm run import -- sirene-daily` as an operator runs it, in a process of its own on a DATA_DIR,
 * against a local stand-in of API Sirene (test/helpers/fake-api-sirene.ts, recorded answers):
 * nothing done without SIRENE_API_KEY; a day's establishments in, paced as the public plan asks;
 * a run killed between two pages taken up at the page it stopped at; the API refusing the key or
 * answering in another shape said in one line, what was applied kept.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dateIn, dayAfter } from "../../src/domain/calendar.ts";
import { openDatabase } from "../../src/store/db.ts";
import {
  establishmentRecord,
  type FakeApiSirene,
  type FakeEstablishmentValues,
  startFakeApiSirene,
} from "../helpers/fake-api-sirene.ts";
import { runJob } from "../helpers/run-job.ts";

const KEY = "integration-key-of-the-tests";
const today = dateIn("Europe/Paris", new Date());
const yesterday = dayAfter(today, -1);
let fake: FakeApiSirene;
let work: string;

beforeAll(async () => {
  // Two records a page whatever the client asks, so that a day has several pages.
  fake = await startFakeApiSirene({ key: KEY, pageSize: 2 });
  work = mkdtempSync(path.join(os.tmpdir(), "abeille-sirene-daily-"));
});
afterAll(async () => {
  await fake.close();
  rmSync(work, { recursive: true, force: true });
});

const daily = (dataDir: string, env: Record<string, string>, ...args: string[]) =>
  runJob(["jobs/import.ts", "sirene-daily", ...args], { dataDir, baseUrl: "http://localhost:4321", env });

/** A bakery, a butcher's and a restaurant INSEE processed yesterday (shops of one company, written here). */
const shop = (nic: string, sign: string, naf: string): FakeEstablishmentValues => ({
  siret: siretOf("55566677", nic),
  processedAt: `${yesterday}T11:20:00`,
  sign,
  naf,
  street: { number: "14", type: "AV", name: "ROGER SALENGRO" },
  postalCode: "69100",
  city: "VILLEURBANNE",
  communeCode: "69266",
  company: { name: "SARL TROIS BOUTIQUES", createdOn: "2011-09-15" },
});

/** A SIRET of a SIREN's first eight digits and an establishment's four (the check digits computed). */
function siretOf(sirenStart: string, nicStart: string): string {
  const luhn = (digits: string) =>
    [...digits]
      .reverse()
      .map(Number)
      .reduce((sum, digit, index) => sum + (index % 2 === 1 ? ((digit * 2) % 10) + Math.floor(digit / 5) : digit), 0);
  const check = (digits: string) => String((10 - (luhn(`${digits}0`) % 10)) % 10);
  const siren = `${sirenStart}${check(sirenStart)}`;
  const body = `${siren}${nicStart}`;
  return `${body}${check(body)}`;
}

describe("npm run import -- sirene-daily", () => {
  it("does nothing without SIRENE_API_KEY: one line naming it, exit 2", async () => {
    const dataDir = path.join(work, "no-key");
    const before = fake.requests.length;
    const result = await daily(dataDir, { SIRENE_API_URL: fake.url, SIRENE_API_KEY: "" });
    expect([result.code, result.stdout, result.stderr]).toEqual([
      2,
      "",
      "import: SIRENE_API_KEY is not set: sirene-daily asks API Sirene, which needs an integration key (portail-api.insee.fr); nothing was done\n",
    ]);
    expect(fake.requests.length).toBe(before);
    expect(existsSync(path.join(dataDir, "abeille.db"))).toBe(false);
  });

  it("brings in the days since the date; killed between two pages, it takes up at the page it stopped at", async () => {
    const dataDir = path.join(work, "days");
    const env = { SIRENE_API_URL: fake.url, SIRENE_API_KEY: KEY };
    fake.publish(yesterday, {
      establishments: [
        establishmentRecord(shop("0001", "AU PAIN DORE", "10.71C")),
        establishmentRecord(shop("0002", "BOUCHERIE DU MARCHE", "47.22Z")),
        establishmentRecord(shop("0003", "LE BISTROT", "56.10A")),
      ],
    });
    fake.requests.length = 0;
    // The second page never comes: the run is killed while it waits for it.
    fake.script({ kind: "pass" }, { kind: "stall" });
    const killed = runJob(["jobs/import.ts", "sirene-daily", "--since", yesterday], {
      dataDir,
      baseUrl: "http://localhost:4321",
      env,
      onSpawn: (child) => {
        void fake.received(2).then(() => child.kill("SIGKILL"));
      },
    });
    expect((await killed).signal).toBe("SIGKILL");
    const db = openDatabase(path.join(dataDir, "abeille.db"));
    const kept = JSON.parse(
      (db.$client.prepare("SELECT value FROM settings WHERE key = 'import.sirene-daily'").get() as { value: string })
        .value,
    );
    const signs = () =>
      (
        db.$client.prepare("SELECT business_name FROM merchants ORDER BY business_name").all() as {
          business_name: string;
        }[]
      ).map((row) => row.business_name);
    expect(kept).toMatchObject({ through: null, at: { from: yesterday, day: yesterday, query: "establishments" } });
    expect(signs()).toEqual(["AU PAIN DORE", "BOUCHERIE DU MARCHE"]);

    fake.requests.length = 0;
    const resumed = await daily(dataDir, env, "--json");
    expect([resumed.code, resumed.stderr]).toEqual([0, ""]);
    const report = JSON.parse(resumed.stdout);
    expect(report).toMatchObject({
      from: yesterday,
      to: today,
      through: yesterday,
      resumed: true,
      establishments: 1,
      created: 1,
      rejected_count: 0,
    });
    // It asked the page it stopped at, not the day's first; then the rest.
    expect(fake.requests[0]?.curseur).toBe(kept.at.cursor);
    expect(fake.requests.map((request) => `${request.collection} ${request.q?.slice(-10)}`)).toEqual([
      `/siret ${yesterday}`,
      `/siret ${yesterday}`,
      `/siren ${yesterday}`,
      `/siret ${today}`,
      `/siren ${today}`,
    ]);
    expect(report.requests).toBe(5);
    expect(signs()).toEqual(["AU PAIN DORE", "BOUCHERIE DU MARCHE", "LE BISTROT"]);
    const checked = db.$client
      .prepare(
        "SELECT s.source, s.origin, s.verified_at, s.changed_at FROM signals s JOIN merchants m ON m.ab_id = s.ab_id WHERE m.business_name = 'LE BISTROT' AND s.key = 'siret_verified'",
      )
      .get();
    expect(checked).toEqual({
      source: "official_api",
      origin: "sirene",
      verified_at: `${yesterday}T11:20:00.000Z`,
      changed_at: `${yesterday}T11:20:00.000Z`,
    });
    db.$client.close();
  }, 60_000);

  it("says in one line when API Sirene refuses the key or answers in another shape, exit 3, and keeps what it applied", async () => {
    const dataDir = path.join(work, "refused");
    const refused = await daily(dataDir, { SIRENE_API_URL: fake.url, SIRENE_API_KEY: "not-the-key" }, "--since", today);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toBe(
      `import: API Sirene: ${fake.url}/siret?q=dateDernierTraitementEtablissement:${today}&nombre=1000&curseur=*: answered 401: Unauthorized: API Sirene refused the key (SIRENE_API_KEY: an integration key of portail-api.insee.fr subscribed to API Sirene) (what was applied stays; the next run takes up at this page)\n`,
    );
    fake.script({ kind: "body", text: "<html><body>Maintenance</body></html>" });
    const other = await daily(dataDir, { SIRENE_API_URL: fake.url, SIRENE_API_KEY: KEY }, "--since", today);
    expect(other.code).toBe(3);
    expect(other.stderr).toMatch(
      /^import: API Sirene: http:\/\/127\.0\.0\.1:\d+\/siret\?q=dateDernierTraitementEtablissement:\d{4}-\d{2}-\d{2}&nombre=1000&curseur=\*: not a page of API Sirene \(.*\) \(what was applied stays; the next run takes up at this page\)\n$/,
    );
    expect(other.stderr.split("\n")).toHaveLength(2);
  }, 60_000);
});
