/**
 * The pieces of the SQLite-to-PostgreSQL copy (src/store/postgres/copy.ts) that need no registry:
 * the plan follows the schema (every table, in foreign-key order) and the array literals the
 * batches are sent as come back from a real PostgreSQL as the values they were made of.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getTableConfig } from "../../src/store/drizzle.ts";
import { arrayLiteral, copyPlan } from "../../src/store/postgres/copy.ts";
import { sqliteTables } from "../../src/store/postgres/derive-schema.ts";
import { getPgTableConfig } from "../../src/store/postgres/drizzle.ts";
import * as postgresSchema from "../../src/store/postgres/schema.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";

describe("copyPlan", () => {
  const plan = copyPlan();

  it("has every table of the schema, each with every column, and fills a table after the ones it references", () => {
    const sqliteNames = sqliteTables().map(({ table }) => getTableConfig(table).name);
    expect(plan.map((table) => table.name).sort()).toEqual([...sqliteNames].sort());
    const position = new Map(plan.map((table, index) => [table.name, index]));
    for (const value of Object.values(postgresSchema)) {
      const config = getPgTableConfig(value as never);
      expect(plan.find((table) => table.name === config.name)?.columns.map((column) => column.name)).toEqual(
        config.columns.map((column) => column.name),
      );
      for (const foreignKey of config.foreignKeys) {
        const referenced = getPgTableConfig(foreignKey.reference().foreignTable).name;
        expect(position.get(referenced), `${config.name} -> ${referenced}`).toBeLessThan(
          position.get(config.name) as number,
        );
      }
    }
  });

  it("knows the identity columns (SQLite's INTEGER PRIMARY KEYs) whose sequences it moves", () => {
    expect(plan.filter((table) => table.identity !== null).map((table) => `${table.name}.${table.identity}`)).toEqual([
      "merchant_changes.seq",
      "merchant_events.event_id",
      "store_revision.id",
      "trust_sweeps.id",
    ]);
  });
});

describe("arrayLiteral", () => {
  let postgres: TestPostgres;
  let client: pg.Client;
  beforeAll(async () => {
    postgres = await startTestPostgres();
    client = new pg.Client({ connectionString: await postgres.createEmptyDatabase() });
    await client.connect();
  }, 60_000);
  afterAll(async () => {
    await client?.end();
    await postgres?.stop();
  });

  it("comes back from PostgreSQL as the values it was made of, whatever the text holds", async () => {
    const texts = [
      '{"a":"b \\"c\\"","d":"\\\\n"}',
      "back\\slash",
      'quote"',
      "",
      "NULL",
      null,
      "comma, {brace} 'single'",
      "é ✓ 🐝\nnewline\ttab",
    ];
    const text = await client.query<{ value: (string | null)[] }>("SELECT $1::text[] AS value", [arrayLiteral(texts)]);
    expect(text.rows[0]?.value).toEqual(texts);

    const integers = await client.query<{ value: string[] }>("SELECT $1::bigint[]::text[] AS value", [
      arrayLiteral([9_007_199_254_740_993n, -1n, 0, null]),
    ]);
    expect(integers.rows[0]?.value).toEqual(["9007199254740993", "-1", "0", null]);

    const booleans = await client.query<{ value: (boolean | null)[] }>("SELECT $1::boolean[] AS value", [
      arrayLiteral([true, false, null]),
    ]);
    expect(booleans.rows[0]?.value).toEqual([true, false, null]);

    const doubles = await client.query<{ value: number[] }>("SELECT $1::double precision[] AS value", [
      arrayLiteral([0.1, 4.35, -1e-7, 1e21, 45.764043]),
    ]);
    expect(doubles.rows[0]?.value).toEqual([0.1, 4.35, -1e-7, 1e21, 45.764043]);
  });
});
