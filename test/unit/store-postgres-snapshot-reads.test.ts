/**
 * The batch reads of the registry on PostgreSQL read one snapshot (src/store/postgres/
 * transaction.ts inOneSnapshot): the refresh's profile loader and the search engines' documents
 * read a batch's merchants, then their products (and more) in further statements. Here a write
 * (the merchant renamed and a product added, in one transaction) is made to commit right after the
 * merchants' statement answered and before the products' one is sent: the batch must describe the
 * store before the write, never the old name with the new product.
 */
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresPool } from "../../src/store/postgres/pool.ts";
import { createPostgresProfileLoader } from "../../src/store/postgres/publish-source.ts";
import { createPostgresSearchSource } from "../../src/store/postgres/search-source.ts";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres.ts";

let server: TestPostgres;
let writer: pg.Pool;
let reader: pg.Pool;
const AB_ID = "ab_snap0001";
const AT = new Date("2026-11-27T02:00:00.000Z");

beforeAll(async () => {
  server = await startTestPostgres();
  const url = await server.createDatabase();
  writer = openPostgresPool({ url, poolMax: 2, poolTimeoutMs: 5_000 });
  reader = openPostgresPool({ url, poolMax: 4, poolTimeoutMs: 5_000 });
  await writer.query(
    `INSERT INTO merchants (ab_id, siret, legal_name, business_name, slug, naf_code, sector, status, street, postal_code,
       city, zones, languages, founded_on, terrain_photos, same_as, created_at, updated_at, payment_setup)
     VALUES ($1, '73282932000074', 'Boulangerie Test SARL', 'Boulangerie Test', 'boulangerie-test', '10.71C', 'bakery',
       'ACTIVE', '1 rue de la Paix', '75002', 'Paris', '[]', '["fr"]', '2010-01-01', '[]', '[]',
       '2026-11-26T10:00:00.000Z', '2026-11-26T10:00:00.000Z', false)`,
    [AB_ID],
  );
}, 60_000);

afterAll(async () => {
  await reader?.end();
  await writer?.end();
  await server?.stop();
});

/** The write that lands between the reads: one transaction, the merchant renamed and a product added. */
async function renameAndAddProduct(name: string, productId: string): Promise<void> {
  const client = await writer.connect();
  try {
    await client.query("BEGIN");
    await client.query("UPDATE merchants SET business_name = $2, updated_at = $3 WHERE ab_id = $1", [
      AB_ID,
      name,
      "2026-11-27T01:00:00.000Z",
    ]);
    await client.query(
      `INSERT INTO products (product_id, brick_id, ab_id, slug, brick_type, name, description, pricing_model,
         inventory_status, tags, position, updated_at)
       VALUES ($1, $1, $2, $1, 'product', 'Baguette', 'La baguette du matin', 'fixed', 'in_stock', '[]', 0,
         '2026-11-27T01:00:00.000Z')`,
      [productId, AB_ID],
    );
    await client.query("COMMIT");
  } finally {
    client.release();
  }
}

/**
 * Makes `write` commit as soon as a statement matching `after` answered on `pool`, and holds every
 * statement matching `held` until then (on the pool's own query and on clients it hands out).
 */
function writeBetween(pool: pg.Pool, after: RegExp, held: RegExp, write: () => Promise<void>): () => void {
  let fired = false;
  let markWritten: () => void = () => undefined;
  const written = new Promise<void>((resolve) => {
    markWritten = resolve;
  });
  const wrap = (target: { query: (...args: unknown[]) => unknown }) => {
    const original = target.query;
    const wrapped = async function (this: unknown, ...args: unknown[]) {
      const [text] = args;
      if (typeof text !== "string" || typeof args.at(-1) === "function") return original.apply(this, args);
      if (held.test(text)) await written;
      const result = await original.apply(this, args);
      if (after.test(text) && !fired) {
        fired = true;
        await write();
        markWritten();
      }
      return result;
    };
    target.query = wrapped;
    return () => {
      target.query = original;
    };
  };
  const restorePool = wrap(pool as unknown as { query: (...args: unknown[]) => unknown });
  const originalConnect = pool.connect;
  const connectClient = originalConnect.bind(pool) as () => Promise<pg.PoolClient>;
  const restores: (() => void)[] = [];
  const connect = (...args: unknown[]) => {
    // The pool's own query() connects with a callback: left as it is (its query is wrapped above).
    if (args.length > 0) return (originalConnect as (...a: unknown[]) => unknown).apply(pool, args);
    return connectClient().then((client) => {
      restores.push(wrap(client as unknown as { query: (...args: unknown[]) => unknown }));
      return client;
    });
  };
  pool.connect = connect as unknown as typeof pool.connect;
  return () => {
    restorePool();
    pool.connect = originalConnect;
    for (const restore of restores) restore();
  };
}

describe("a batch read on PostgreSQL", () => {
  it("loads the refresh's profiles from one snapshot, whatever commits between its statements", async () => {
    const loader = createPostgresProfileLoader(reader);
    const restore = writeBetween(reader, /^SELECT \* FROM merchants /, /FROM products /, () =>
      renameAndAddProduct("Boulangerie Nouvelle", "prod-snap-1"),
    );
    let during: Awaited<ReturnType<typeof loader.load>>;
    try {
      during = await loader.load([AB_ID]);
    } finally {
      restore();
    }
    const profile = during.get(AB_ID);
    expect([profile?.merchant.businessName, profile?.products.map((product) => product.productId)]).toEqual([
      "Boulangerie Test",
      [],
    ]);
    // The next batch sees the write whole.
    const after = (await loader.load([AB_ID])).get(AB_ID);
    expect([after?.merchant.businessName, after?.products.map((product) => product.productId)]).toEqual([
      "Boulangerie Nouvelle",
      ["prod-snap-1"],
    ]);
  });

  it("reads the search engines' documents of a batch from one snapshot", async () => {
    const source = createPostgresSearchSource(reader);
    const before = await source.listedDocuments([AB_ID], AT);
    const restore = writeBetween(reader, /FROM merchants m LEFT JOIN territorial_proofs/, /FROM products /, () =>
      renameAndAddProduct("Boulangerie Troisième", "prod-snap-2"),
    );
    let during: Awaited<ReturnType<typeof source.listedDocuments>>;
    try {
      during = await source.listedDocuments([AB_ID], AT);
    } finally {
      restore();
    }
    expect(during).toEqual(before);
    const after = await source.listedDocuments([AB_ID], AT);
    expect(after).not.toEqual(before);
    expect(JSON.stringify(after)).toContain("boulangerie troisieme");
    expect(JSON.stringify(after)).toContain("prod-snap-2");
  });
});
