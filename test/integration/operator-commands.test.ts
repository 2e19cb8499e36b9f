/**
 * Every operator command as an operator meets it first (jobs/cli.ts): `--help` prints the usage
 * and the exit statuses and does nothing else (not even create DATA_DIR); an unknown option is
 * one line and exit status 2; the exit statuses are the same in `--help`, in the command's header
 * and in the README. Then what `npm run merchants`, `npm run import` and `npm run search` say
 * when something is wrong, or long.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { jobArgv } from "../../jobs/compile-cache.ts";
import { legalUnitsFileOf, writeStockFile } from "../helpers/generated-stock.ts";

const exec = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const work = mkdtempSync(path.join(os.tmpdir(), "abeille-operator-commands-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Finished {
  code: number;
  stdout: string;
  stderr: string;
}

/** The npm scripts that run an operator command, and the job file each runs (test/unit/job-scripts.test.ts lists them). */
const scripts = (
  JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }
).scripts;
const COMMANDS = Object.entries(scripts)
  .map(([name, command]) => ({ name, job: /node [^&]* (jobs\/[a-z-]+\.ts)( --[a-z-]+)*$/.exec(command)?.[1] }))
  .filter((entry): entry is { name: string; job: string } => entry.job !== undefined);

/** How the README and --help name a command: `npm start`, `npm run <name>`. */
const invocation = (name: string) => (name === "start" ? "npm start" : `npm run ${name}`);

async function run(file: string, args: string[], env: Record<string, string>): Promise<Finished> {
  try {
    const { stdout, stderr } = await exec(file, args, {
      cwd: root,
      env: { ...process.env, BASE_URL: "http://abeille.test", LOG_LEVEL: "warn", ...env },
      maxBuffer: 16 * 1024 * 1024,
      // A command that ran instead of printing its help (a server started) is stopped, not left behind.
      timeout: 25_000,
      killSignal: "SIGTERM",
    });
    return { code: 0, stdout, stderr };
  } catch (failure) {
    const { code, stdout, stderr } = failure as Finished;
    return { code, stdout, stderr };
  }
}

/** Runs a job as its npm script does, on a DATA_DIR. */
const job = (script: string, args: string[], dataDir: string) =>
  run(process.execPath, jobArgv(path.join(root, script), ...args), { DATA_DIR: dataDir });

/** The `  N  meaning` lines of a help text's exit statuses. */
function exitStatuses(help: string): [number, string][] {
  const section = help.split("\nexit status:\n")[1] ?? "";
  return section
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const match = /^ {2}(\d+) {2}(.+)$/.exec(line);
      if (!match) throw new Error(`not an exit status line: ${JSON.stringify(line)}`);
      return [Number(match[1]), match[2] as string];
    });
}

describe("every operator command", () => {
  const readme = readFileSync(path.join(root, "README.md"), "utf8");
  for (const { name, job: script } of COMMANDS) {
    it(`${invocation(name)}: --help prints the usage and exit statuses, runs nothing; an unknown option is one line, exit 2`, async () => {
      const dataDir = path.join(work, `never-${name}`);
      const help = await job(script, ["--help"], dataDir);
      expect([help.code, help.stderr]).toEqual([0, ""]);
      expect(help.stdout.startsWith(`usage: ${invocation(name)}`)).toBe(true);
      const statuses = exitStatuses(help.stdout);
      expect(statuses.map(([status]) => status)).toContain(0);
      expect(statuses).toContainEqual([
        2,
        expect.stringMatching(name === "verify-manifest" ? /^the check could not run/ : /^usage: /),
      ]);
      // Nothing ran: not even the data folder was made.
      expect(existsSync(dataDir)).toBe(false);

      const unknown = await job(script, ["--no-such-option"], dataDir);
      expect(unknown).toEqual({
        code: 2,
        stdout: "",
        stderr: `${name}: unknown option --no-such-option (npm run ${name} -- --help prints the usage)\n`,
      });
      expect(existsSync(dataDir)).toBe(false);

      // The same statuses in the header of the command's file and in the README's table.
      const source = readFileSync(path.join(root, script), "utf8");
      const header = source.slice(0, source.indexOf("\n */") + 1);
      for (const [status, meaning] of statuses) expect(header).toContain(` *   ${status}  ${meaning}\n`);
      const row = readme.split("\n").find((line) => line.startsWith(`| \`${invocation(name)}\` |`));
      expect(row).toBe(
        `| \`${invocation(name)}\` | ${statuses.map(([status, meaning]) => `${status} ${meaning}`).join("; ")} |`,
      );
    });
  }

  it("npm run retention -- --help, through npm, prints the usage and anonymises nothing", async () => {
    const dataDir = path.join(work, "never-retention-npm");
    const { code, stdout, stderr } = await run("npm", ["run", "-s", "retention", "--", "--help"], {
      DATA_DIR: dataDir,
    });
    expect([code, stderr]).toEqual([0, ""]);
    expect(stdout).toMatch(/^usage: npm run retention\n/);
    expect(existsSync(dataDir)).toBe(false);
  });

  it("npm start -- --help, through npm, prints the usage without building or serving", async () => {
    const dataDir = path.join(work, "never-start-npm");
    const entry = path.join(root, "dist", "server", "entry.mjs");
    const builtAt = existsSync(entry) ? statSync(entry).mtimeMs : null;
    const { code, stdout, stderr } = await run("npm", ["start", "-s", "--", "--help"], { DATA_DIR: dataDir });
    expect([code, stderr]).toEqual([0, ""]);
    expect(stdout).toMatch(/^usage: npm start\n/);
    expect(existsSync(dataDir)).toBe(false);
    // The bundle was not built again (astro build rewrites its entry).
    expect(existsSync(entry) ? statSync(entry).mtimeMs : null).toBe(builtAt);
  });
});

describe("npm run merchants, when something is wrong", () => {
  const dataDir = path.join(work, "merchants");
  const declaration = {
    siret: "12345678200010",
    legal_name: "SARL Boulangerie Martin",
    business_name: "Boulangerie Martin",
    naf_code: "10.71C",
    address: { street: "12 rue de la République", postal_code: "69002", city: "Lyon" },
    founded_on: "2015-03-02",
  };
  const file = (name: string, content: unknown) => {
    const at = path.join(work, name);
    writeFileSync(at, JSON.stringify(content));
    return at;
  };
  const merchants = (...args: string[]) => job("jobs/merchants.ts", [...args, "--actor", "operator:test"], dataDir);

  it("says each fault once, a missing file in words, takes the add file as an update and any case of a status", async () => {
    const wrongSiret = await merchants("add", file("wrong-siret.json", { ...declaration, siret: "12345678200011" }));
    expect(wrongSiret).toEqual({
      code: 1,
      stdout: "",
      stderr: "merchants: VALIDATION_ERROR: siret: is not a valid SIRET (its check digit is wrong)\n",
    });
    const { legal_name: _legalName, ...withoutName } = declaration;
    expect((await merchants("add", file("no-name.json", withoutName))).stderr).toBe(
      "merchants: VALIDATION_ERROR: legal_name: is required\n",
    );
    const missing = path.join(work, "absent.json");
    expect(await merchants("add", missing)).toEqual({
      code: 1,
      stdout: "",
      stderr: `merchants: ${missing}: no such file (ENOENT)\n`,
    });
    expect((await merchants("import", path.join(work, "absent.ndjson"))).stderr).toBe(
      `merchants: ${path.join(work, "absent.ndjson")}: no such file (ENOENT)\n`,
    );

    const addFile = file("martin.json", declaration);
    const added = await merchants("add", addFile, "--json");
    expect([added.code, added.stderr]).toEqual([0, ""]);
    const { abId } = JSON.parse(added.stdout) as { abId: string };
    // The file add took is an update that changes nothing; with a new description, it changes that.
    expect(await merchants("update", abId, addFile)).toEqual({
      code: 0,
      stdout: `${abId} unchanged (revision 1)\n`,
      stderr: "",
    });
    const edited = await merchants(
      "update",
      abId,
      file("martin-2.json", { ...declaration, description: "Pain au levain." }),
    );
    expect(edited.stdout).toBe(`${abId} updated: description, descriptionLlmUnreviewed (revision 2)\n`);
    // Another SIRET is another establishment; a field an update does not know says which it may change.
    expect(
      (await merchants("update", abId, file("other.json", { ...declaration, siret: "73282932000074" }))).stderr,
    ).toBe(
      `merchants: VALIDATION_ERROR: siret: is 12345678200010 for this merchant and never changes (another SIRET is another establishment: add it)\n`,
    );
    expect(
      (
        await merchants(
          "update",
          abId,
          file("typo.json", { descripton: "Pain.", email: "contact@boulangerie-martin.fr" }),
        )
      ).stderr,
    ).toBe(
      'merchants: VALIDATION_ERROR: (declaration): "descripton": not a field an update may change (legal_name, business_name, naf_code, address, rcs, vat_number, email, phone, website, description, hours, hours_exceptions, zones, languages, delivery, brand_voice, founded_on, products)\n',
    );

    // A status in small letters is the same status; one that does not exist is a usage error.
    expect(await merchants("status", abId, "suspended", "--reason", "contrôle")).toEqual({
      code: 0,
      stdout: `${abId} PROBATION -> SUSPENDED (revision 3)\n`,
      stderr: "",
    });
    expect(await merchants("status", abId, "closed")).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "merchants: <STATUS> must be one of PROBATION, ACTIVE, PAUSED, SUSPENDED, ARCHIVED, not closed (npm run merchants -- --help prints the usage)\n",
    });
    expect((await merchants("list", "--status", "suspended")).stdout).toMatch(new RegExp(`^${abId}  SUSPENDED `));
  }, 60_000);
});

describe("npm run search -- status", () => {
  it("says not_built, not building, when no build has run and none is under way", async () => {
    const dataDir = path.join(work, "search-status");
    const status = await job("jobs/search.ts", ["status"], dataDir);
    expect([status.code, status.stderr]).toEqual([0, ""]);
    expect(JSON.parse(status.stdout)).toEqual({ engine: "embedded", state: "not_built", lag: null, fallback: null });
    await job("jobs/search.ts", ["rebuild"], dataDir);
    expect(JSON.parse((await job("jobs/search.ts", ["status"], dataDir)).stdout)).toMatchObject({ state: "ready" });
  }, 30_000);
});

describe("npm run import on a terminal", () => {
  it("draws a bar of the bytes read against the files' total size, with the percentage", async () => {
    const stock = path.join(work, "StockEtablissement.csv");
    const { expected } = writeStockFile(stock, 3_000);
    const units = legalUnitsFileOf(stock);
    const total = 2 * statSync(stock).size + statSync(units).size;
    const command = [
      process.execPath,
      ...jobArgv(path.join(root, "jobs/import.ts"), "sirene", "--etablissements", stock, "--unites-legales", units),
    ]
      .map((part) => `'${part}'`)
      .join(" ");
    // `script` (util-linux) runs the import on a pseudo-terminal, as an operator's shell does.
    const { code, stdout } = await run("script", ["-qec", command, "/dev/null"], {
      DATA_DIR: path.join(work, "import-tty"),
    });
    expect(code).toBe(0);
    const size = `${(total / 1e6).toFixed(1)} MB`;
    // Each drawing starts with a carriage return and ends with the seconds and "erase to the end of line".
    const drawn = stdout.split("\r").map((line) => line.split("\x1b[K")[0]?.replace(/ {2}[\d.]+s$/, ""));
    expect(drawn).toContain(
      `import sirene [##############################] 100% ${size} of ${size}, 3,000 rows, ${expected.size.toLocaleString("en-US")} added`,
    );
    expect(stdout).toMatch(/^3000 rows: /m);
  }, 60_000);
});
