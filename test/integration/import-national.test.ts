/**
 * Issue 34, items 1 and 6: `npm run import -- sirene --etablissements StockEtablissement_utf8.zip
 * --unites-legales StockUniteLegale_utf8.zip` on INSEE's two files as published (zipped, every
 * column of their layouts), national-shaped (test/helpers/generated-stock.ts: rows in no
 * particular order in either file, companies of several establishments, a few rows with a bad
 * SIRET). Every active, public establishment of a covered trade comes in, identity-verified as of
 * the stock's date (its latest processing date, no --file-date given), a bad SIRET is a counted
 * rejection with its file and line, and the same stock again changes nothing. Then a later stock,
 * given broken in every way a file can be (cut short, damaged, the other kind of file, another
 * layout's header, a file that is no stock at all): each run ends with one line naming the file and
 * leaves the registry exactly as it was; the same stock given whole is then applied in full.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/store/db.ts";
import { writeNationalStock } from "../helpers/generated-stock.ts";
import { runJob } from "../helpers/run-job.ts";

const dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-import-national-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const ROWS = 6_000;

const importStock = (establishments: string, legalUnits: string) =>
  runJob(["jobs/import.ts", "sirene", "--etablissements", establishments, "--unites-legales", legalUnits, "--json"], {
    dataDir,
    baseUrl: "http://abeille.test",
  });

/** The registry as a reader finds it: every merchant's row, place and signals, the audit log and the feed. */
function registry(): Record<string, unknown[]> {
  const db = openDatabase(path.join(dataDir, "abeille.db"), { readonly: true });
  try {
    const all = (sql: string) => db.$client.prepare(sql).all();
    return {
      merchants: all("SELECT * FROM merchants ORDER BY ab_id"),
      proofs: all("SELECT * FROM territorial_proofs ORDER BY ab_id"),
      signals: all("SELECT * FROM signals ORDER BY ab_id, key"),
      events: all("SELECT * FROM merchant_events ORDER BY event_id"),
      changes: all("SELECT * FROM merchant_changes ORDER BY seq"),
    };
  } finally {
    db.$client.close();
  }
}

function written(name: string, content: string | Buffer): string {
  const file = path.join(dataDir, name);
  writeFileSync(file, content);
  return file;
}

describe("npm run import -- sirene on INSEE's zipped stock, national-shaped", () => {
  it("takes in every local-commerce establishment whatever the order of the rows, and counts each bad SIRET with its line", async () => {
    const stock = await writeNationalStock({
      dir: path.join(dataDir, "november"),
      rows: ROWS,
      badSiretAt: [10, 4_321],
    });
    const run = await importStock(stock.establishments, stock.legalUnits);
    expect(run.stderr).toBe("");
    // Done, but some rows were rejected (exit status 1).
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.read).toBe(ROWS);
    expect(report.created).toBe(stock.expected);
    expect(report.rejected_count).toBe(2);
    expect(report.rejected).toEqual([
      { file: "establishments", line: 12, error: expect.stringMatching(/^siret: \d{14} is not a valid SIRET$/) },
      { file: "establishments", line: 4_323, error: expect.stringMatching(/^siret: \d{14} is not a valid SIRET$/) },
    ]);
    const sirets = new Set((registry().merchants as { siret: string }[]).map((merchant) => merchant.siret));
    expect([...(stock.expectedSirets ?? [])].filter((siret) => !sirets.has(siret))).toEqual([]);
    expect(sirets.size).toBe(stock.expected);
    // Verified as of the stock's date, INSEE's change of each record kept beside, SIRENE the origin.
    expect(report.stock_date).toBe(stock.lastProcessedAt);
    const identities = (
      registry().signals as { key: string; verified_at: string; changed_at: string; origin: string }[]
    ).filter((signal) => signal.key === "siret_verified");
    expect(identities).toHaveLength(stock.expected);
    for (const signal of identities) {
      expect(signal).toMatchObject({ verified_at: stock.lastProcessedAt, origin: "sirene" });
      expect(signal.changed_at <= stock.lastProcessedAt).toBe(true);
    }
    expect(new Set(identities.map((signal) => signal.changed_at)).size).toBeGreaterThan(stock.expected / 2);

    // The same stock again: nothing changes.
    const again = await importStock(stock.establishments, stock.legalUnits);
    expect(JSON.parse(again.stdout)).toMatchObject({ created: 0, updated: 0, archived: 0, unchanged: stock.expected });
  }, 120_000);

  it("refuses a later stock broken in any way in one line, the registry left as it was, then applies it whole", async () => {
    const before = registry();
    const later = await writeNationalStock({ dir: path.join(dataDir, "december"), rows: ROWS, variant: 1 });
    const zip = readFileSync(later.establishments);
    const units = readFileSync(later.legalUnits);
    const damaged = Buffer.from(zip);
    // A byte of the deflated data changed, a third of the way in.
    const at = Math.floor(zip.length / 3);
    damaged[at] = (damaged[at] as number) ^ 0x5a;
    const cases: [establishments: string, legalUnits: string, line: string | RegExp][] = [
      [
        written("StockEtablissement_cut.zip", zip.subarray(0, Math.floor(zip.length / 2))),
        later.legalUnits,
        "a zip archive cut short: the directory that ends a zip archive is missing (a download interrupted? download the file again)",
      ],
      [
        later.establishments,
        written("StockUniteLegale_cut.zip", units.subarray(0, units.length - 100)),
        "a zip archive cut short: the directory that ends a zip archive is missing (a download interrupted? download the file again)",
      ],
      [
        written("StockEtablissement_damaged.zip", damaged),
        later.legalUnits,
        /^(a damaged zip archive: .*|damaged or cut short \(.*\))$/,
      ],
      [
        later.legalUnits,
        later.establishments,
        "this is a legal units file (StockUniteLegale: no siret column), not StockEtablissement: give it with --unites-legales",
      ],
      [
        written("StockEtablissement_utf8.parquet", Buffer.concat([Buffer.from("PAR1"), Buffer.alloc(100)])),
        later.legalUnits,
        "a Parquet file: the import reads INSEE's CSV files (StockEtablissement_utf8.zip, StockUniteLegale_utf8.zip)",
      ],
      [
        written(
          "StockEtablissement_export.csv",
          "siren;nic;siret;etatAdministratifEtablissement\n123456789;00012;12345678900012;A\n",
        ),
        later.legalUnits,
        "the columns are separated by semicolons (a spreadsheet's export?): INSEE's stock files separate them by commas; give the file as published",
      ],
      [
        written("StockEtablissement_other.csv", "siren,nic,siret,denomination\n123456789,00012,12345678900012,X\n"),
        later.legalUnits,
        "the header lacks the columns",
      ],
    ];
    for (const [establishments, legalUnits, message] of cases) {
      const run = await importStock(establishments, legalUnits);
      const label = String(message);
      expect(run.code, label).toBe(3);
      expect(run.stdout).toBe("");
      const lines = run.stderr.trimEnd().split("\n");
      expect(lines, label).toHaveLength(1);
      const option = lines[0]?.startsWith(`import: --unites-legales ${legalUnits}`)
        ? "--unites-legales"
        : "--etablissements";
      const named = option === "--unites-legales" ? legalUnits : establishments;
      const said = lines[0]?.slice(`import: ${option} ${named}`.length);
      expect(said, label).toMatch(/^(, line \d+)?: /);
      const why = said?.replace(/^(, line \d+)?: /, "");
      if (typeof message === "string") expect(why).toContain(message);
      else expect(why).toMatch(message);
      // Nothing was applied: the registry is as it was, row for row.
      expect(registry(), label).toEqual(before);
    }

    // Without the companies' file too: the damaged stock is read through before any row is applied.
    const alone = await runJob(
      ["jobs/import.ts", "sirene", "--etablissements", path.join(dataDir, "StockEtablissement_damaged.zip")],
      { dataDir, baseUrl: "http://abeille.test" },
    );
    expect(alone.code).toBe(3);
    expect(alone.stderr).toMatch(
      /^import: --etablissements .*StockEtablissement_damaged\.zip: (a damaged zip archive|damaged or cut short)/,
    );
    expect(registry()).toEqual(before);

    // The same stock given whole: applied in full (openings, closings recorded, new signs).
    const run = await importStock(later.establishments, later.legalUnits);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.created).toBeGreaterThan(0);
    expect(report.closed).toBeGreaterThan(0);
    expect(report.updated).toBeGreaterThan(0);
    const open = (registry().merchants as { siret: string; status: string; closure: string | null }[]).filter(
      (merchant) => merchant.status !== "ARCHIVED" && merchant.closure === null,
    );
    expect(new Set(open.map((merchant) => merchant.siret))).toEqual(later.expectedSirets);
  }, 240_000);
});
