/**
 * node-postgres, loaded on first use: a process on the embedded SQLite store never loads it (about
 * 10 MB of memory and 30 ms of start per process, measured with `require("pg")` on Node 24).
 * Modules of the PostgreSQL store import its types only (`import type`), which cost nothing.
 */
import { createRequire } from "node:module";
import type pg from "pg";

let loaded: typeof pg | null = null;

export function postgresDriver(): typeof pg {
  loaded ??= createRequire(import.meta.url)("pg") as typeof pg;
  return loaded;
}
