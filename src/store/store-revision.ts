import type { Db } from "./db.ts";

/**
 * Reads the store revision: a number that moves with every write to merchants, signals, products
 * or territorial proofs, from any connection (triggers keep it, migration 0002). In-memory copies
 * of merchant data (search cards, the index's prepared catalogues) are valid for one revision.
 */
export function storeRevisionReader(db: Db): () => number {
  const statement = db.$client.prepare<[], number>("SELECT revision FROM store_revision WHERE id = 1").pluck();
  return () => statement.get() ?? 0;
}
