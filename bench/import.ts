/**
 * The SIRENE import at scale: a StockEtablissement file of --rows rows in INSEE's own layout
 * (format 3.11 with the NAF 2025 column, the published header in its order), generated here with
 * the stock's mix (about 45 % closed establishments, 5 % non-public) and a NAF mix drawn from the
 * nomenclatures: 30 % of rows in a NAF rev. 2 sub-class the trades table covers, 70 % in one it
 * leaves out, each with the NAF 2025 code INSEE's correspondence gives it (data/naf-correspondence.csv:
 * its main successor, another one of its successors one time in ten), on 98 % of the active rows
 * and 30 % of the closed ones; 1 % of the active rows have a NAF 2025 code only, as from 2027.
 * Each establishment's company is in a StockUniteLegale file written beside it (the import names
 * new merchants by their companies). Imported into an empty registry by `npm run import -- sirene`
 * as a child process, then imported
 * again (nothing changes the second time), then once more as a newer stock (`--file-date`: every
 * still-active establishment it lists is confirmed as of its date, its signals' dates moved). Baseline in the same run: the same file read by the
 * same CSV reader and nothing else. Prints wall time, rows/s, the peak RSS of the import process,
 * the share of the local-commerce rows (active, public, of a trade by NAF 2025 first) that came in,
 * and writes bench/results/import-latest.{md,json}.
 *
 *   node bench/import.ts [--rows 1000000] [--keep]
 */
import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { jobArgv } from "../jobs/compile-cache.ts";
import { nafSubclasses } from "../src/domain/naf.ts";
import { tradeForNaf, tradeOf } from "../src/domain/sectors.ts";
import { makeSiren, makeSiret } from "../src/domain/siret.ts";
import { csvLine, csvRows } from "../src/import/csv.ts";
import { openText } from "../src/import/open-text.ts";
import { ESTABLISHMENT_COLUMNS } from "../src/import/sirene/establishments.ts";
import { ESTABLISHMENT_HEADER, LEGAL_UNIT_HEADER } from "../src/import/sirene/layout.ts";
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
const unitsFile = path.join(dir, "StockUniteLegale_utf8.csv");

/** Share of rows in a NAF rev. 2 sub-class the trades table covers. */
const LOCAL_COMMERCE_SHARE = 0.3;
const covered = nafSubclasses("rev2").filter((code) => tradeForNaf(code) !== undefined);
const leftOut = nafSubclasses("rev2").filter((code) => tradeForNaf(code) === undefined);

/** Each NAF rev. 2 sub-class's successors in NAF 2025, its main one first (INSEE's correspondence). */
const successors = new Map<string, string[]>();
for (const line of readFileSync(path.join(root, "data/naf-correspondence.csv"), "utf8").trim().split("\n").slice(1)) {
  const [from = "", to = "", type = ""] = line.split(",");
  const list = successors.get(from) ?? [];
  // The whole sub-class goes there, or its own class does: the main successor.
  if (type === "Unique" || to.slice(0, 5) === from.slice(0, 5)) list.unshift(to);
  else list.push(to);
  successors.set(from, list);
}

/** What the file holds, counted as it is written. */
const mix = { activePublic: 0, localCommerce: 0, naf2025Only: 0, withNaf2025: 0 };

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
  // The companies' file beside it (StockUniteLegale, its published header): every establishment's
  // company, public, a company's name or a sole trader's names, created before its establishment.
  const units = createWriteStream(unitsFile);
  const writeUnits = (text: string) =>
    new Promise<void>((resolve) => {
      if (units.write(text)) resolve();
      else units.once("drain", resolve);
    });
  await writeUnits(`${LEGAL_UNIT_HEADER.join(",")}\r\n`);
  let unitChunk = "";
  await write(`${ESTABLISHMENT_HEADER.join(",")}\r\n`);
  let chunk = "";
  for (let index = 0; index < rows; index++) {
    const commune = communes[rng.int(communes.length)] as (typeof communes)[number];
    const siren = makeSiren(`${rng.between(3, 9)}${String(index).padStart(7, "0")}`);
    const roll = rng.next();
    const closed = roll < 0.45;
    const hidden = !closed && roll < 0.5;
    const local = rng.chance(LOCAL_COMMERCE_SHARE);
    const nafRev2 = (local ? covered[rng.int(covered.length)] : leftOut[rng.int(leftOut.length)]) as string;
    const next = successors.get(nafRev2) ?? [];
    const naf2025 =
      rng.chance(closed ? 0.3 : 0.98) && next.length > 0
        ? ((next.length > 1 && rng.chance(0.1) ? next[1 + rng.int(next.length - 1)] : next[0]) as string)
        : "";
    const only2025 = !closed && naf2025 !== "" && rng.chance(0.01);
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
    set("activitePrincipaleEtablissement", only2025 ? "" : nafRev2);
    set("nomenclatureActivitePrincipaleEtablissement", only2025 ? "" : "NAFRev2");
    set("caractereEmployeurEtablissement", rng.pick(["O", "N"]));
    set("activitePrincipaleNAF25Etablissement", naf2025);
    if (naf2025) mix.withNaf2025 += 1;
    if (only2025) mix.naf2025Only += 1;
    if (!closed && !hidden) {
      mix.activePublic += 1;
      if (tradeOf({ nafCode: only2025 ? naf2025 : nafRev2, nafCode2025: naf2025 || null })) mix.localCommerce += 1;
    }
    chunk += `${csvLine(ESTABLISHMENT_HEADER, values)}\r\n`;
    const person = rng.chance(0.4);
    unitChunk += `${csvLine(LEGAL_UNIT_HEADER, {
      siren,
      statutDiffusionUniteLegale: "O",
      dateCreationUniteLegale: `${rng.between(1960, 2024)}-0${rng.between(1, 9)}-0${rng.between(1, 9)}`,
      categorieJuridiqueUniteLegale: person ? "1000" : "5499",
      ...(person
        ? { prenomUsuelUniteLegale: rng.pick(["MARIE", "JEAN", "NADIA", "PAUL"]), nomUniteLegale: `NOM${index}` }
        : { denominationUniteLegale: `SOCIETE ${index}` }),
      etatAdministratifUniteLegale: "A",
    })}\r\n`;
    if (chunk.length > 1 << 20) {
      await write(chunk);
      await writeUnits(unitChunk);
      chunk = "";
      unitChunk = "";
    }
  }
  await write(chunk);
  await writeUnits(unitChunk);
  await new Promise<void>((resolve, reject) =>
    units.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
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
function importOnce(name: string, dataDir: string, ...more: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      jobArgv("jobs/import.ts", "sirene", "--etablissements", file, "--unites-legales", unitsFile, ...more, "--json"),
      {
        cwd: root,
        env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "warn" },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
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
// Next month's stock, the same rows: every still-active establishment is confirmed as of its date.
runs.push(await importOnce("the same rows as a newer stock (--file-date)", dataDir, "--file-date", "2030-01-01"));
const baseline = runs[0] as Run;

const lines = runs.map((run) => [
  run.name,
  run.wallSeconds,
  run.rowsPerSecond,
  round(run.wallSeconds / baseline.wallSeconds, 1),
  run.peakRssMb,
  run.report
    ? ["created", "updated", "archived", "confirmed", "unchanged"]
        .map((key) => `${key} ${run.report?.[key]}`)
        .join(", ")
    : "",
]);

const created = Number(runs[1]?.report?.created ?? 0);
const share = (part: number, whole: number) => `${whole === 0 ? 0 : round((100 * part) / whole, 1)} %`;
const report = [
  `# Import bench ${new Date().toISOString()}`,
  "",
  `${machineLine()}. ${rows} rows of StockEtablissement in INSEE's layout with both NAF columns (${round(statSync(file).size / 1e6, 1)} MB).`,
  "Targets (issue 9): 1,000,000 rows in under 2 minutes, RSS under 300 MB.",
  "",
  ...markdownTable(["run", "wall s", "rows/s", "x read-only", "peak RSS MB", "outcome"], lines),
  "",
  `NAF mix: ${share(mix.withNaf2025, rows)} of the rows carry a NAF 2025 code, ${mix.naf2025Only} only that one (rev. 2 column empty).`,
  `Local commerce: ${mix.localCommerce} of the ${mix.activePublic} active public rows (${share(mix.localCommerce, mix.activePublic)}) are of a trade of the table (NAF 2025 first); ${created} came in: ${share(created, mix.localCommerce)} (goal: 100 %).`,
  "",
].join("\n");
writeReport("import", report, { runs, mix, created });
if (!values.keep) rmSync(dir, { recursive: true, force: true });
