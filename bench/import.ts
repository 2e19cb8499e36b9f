/**
 * The SIRENE import at scale: a StockEtablissement file of --rows rows in INSEE's own layout
 * (format 3.11, the published header in its order), generated here with the stock's mix (about
 * 45 % closed establishments, 5 % non-public, and among the active public ones about 15 % in the
 * trades the registry covers), imported into an empty registry by `npm run import -- sirene` as a
 * child process, then imported again (nothing changes the second time). Baseline in the same run:
 * the same file read by the same CSV reader and nothing else. Prints wall time, rows/s, the peak
 * RSS of the import process, and writes bench/results/import-latest.{md,json}.
 *
 *   node bench/import.ts [--rows 1000000] [--keep]
 */
import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { jobArgv } from "../jobs/compile-cache.ts";
import { trades } from "../src/domain/sectors.ts";
import { makeSiren, makeSiret } from "../src/domain/siret.ts";
import { csvLine, csvRows } from "../src/import/csv.ts";
import { openText } from "../src/import/open-text.ts";
import { ESTABLISHMENT_COLUMNS } from "../src/import/sirene/establishments.ts";
import { ESTABLISHMENT_HEADER } from "../src/import/sirene/layout.ts";
import { loadCommuneReference } from "../src/seed/communes.ts";
import { Rng } from "../src/seed/prng.ts";
import { machineLine, markdownTable, round, rssMegabytes, writeReport } from "./lib.ts";

const root = path.resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: { rows: { type: "string", default: "1000000" }, keep: { type: "boolean", default: false } },
});
const rows = Number(values.rows);
const dir = mkdtempSync(path.join(os.tmpdir(), "abeille-import-bench-"));
const file = path.join(dir, "StockEtablissement_utf8.csv");

/** Activities outside the registry's trades, as common in the stock as its own. */
const OTHER_NAF = ["62.01Z", "47.11F", "68.20A", "70.22Z", "86.21Z", "49.41A", "41.20A", "82.99Z", "85.59A", "46.90Z"];
const STREETS = ["RUE", "AV", "BD", "PL", "CHE", "RTE", "IMP", "ALL"];

async function writeStock(): Promise<void> {
  const communes = loadCommuneReference().communes.filter((commune) => commune.postalCodes.length > 0);
  const rng = Rng.create(2026, 7);
  const out = createWriteStream(file);
  const write = (text: string) =>
    new Promise<void>((resolve) => {
      if (out.write(text)) resolve();
      else out.once("drain", resolve);
    });
  await write(`${ESTABLISHMENT_HEADER.join(",")}\r\n`);
  let chunk = "";
  for (let index = 0; index < rows; index++) {
    const commune = communes[rng.int(communes.length)] as (typeof communes)[number];
    const siren = makeSiren(`${rng.between(3, 9)}${String(index).padStart(7, "0")}`);
    const roll = rng.next();
    const closed = roll < 0.45;
    const hidden = !closed && roll < 0.5;
    const covered = rng.chance(0.15);
    const trade = trades[rng.int(trades.length)] as (typeof trades)[number];
    const values: Record<string, string> = {};
    const set = (name: string, value: string) => {
      values[name] = value;
    };
    const siret = makeSiret(siren, "0001");
    set("siren", siren);
    set("nic", siret.slice(9));
    set("siret", siret);
    set("statutDiffusionEtablissement", hidden ? "P" : "O");
    set("dateCreationEtablissement", `${rng.between(1975, 2025)}-0${rng.between(1, 9)}-1${rng.between(0, 9)}`);
    set("trancheEffectifsEtablissement", rng.pick(["NN", "00", "01", "02", "03"]));
    set("dateDernierTraitementEtablissement", "2026-10-01T03:12:45");
    set("etablissementSiege", rng.chance(0.8) ? "true" : "false");
    set("nombrePeriodesEtablissement", String(rng.between(1, 4)));
    set("numeroVoieEtablissement", String(rng.between(1, 120)));
    set("typeVoieEtablissement", rng.pick(STREETS));
    set("libelleVoieEtablissement", `DE LA ${rng.pick(["REPUBLIQUE", "GARE", "LIBERATION", "PAIX", "FONTAINE"])}`);
    set("codePostalEtablissement", commune.postalCodes[0] as string);
    set("libelleCommuneEtablissement", commune.name.toUpperCase());
    set("codeCommuneEtablissement", commune.insee);
    set("dateDebut", "2020-01-01");
    set("etatAdministratifEtablissement", closed ? "F" : "A");
    if (rng.chance(0.4))
      set("enseigne1Etablissement", `${rng.pick(["AU", "CHEZ", "ATELIER"])} ${commune.name.toUpperCase()}`);
    set("activitePrincipaleEtablissement", covered ? trade.nafCode : (rng.pick(OTHER_NAF) as string));
    set("nomenclatureActivitePrincipaleEtablissement", "NAFRev2");
    set("caractereEmployeurEtablissement", rng.pick(["O", "N"]));
    chunk += `${csvLine(ESTABLISHMENT_HEADER, values)}\r\n`;
    if (chunk.length > 1 << 20) {
      await write(chunk);
      chunk = "";
    }
  }
  await write(chunk);
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

interface Run {
  name: string;
  wallSeconds: number;
  rowsPerSecond: number;
  peakRssMb: number;
  report: Record<string, unknown> | null;
}

/** Runs the import as `npm run import` does, sampling the process's peak RSS (VmHWM) while it runs. */
function importOnce(name: string, dataDir: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, jobArgv("jobs/import.ts", "sirene", "--etablissements", file, "--json"), {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let peak = 0;
    const sampler = setInterval(() => {
      try {
        peak = Math.max(peak, rssMegabytes(child.pid as number).peak);
      } catch {
        // exited between two samples
      }
    }, 100);
    let stdout = "";
    child.stdout.on("data", (data: Buffer) => {
      stdout += data.toString();
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      clearInterval(sampler);
      const wallSeconds = round((performance.now() - started) / 1000, 2);
      if (code !== 0) return reject(new Error(`${name}: the import exited with ${code}`));
      resolve({
        name,
        wallSeconds,
        rowsPerSecond: Math.round(rows / wallSeconds),
        peakRssMb: peak,
        report: JSON.parse(stdout) as Record<string, unknown>,
      });
    });
  });
}

/** The baseline: the same file through the same reader, rows counted, nothing applied. */
async function readOnly(): Promise<Run> {
  const started = performance.now();
  let count = 0;
  for await (const item of csvRows(openText(file), ESTABLISHMENT_COLUMNS)) if ("row" in item) count += 1;
  const wallSeconds = round((performance.now() - started) / 1000, 2);
  return {
    name: `read the file only (${count} rows)`,
    wallSeconds,
    rowsPerSecond: Math.round(rows / wallSeconds),
    peakRssMb: rssMegabytes(process.pid).peak,
    report: null,
  };
}

process.stdout.write(`writing ${rows} establishment rows into ${file} ...\n`);
const writing = performance.now();
await writeStock();
process.stdout.write(
  `written in ${round((performance.now() - writing) / 1000, 1)} s (${round(statSync(file).size / 1e6, 1)} MB)\n`,
);

const dataDir = path.join(dir, "data");
mkdirSync(dataDir);
const runs: Run[] = [];
runs.push(await readOnly());
runs.push(await importOnce("import into an empty registry", dataDir));
runs.push(await importOnce("the same file again", dataDir));
const baseline = runs[0] as Run;

const lines = runs.map((run) => [
  run.name,
  run.wallSeconds,
  run.rowsPerSecond,
  round(run.wallSeconds / baseline.wallSeconds, 1),
  run.peakRssMb,
  run.report
    ? ["created", "updated", "archived", "unchanged"].map((key) => `${key} ${run.report?.[key]}`).join(", ")
    : "",
]);

const report = [
  `# Import bench ${new Date().toISOString()}`,
  "",
  `${machineLine()}. ${rows} rows of StockEtablissement in INSEE's layout (${round(statSync(file).size / 1e6, 1)} MB).`,
  "Targets (issue 9): 1,000,000 rows in under 2 minutes, RSS under 300 MB.",
  "",
  ...markdownTable(["run", "wall s", "rows/s", "x read-only", "peak RSS MB", "outcome"], lines),
  "",
].join("\n");
writeReport("import", report, runs);
if (!values.keep) rmSync(dir, { recursive: true, force: true });
