/**
 * An identifier searched (SIRET, SIREN, ab_id) reads the few rows its key names from the store
 * (src/search/source.ts identifierSql), whatever the registry's size: SQLite's planner, without
 * statistics (a store never ANALYZEd: an import's), chose the status index for the plain
 * `status IN (...)` and read every listed merchant to find one SIRET (1 s at 5.17 million).
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { identifierStatement } from "../../src/search/source.ts";
import { openDatabase } from "../../src/store/db.ts";

const dir = mkdtempSync(path.join(os.tmpdir(), "abeille-identifier-plan-"));
const db = openDatabase(path.join(dir, "abeille.db"));
afterAll(() => {
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

const plan = (statement: { sql: string; params: Record<string, string> }) =>
  db.$client
    .prepare(`EXPLAIN QUERY PLAN ${statement.sql}`)
    .all(statement.params)
    .map((row) => (row as { detail: string }).detail);

describe("an identifier's statement on SQLite", () => {
  it("walks the SIRET index for a SIRET or a SIREN, the primary key for an ab_id", () => {
    const bySiret = [
      "SEARCH merchants USING INDEX merchants_siret (siret>? AND siret<?)",
      "USE TEMP B-TREE FOR ORDER BY",
    ];
    expect(plan(identifierStatement({ kind: "siret", value: "12345678200010" }, "sqlite"))).toEqual(bySiret);
    expect(plan(identifierStatement({ kind: "siren", value: "123456782" }, "sqlite"))).toEqual(bySiret);
    expect(plan(identifierStatement({ kind: "ab_id", value: "ab_test0001" }, "sqlite"))).toEqual([
      "SEARCH merchants USING INDEX sqlite_autoindex_merchants_1 (ab_id=?)",
    ]);
  });
});
