/**
 * The README's shell examples, run as a reader pastes them: in a copy of the project (its files as
 * git lists them, the installed node_modules and the built dist/), against the server `npm start`
 * starts there on a fresh DATA_DIR (./data/runtime, the default: the demo registry of the default
 * seed and size), one command after the other in one bash session (a variable set in one block is
 * there in the next), in a reader's environment (PATH without node_modules/.bin, none of this
 * project's settings). The one change: the port, `localhost:4321` in the text, is a free one.
 *
 * Each command must exit 0, leave no file in the project (what a server writes goes under
 * data/runtime, which git ignores), and answer what its comment says: an envelope with success
 * true, or the error code the comment names. Blocks that only start services (the install and
 * `npm start`, Meilisearch, servers with an embedder) are not run: this test starts the server
 * itself, and test/integration/search-meilisearch.test.ts runs Meilisearch; they are listed here
 * by their first line, and a block that starts a service anywhere else fails the test.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobArgv } from "../../jobs/compile-cache.ts";
import { freePort } from "../helpers/spawn-start.ts";
import { requireProgram } from "../helpers/system-programs.ts";
import type { JsonObject } from "../helpers/test-server.ts";

const root = path.resolve(import.meta.dirname, "../..");

/** Blocks that only start services, by their first line, and why they are not run here. */
const SERVICE_BLOCKS: Record<string, string> = {
  "npm install && npm start   # builds, seeds the demo registry if empty, serves http://localhost:4321":
    "the install and the server this test starts itself (and npm test, which runs this test)",
  "npm run meili                                   # Meilisearch on 127.0.0.1:7700, data in DATA_DIR/meilisearch":
    "Meilisearch and a server in the foreground (test/integration/search-meilisearch.test.ts runs them)",
  "# stems and pieces of words, no model:": "servers in the foreground, with an embedder",
};
const STARTS_A_SERVICE = /\bnpm (start|test)\b|\bnpm run meili\b/;

interface Command {
  block: number;
  text: string;
}

interface Ran extends Command {
  status: number;
  stdout: string;
  stderr: string;
}

/** The ```sh blocks of the README, in order. */
function shellBlocks(readme: string): string[] {
  return [...readme.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1] as string);
}

/** The commands of a block: a line, with the lines a trailing backslash continues it on; no blank or comment lines. */
function commandsOf(block: string): string[] {
  const commands: string[] = [];
  let current = "";
  for (const line of block.split("\n")) {
    current = current ? `${current}\n${line}` : line;
    if (line.endsWith("\\")) continue;
    if (current.trim() !== "" && !current.trim().startsWith("#")) commands.push(current);
    current = "";
  }
  return commands;
}

/** The project's files as git lists them (tracked, and new ones it does not ignore). */
function projectFiles(): string[] {
  return execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: root })
    .toString()
    .split("\0")
    .filter((file) => file !== "" && existsSync(path.join(root, file)));
}

/** Every file under a folder, as relative paths; node_modules, dist and data/runtime left out. */
function filesUnder(dir: string, prefix = ""): string[] {
  const skipped = new Set(["node_modules", "dist", "data/runtime", ".git"]);
  return readdirSync(dir).flatMap((name) => {
    const relative = prefix ? `${prefix}/${name}` : name;
    if (skipped.has(relative)) return [];
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full, relative) : [relative];
  });
}

/** A reader's environment: their PATH (without this project's node_modules/.bin) and home, nothing of ours. */
function readersEnvironment(): Record<string, string> {
  const pathDirs = (process.env.PATH ?? "").split(":").filter((dir) => !dir.includes(`node_modules${path.sep}.bin`));
  return {
    PATH: pathDirs.join(":"),
    HOME: process.env.HOME ?? os.homedir(),
    LANG: process.env.LANG ?? "C.UTF-8",
  };
}

const readme = readFileSync(path.join(root, "README.md"), "utf8");
const blocks = shellBlocks(readme);
const runnable = blocks
  .map((text, index) => ({ text, index }))
  .filter(({ text }) => !((text.split("\n")[0] ?? "") in SERVICE_BLOCKS));
const commands: Command[] = runnable.flatMap(({ text, index }) =>
  commandsOf(text).map((command) => ({ block: index, text: command })),
);

let copy: string;
let port: number;
let server: ChildProcess | null = null;
let serverOutput = "";
let filesBefore: string[];
const ran: Ran[] = [];

beforeAll(async () => {
  for (const program of ["curl", "bash", "git"]) requireProgram(program, program);
  copy = mkdtempSync(path.join(os.tmpdir(), "abeille-readme-"));
  for (const file of projectFiles()) {
    mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    cpSync(path.join(root, file), path.join(copy, file));
  }
  symlinkSync(path.join(root, "node_modules"), path.join(copy, "node_modules"));
  cpSync(path.join(root, "dist"), path.join(copy, "dist"), { recursive: true });
  filesBefore = filesUnder(copy);

  // `npm start` after its build: the defaults but for the port; one server process and no
  // publication run at start, to spare the machine (neither changes what the examples answer).
  port = await freePort();
  const base = `http://localhost:${port}`;
  server = spawn(process.execPath, jobArgv(path.join(copy, "jobs/start.ts")), {
    cwd: copy,
    env: { ...readersEnvironment(), PORT: String(port), SERVER_PROCESSES: "1", REFRESH_ON_START: "false" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stdout?.on("data", (chunk: Buffer) => {
    serverOutput += chunk.toString();
  });
  server.stderr?.on("data", (chunk: Buffer) => {
    serverOutput += chunk.toString();
  });
  const deadline = Date.now() + 240_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`the server exited:\n${serverOutput}`);
    if (Date.now() > deadline) throw new Error(`the server did not answer within 240 s:\n${serverOutput}`);
    const healthy = await fetch(`${base}/api/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }

  // One bash session, each command as pasted (the port aside), its status and stderr kept apart.
  const errors = path.join(copy, "..", `${path.basename(copy)}-stderr`);
  mkdirSync(errors);
  const script = commands
    .map(
      (command, index) =>
        `{ ${command.text.replaceAll("localhost:4321", `localhost:${port}`)}\n} 2>"${errors}/${index}"\nprintf '\\n@@@ %d %d\\n' ${index} "$?"\n`,
    )
    .join("");
  writeFileSync(path.join(errors, "script.sh"), script);
  const output = await new Promise<string>((resolve, reject) => {
    const shell = spawn("bash", [path.join(errors, "script.sh")], {
      cwd: copy,
      env: readersEnvironment(),
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    shell.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    shell.on("error", reject);
    shell.on("exit", () => resolve(stdout));
  });
  const parts = output.split(/\n@@@ (\d+) (\d+)\n/);
  for (let at = 1; at < parts.length; at += 3) {
    const index = Number(parts[at]);
    ran.push({
      ...(commands[index] as Command),
      stdout: parts[at - 1] as string,
      status: Number(parts[at + 1]),
      stderr: readFileSync(path.join(errors, String(index)), "utf8"),
    });
  }
  rmSync(errors, { recursive: true, force: true });
}, 600_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server?.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  }
  if (copy) rmSync(copy, { recursive: true, force: true });
});

/** What a command's trailing comment says it answers: an error code in capitals, or nothing. */
const expectedError = (command: string) => /#[^\n]*\b\d{3} ([A-Z_]{4,})\b/.exec(command)?.[1] ?? null;

describe("the README's shell examples", () => {
  it("are every sh block but those that only start services, which are listed", () => {
    const services = blocks.filter((text) => (text.split("\n")[0] ?? "") in SERVICE_BLOCKS);
    expect(services.map((text) => text.split("\n")[0])).toEqual(Object.keys(SERVICE_BLOCKS));
    for (const { text } of runnable) expect(text).not.toMatch(STARTS_A_SERVICE);
    expect(commands.length).toBeGreaterThan(30);
  });

  it("all run, each exiting 0, as pasted on a fresh DATA_DIR", () => {
    expect(ran.map((command) => command.text)).toEqual(commands.map((command) => command.text));
    for (const command of ran) {
      expect({ command: command.text, status: command.status, stderr: command.stderr }).toEqual({
        command: command.text,
        status: 0,
        stderr: expect.not.stringMatching(/command not found|No such file|^\s+at |Error:/m),
      });
    }
  });

  it("answer what they say: success, or the error code their comment names", () => {
    let envelopes = 0;
    for (const command of ran) {
      const text = command.stdout.trim();
      if (!text.startsWith("{")) continue;
      const body = JSON.parse(text) as { success?: boolean; error?: { code: string }; result?: unknown };
      if (body.success === undefined) continue;
      envelopes += 1;
      const code = expectedError(command.text);
      expect([command.text, body.success, body.error?.code ?? null]).toEqual([command.text, code === null, code]);
    }
    expect(envelopes).toBeGreaterThanOrEqual(10);
  });

  it("find the demo merchant the SIRET example names, and the registered key verifies", () => {
    const json = (fragment: string) =>
      JSON.parse(ran.find((command) => command.text.includes(fragment))?.stdout ?? "null") as JsonObject;
    const bySiret = json("q=658%20955%20604%2000272");
    const resolved = json('curl "http://localhost:4321/api/registry/resolve/$AB_ID"');
    expect(resolved.merchant.siret).toBe("65895560400272");
    expect(bySiret.results[0].merchant.ab_id).toBe(resolved.merchant.ab_id);
    const key = ran.find((command) => command.text.startsWith('echo "$ABEILLE_KEY"'));
    expect(key?.stdout.trim()).toMatch(/^abk_[A-Za-z0-9]{40}$/);
    const checks = ran.filter((command) => command.text.startsWith("npm run verify-manifest"));
    expect(checks.map((check) => /^VALID$/m.test(check.stdout))).toEqual([true, true]);
    const emails = ran.find((command) => command.text.startsWith("until ls data/runtime/outbox/*.eml"));
    expect(emails?.stdout).toMatch(/^data\/runtime\/outbox\/.+\.eml$/m);
  });

  it("leave no file in the project outside data/runtime", () => {
    expect(filesUnder(copy)).toEqual(filesBefore);
  });
});
