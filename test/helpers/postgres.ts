/**
 * A throwaway PostgreSQL for the tests: Debian's postgresql-15 binaries (.ci/run installs them;
 * never the Debian cluster service), `initdb` into a temporary folder, `postgres` on a free
 * loopback port and a unix socket in that folder, trust authentication, no fsync. As the
 * unprivileged `postgres` user when the tests run as root (initdb refuses root), as the current
 * user otherwise. Never skipped: missing binaries fail, saying which package to install.
 *
 * `createDatabase()` hands each caller its own database, copied from a template migrated once
 * (`CREATE DATABASE x TEMPLATE abeille_template`); `createEmptyDatabase()` one with no tables.
 *
 * No orphan server: postgres runs under a small shell watchdog whose stdin is a pipe from this
 * process. stop() closes the pipe; so does the kernel when this process dies, however it dies
 * (a crash, SIGKILL, a timed-out worker): the watchdog then stops postgres at once (SIGQUIT,
 * immediate shutdown) and removes the folder.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { Socket } from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { applyPostgresMigrations } from "../../src/store/postgres/migrate.ts";
import { freePort } from "./spawn-start.ts";
import { requireProgram } from "./system-programs.ts";

const BIN = "/usr/lib/postgresql/15/bin";
const SUPERUSER = "postgres";
const TEMPLATE = "abeille_template";

export interface TestPostgres {
  port: number;
  /** The folder holding the cluster (data/, the socket, postgres.log); gone after stop(). */
  folder: string;
  /** The postmaster's process id (another one after restart()). */
  readonly pid: number;
  /** The URL of one of this server's databases (the superuser's, trust authentication). */
  url(database: string): string;
  /** A new database with the store's tables (every PostgreSQL migration applied); its URL. */
  createDatabase(name?: string): Promise<string>;
  /** A new database with no tables, for the tests of the migrations themselves; its URL. */
  createEmptyDatabase(name?: string): Promise<string>;
  /**
   * Stops the server as an operator's restart would (a fast shutdown: sessions ended, data kept)
   * and resolves once it is gone; `resume()` brings it back on the same port with the same data.
   */
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

interface RunAs {
  uid: number;
  gid: number;
}

/** Root cannot run initdb: the cluster belongs to Debian's `postgres` system user. */
function unprivilegedUser(): RunAs | null {
  if (process.getuid?.() !== 0) return null;
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith(`${SUPERUSER}:`));
  const [, , uid, gid] = line?.split(":") ?? [];
  if (uid === undefined || gid === undefined)
    throw new Error(
      "the tests run PostgreSQL as the postgres user when run as root: Debian's postgresql-15 creates it (sudo apt-get install postgresql-15)",
    );
  return { uid: Number(uid), gid: Number(gid) };
}

function run(program: string, args: string[], runAs: RunAs | null, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      cwd,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C" },
      stdio: ["ignore", "pipe", "pipe"],
      ...(runAs ?? {}),
    });
    let output = "";
    child.stdout?.on("data", (data: Buffer) => {
      output += data.toString();
    });
    child.stderr?.on("data", (data: Buffer) => {
      output += data.toString();
    });
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve(output) : reject(new Error(`${path.basename(program)} exited with ${code}: ${output}`)),
    );
  });
}

/*
 * The watchdog: starts postgres in the background, then reads commands from its stdin: `stop`
 * (a fast shutdown, the folder kept) and `start` (again, on the same port and data), for the tests
 * of a database that goes away and comes back. When stdin closes it stops postgres at once
 * (immediate shutdown) and removes the folder. `$1` postgres, `$2` data directory, `$3` folder,
 * `$4` port.
 */
const WATCHDOG = `
start() {
  "$1" -D "$2" -p "$4" -k "$3" -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off \\
    -c full_page_writes=off -c max_connections=200 -c shared_buffers=32MB </dev/null >>"$3/postgres.log" 2>&1 &
  pg=$!
}
start "$@"
while read -r command; do
  case "$command" in
    stop) kill -INT "$pg" 2>/dev/null; wait "$pg" ;;
    start) start "$@" ;;
  esac
done
kill -QUIT "$pg" 2>/dev/null
wait "$pg"
rm -rf "$3"
`;

async function accepts(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
  });
}

let databases = 0;

/** Another program took the free port between freePort() and postgres's bind. */
class PortTaken extends Error {}

export async function startTestPostgres(): Promise<TestPostgres> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnce();
    } catch (error) {
      if (!(error instanceof PortTaken) || attempt === 3) throw error;
    }
  }
}

async function startOnce(): Promise<TestPostgres> {
  const initdb = requireProgram(`${BIN}/initdb`, "postgresql-15");
  const postgres = requireProgram(`${BIN}/postgres`, "postgresql-15");
  const runAs = unprivilegedUser();
  const folder = mkdtempSync(path.join(os.tmpdir(), "abeille-pg-"));
  if (runAs) chownSync(folder, runAs.uid, runAs.gid);
  const dataDir = path.join(folder, "data");
  try {
    // C locale: text orders byte by byte, as SQLite's BINARY collation (src/store/postgres/migrate.ts).
    await run(
      initdb,
      [
        "-D",
        dataDir,
        "-U",
        SUPERUSER,
        "--auth=trust",
        "--no-locale",
        "--encoding=UTF8",
        "--no-sync",
        "--no-instructions",
      ],
      runAs,
      folder,
    );
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }

  const port = await freePort();
  const running = spawn("/bin/sh", ["-c", WATCHDOG, "abeille-pg-watchdog", postgres, dataDir, folder, String(port)], {
    cwd: folder,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C" },
    stdio: ["pipe", "ignore", "ignore"],
    detached: true,
    ...(runAs ?? {}),
  });
  // Neither keeps this process alive: a test file that never calls stop() still ends, and its
  // end closes the pipe.
  running.unref();
  (running.stdin as Socket | null)?.unref();
  const started = await waitUntilReady(`postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`, folder, 0);
  if (started !== "ready") {
    running.ref();
    running.stdin?.end();
    await exited(running);
    rmSync(folder, { recursive: true, force: true });
    if (started === "port taken") throw new PortTaken();
    throw new Error(`PostgreSQL did not start: ${started}`);
  }

  const url = (database: string) => `postgres://${SUPERUSER}@127.0.0.1:${port}/${database}`;
  const postmasterPid = () => Number(readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  let pid = postmasterPid();
  // One short connection per statement: it survives a pause() that a kept one would not.
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: url("postgres") });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };

  let template: Promise<void> | null = null;
  const migrateTemplate = async () => {
    await admin(`CREATE DATABASE ${TEMPLATE}`);
    const pool = new pg.Pool({ connectionString: url(TEMPLATE), max: 1 });
    try {
      await applyPostgresMigrations(pool);
    } finally {
      await pool.end();
    }
  };
  const nameFor = (name: string | undefined) => {
    databases += 1;
    const chosen = name ?? `abeille_${process.pid}_${databases}`;
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(chosen)) throw new Error(`not a database name for the tests: ${chosen}`);
    return chosen;
  };
  const isRunning = (candidate: number) => {
    try {
      process.kill(candidate, 0);
      return true;
    } catch (error) {
      // EPERM: it runs, as the postgres user.
      return (error as NodeJS.ErrnoException).code === "EPERM";
    }
  };

  return {
    port,
    folder,
    get pid() {
      return pid;
    },
    url,
    async createDatabase(name) {
      template ??= migrateTemplate();
      await template;
      const database = nameFor(name);
      await admin(`CREATE DATABASE ${database} TEMPLATE ${TEMPLATE}`);
      return url(database);
    },
    async createEmptyDatabase(name) {
      const database = nameFor(name);
      await admin(`CREATE DATABASE ${database}`);
      return url(database);
    },
    async pause() {
      running.stdin?.write("stop\n");
      const deadline = Date.now() + 30_000;
      while (isRunning(pid)) {
        if (Date.now() > deadline) throw new Error("PostgreSQL did not stop within 30 s");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async resume() {
      const logFile = path.join(folder, "postgres.log");
      const logged = existsSync(logFile) ? readFileSync(logFile, "utf8").length : 0;
      running.stdin?.write("start\n");
      const started = await waitUntilReady(url("postgres"), folder, logged);
      if (started !== "ready") throw new Error(`PostgreSQL did not start again: ${started}`);
      pid = postmasterPid();
    },
    async stop() {
      // Referenced again, so that this process waits for the folder to be gone.
      running.ref();
      running.stdin?.end();
      await exited(running);
    },
  };
}

/** Polls until postgres accepts connections, reading what its log says past `logged` characters. */
async function waitUntilReady(url: string, folder: string, logged: number): Promise<"ready" | "port taken" | string> {
  const log = () => {
    const file = path.join(folder, "postgres.log");
    return existsSync(file) ? readFileSync(file, "utf8").slice(logged) : "";
  };
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (await accepts(url)) return "ready";
    const written = log();
    if (/could not bind|Address already in use/.test(written)) return "port taken";
    if (/FATAL|PANIC/.test(written) && !/the database system is starting up/.test(written))
      return written.slice(-2_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return `not accepting connections within 30 s: ${log().slice(-2_000)}`;
}
