/**
 * The search engines' reads of the registry on PostgreSQL (SearchSource, src/search/source.ts):
 * the same columns, rows and order as the SQLite store's, ids as one array parameter. ab_ids are
 * ordered byte-wise (COLLATE "C"), as SQLite orders text, whatever the database's collation.
 * A read of several statements (a batch the embedded index or Meilisearch applies, a full build)
 * runs in one REPEATABLE READ transaction: every statement of it reads the same snapshot.
 */
import type pg from "pg";
import type { MerchantRow, ProductRow, SignalRow } from "../../search/embedded/documents.ts";
import type { Identifier } from "../../search/query.ts";
import {
  byTrust,
  groupBy,
  identifierStatement,
  LISTED_COUNT_SQL,
  listedDocumentsOf,
  listedPageSql,
  MERCHANT_COLUMNS_SQL,
  type MerchantRows,
  PRODUCT_COLUMNS_SQL,
  SEARCH_HIT_SQL,
  type SearchSource,
  SIGNAL_COLUMNS_SQL,
  type TrustEntry,
  trustOrder,
  withValidCoordinates,
} from "../../search/source.ts";
import { inOneSnapshot, numbered, type Queryable } from "./transaction.ts";

/** Merchants whose signals a full build reads per statement (keyset pages by ab_id). */
const SIGNAL_PAGE_MERCHANTS = 5_000;
export function createPostgresSearchSource(pool: pg.Pool): SearchSource {
  async function revision(db: Queryable): Promise<number> {
    const row = (await db.query<{ revision: number }>("SELECT revision FROM store_revision WHERE id = 1")).rows[0];
    return row?.revision ?? 0;
  }

  async function readProducts(db: Queryable, abIds: readonly string[]): Promise<Map<string, ProductRow[]>> {
    const rows = await db.query<ProductRow>(
      `SELECT ${PRODUCT_COLUMNS_SQL} FROM products WHERE ab_id = ANY($1::text[])
       ORDER BY ab_id COLLATE "C", position, product_id COLLATE "C"`,
      [abIds],
    );
    return groupBy(rows.rows);
  }

  async function readMerchants(db: Queryable, abIds: readonly string[]): Promise<MerchantRows> {
    const rows = await db.query<MerchantRow>(
      `SELECT ${MERCHANT_COLUMNS_SQL}
       FROM merchants m LEFT JOIN territorial_proofs tp ON tp.ab_id = m.ab_id
       WHERE m.ab_id = ANY($1::text[]) ORDER BY m.ab_id COLLATE "C"`,
      [abIds],
    );
    return { merchants: rows.rows.map(withValidCoordinates), products: await readProducts(db, abIds) };
  }

  async function readSignals(db: Queryable, abIds: readonly string[]): Promise<Map<string, SignalRow[]>> {
    const rows = await db.query<SignalRow>(
      `SELECT ${SIGNAL_COLUMNS_SQL} FROM signals WHERE ab_id = ANY($1::text[]) ORDER BY ab_id COLLATE "C", key COLLATE "C"`,
      [abIds],
    );
    return groupBy(rows.rows);
  }

  async function listedByTrust(db: Queryable, at: Date): Promise<TrustEntry[]> {
    const listed = await db.query<{ ab_id: string; sector: string }>(
      `SELECT ab_id, sector FROM merchants WHERE ${SEARCH_HIT_SQL} ORDER BY ab_id COLLATE "C"`,
    );
    // Trust a page of merchants at a time, from their signals (every signal at once would hold
    // millions of rows in memory at 100,000 merchants), then one order over the pages.
    const order: TrustEntry[] = [];
    for (let start = 0; start < listed.rows.length; start += SIGNAL_PAGE_MERCHANTS) {
      const page = listed.rows.slice(start, start + SIGNAL_PAGE_MERCHANTS);
      const signals = await db.query<SignalRow>(
        `SELECT ${SIGNAL_COLUMNS_SQL} FROM signals WHERE ab_id = ANY($1::text[]) ORDER BY ab_id COLLATE "C"`,
        [page.map((row) => row.ab_id)],
      );
      const arrays = signals.rows.map(
        (row) =>
          [row.ab_id, row.key, row.status, row.value, row.expires_at] as [
            string,
            string,
            string,
            string | null,
            string | null,
          ],
      );
      order.push(...trustOrder(page, arrays, at));
    }
    return order.sort(byTrust);
  }

  async function listedPage(db: Queryable, after: string, limit: number, at: Date) {
    const { text, values } = numbered(listedPageSql("postgres"), { after, limit });
    const rows = (await db.query<MerchantRow>(text, values)).rows;
    const abIds = rows.map((row) => row.ab_id);
    const merchants = { merchants: rows.map(withValidCoordinates), products: await readProducts(db, abIds) };
    const { documents } = listedDocumentsOf(abIds, merchants, await readSignals(db, abIds), at);
    return { documents, scanned: rows.length, last: abIds.at(-1) ?? null };
  }

  async function identifierMatches(identifier: Identifier): Promise<string[]> {
    const { sql, params } = identifierStatement(identifier, "postgres");
    const { text, values } = numbered(sql, params);
    return (await pool.query<{ ab_id: string }>(text, values)).rows.map((row) => row.ab_id);
  }

  return {
    revision: () => revision(pool),
    // Merchants and their products, or documents made of merchants, products and signals: each in
    // one snapshot, so a write committed between two statements is in all of a batch or in none.
    readMerchants: (abIds) => inOneSnapshot(pool, (client) => readMerchants(client, abIds)),
    readProducts: (abIds) => readProducts(pool, abIds),
    readSignals: (abIds) => readSignals(pool, abIds),
    listedByTrust: (at) => inOneSnapshot(pool, (client) => listedByTrust(client, at)),
    listedDocuments: (abIds, at) =>
      inOneSnapshot(pool, async (client) =>
        listedDocumentsOf(abIds, await readMerchants(client, abIds), await readSignals(client, abIds), at),
      ),
    listedDocumentsAt: (abIds, at) =>
      inOneSnapshot(pool, async (client) => ({
        revision: await revision(client),
        ...listedDocumentsOf(abIds, await readMerchants(client, abIds), await readSignals(client, abIds), at),
      })),
    registrySnapshot: (at) =>
      inOneSnapshot(pool, async (client) => {
        const storeRevision = await revision(client);
        const order = await listedByTrust(client, at);
        const { merchants, products } = await readMerchants(
          client,
          order.map((entry) => entry.abId),
        );
        return {
          revision: storeRevision,
          order,
          merchants: new Map(merchants.map((row) => [row.ab_id, row])),
          products,
        };
      }),
    listedPage: (after, limit, at) => inOneSnapshot(pool, (client) => listedPage(client, after, limit, at)),
    async countListed() {
      const row = (await pool.query<{ count: string }>(LISTED_COUNT_SQL)).rows[0];
      return Number(row?.count ?? 0);
    },
    identifierMatches,
  };
}
