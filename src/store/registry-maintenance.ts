/**
 * Whole-registry maintenance for `npm run seed`: whether the registry is empty, clearing it before
 * a reseed, and counting its rows. (Merchants come in only through the imports and the lifecycle
 * commands, the demo's included.)
 */
import { LISTED_STATUSES } from "../domain/merchants/lifecycle.ts";
import type { Db } from "./db.ts";

export interface RegistryCounts {
  merchants: number;
  territorialProofs: number;
  products: number;
  signals: number;
  clusters: number;
  nodes: number;
}

/**
 * The same, as a port the seed and the operator commands take whichever engine serves the store
 * (PostgreSQL: src/store/postgres/registry-maintenance.ts).
 */
export interface RegistryMaintenance {
  isEmpty(): Promise<boolean>;
  clear(): Promise<Record<string, number>>;
  count(): Promise<RegistryCounts>;
}

export function createRegistryMaintenance(db: Db): RegistryMaintenance {
  return {
    isEmpty: async () => isRegistryEmpty(db),
    clear: async () => clearRegistry(db),
    count: async () => countRegistry(db),
  };
}

/** The tables `countRegistry` counts, by the name it answers them under. */
export const COUNTED_TABLES: Record<keyof RegistryCounts, string> = {
  merchants: "merchants",
  territorialProofs: "territorial_proofs",
  products: "products",
  signals: "signals",
  clusters: "qa_clusters",
  nodes: "qa_nodes",
};

export function isRegistryEmpty(db: Db): boolean {
  return db.$client.prepare("SELECT 1 FROM merchants LIMIT 1").get() === undefined;
}

/**
 * Tables holding rows that depend on merchants (found through the schema's foreign keys, so
 * tables added later are included), children before parents, merchants last.
 */
function merchantDependents(sqlite: Db["$client"]): string[] {
  const tables = sqlite
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
  const keys = tables.flatMap((table) =>
    (sqlite.prepare(`SELECT "table" AS parent FROM pragma_foreign_key_list(?)`).all(table) as { parent: string }[]).map(
      ({ parent }) => ({ child: table, parent }),
    ),
  );
  return dependentsOfMerchants(keys);
}

/**
 * From a schema's foreign keys (child table -> parent table), the tables depending on merchants,
 * children before parents, merchants last: the order that deletes them without breaking a key.
 * One walk for both engines (each reads its own catalog).
 */
export function dependentsOfMerchants(keys: readonly { child: string; parent: string }[]): string[] {
  const children = new Map<string, string[]>();
  for (const { child, parent } of keys) {
    if (child === parent) continue;
    const list = children.get(parent) ?? [];
    if (!list.includes(child)) list.push(child);
    children.set(parent, list);
  }
  const ordered: string[] = [];
  const visit = (table: string, path: Set<string>) => {
    if (ordered.includes(table) || path.has(table)) return;
    path.add(table);
    for (const child of children.get(table) ?? []) visit(child, path);
    path.delete(table);
    ordered.push(table);
  };
  visit("merchants", new Set());
  return ordered;
}

/**
 * Deletes every merchant and every row that depends on one (products, signals, Q&A, and also
 * leads, orders and whatever else references merchants), in one transaction. Returns the number
 * of rows deleted per table. Derived search tables are left for the next index rebuild. The
 * change feed (append-only) tells its readers that every listed merchant was withdrawn.
 */
export function clearRegistry(db: Db): Record<string, number> {
  const sqlite = db.$client;
  const deleted: Record<string, number> = {};
  sqlite
    .transaction(() => {
      sqlite
        .prepare(
          `INSERT INTO merchant_changes (ab_id, revision, change, changed_at)
           SELECT ab_id, revision + 1, 'withdrawn', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM merchants
           WHERE status IN (${[...LISTED_STATUSES].map((status) => `'${status}'`).join(", ")}) ORDER BY ab_id`,
        )
        .run();
      for (const table of merchantDependents(sqlite)) {
        deleted[table] = sqlite.prepare(`DELETE FROM "${table}"`).run().changes;
      }
    })
    .immediate();
  return deleted;
}

export function countRegistry(db: Db): RegistryCounts {
  const sqlite = db.$client;
  const count = (table: string) => (sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  return Object.fromEntries(
    Object.entries(COUNTED_TABLES).map(([name, table]) => [name, count(table)]),
  ) as unknown as RegistryCounts;
}
