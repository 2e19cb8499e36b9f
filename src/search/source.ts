import type { Db } from "../store/db.ts";
import { storeRevisionReader } from "../store/store-revision.ts";
import {
  buildMerchantDocument,
  LISTED_STATUSES,
  type MerchantDocument,
  type MerchantRow,
  type ProductRow,
  type SignalRow,
  trustOf,
} from "./embedded/documents.ts";

/*
 * What every search engine reads from the store (merchants with their place, products, signals)
 * and the documents it makes of them: one reader for the embedded index and Meilisearch.
 */

const MERCHANT_SELECT = `
  SELECT m.ab_id, m.siret, m.business_name, m.legal_name, m.naf_code, m.naf_code_2025, m.sector, m.status, m.postal_code, m.city,
         m.description, tp.latitude, tp.longitude, tp.postal_code AS proof_postal_code, tp.city_normalized,
         tp.department_code
  FROM merchants m LEFT JOIN territorial_proofs tp ON tp.ab_id = m.ab_id`;
const PRODUCT_SELECT = "SELECT ab_id, product_id, name, description, tags, position FROM products";
const SIGNAL_SELECT = "SELECT ab_id, key, status, value, expires_at FROM signals";
const LISTED_SQL = [...LISTED_STATUSES].map((status) => `'${status.replaceAll("'", "''")}'`).join(", ");

export interface SearchSource {
  /** The store revision now (read it before the merchants of a build). */
  revision(): number;
  readMerchants(abIds: readonly string[]): { merchants: MerchantRow[]; products: Map<string, ProductRow[]> };
  readProducts(abIds: readonly string[]): Map<string, ProductRow[]>;
  readSignals(abIds: readonly string[]): Map<string, SignalRow[]>;
  /** Trust totals of every listed merchant, most trusted first (ties by ab_id). */
  listedByTrust(at: Date): { abId: string; trust: number }[];
  /** The documents of these merchants that are listed, and the ids that are not (or no longer exist). */
  listedDocuments(abIds: readonly string[], at: Date): { documents: MerchantDocument[]; unlisted: string[] };
}

export function createSearchSource(db: Db): SearchSource {
  const sqlite = db.$client;
  const statements = new Map<string, ReturnType<typeof sqlite.prepare>>();
  const prepare = (source: string) => {
    let statement = statements.get(source);
    if (!statement) {
      statement = sqlite.prepare(source);
      statements.set(source, statement);
    }
    return statement;
  };

  function readProducts(abIds: readonly string[]): Map<string, ProductRow[]> {
    const rows = prepare(
      `${PRODUCT_SELECT} WHERE ab_id IN (SELECT value FROM json_each(?)) ORDER BY ab_id, position, product_id`,
    ).all(JSON.stringify(abIds)) as ProductRow[];
    return groupBy(rows);
  }

  function readMerchants(abIds: readonly string[]) {
    const rows = prepare(`${MERCHANT_SELECT} WHERE m.ab_id IN (SELECT value FROM json_each(?))`).all(
      JSON.stringify(abIds),
    ) as MerchantRow[];
    return { merchants: rows.map(withValidCoordinates), products: readProducts(abIds) };
  }

  function readSignals(abIds: readonly string[]): Map<string, SignalRow[]> {
    const rows = prepare(`${SIGNAL_SELECT} WHERE ab_id IN (SELECT value FROM json_each(?))`).all(
      JSON.stringify(abIds),
    ) as SignalRow[];
    return groupBy(rows);
  }

  function listedByTrust(at: Date): { abId: string; trust: number }[] {
    const listed = new Map<string, { sector: string; trust: number }>();
    const rows = sqlite.prepare(`SELECT ab_id, sector FROM merchants WHERE status IN (${LISTED_SQL})`).all() as {
      ab_id: string;
      sector: string;
    }[];
    for (const row of rows) listed.set(row.ab_id, { sector: row.sector, trust: 0 });
    let current: string | undefined;
    let group: SignalRow[] = [];
    const flush = (): void => {
      const entry = current === undefined ? undefined : listed.get(current);
      if (entry) entry.trust = trustOf(group, entry.sector, at);
      group = [];
    };
    // Raw rows (arrays): this walks every signal of the registry.
    const signals = sqlite.prepare(`${SIGNAL_SELECT} ORDER BY ab_id`).raw().iterate() as IterableIterator<
      [string, string, string, string | null, string | null]
    >;
    for (const [abId, key, status, value, expiresAt] of signals) {
      if (abId !== current) {
        flush();
        current = abId;
      }
      group.push({ ab_id: abId, key, status, value, expires_at: expiresAt });
    }
    flush();
    return [...listed.entries()]
      .map(([abId, entry]) => ({ abId, trust: entry.trust }))
      .sort((a, b) => b.trust - a.trust || (a.abId < b.abId ? -1 : 1));
  }

  function listedDocuments(abIds: readonly string[], at: Date) {
    const { merchants, products } = readMerchants(abIds);
    const signals = readSignals(abIds);
    const documents: MerchantDocument[] = [];
    const listed = new Set<string>();
    for (const merchant of merchants) {
      if (!LISTED_STATUSES.has(merchant.status)) continue;
      listed.add(merchant.ab_id);
      const trust = trustOf(signals.get(merchant.ab_id) ?? [], merchant.sector, at);
      documents.push(buildMerchantDocument(merchant, products.get(merchant.ab_id) ?? [], trust));
    }
    return { documents, unlisted: abIds.filter((abId) => !listed.has(abId)) };
  }

  return {
    revision: storeRevisionReader(db),
    readMerchants,
    readProducts,
    readSignals,
    listedByTrust,
    listedDocuments,
  };
}

/** Drops coordinates that cannot be placed on a map (missing, not finite, out of range). */
function withValidCoordinates(row: MerchantRow): MerchantRow {
  const { latitude: lat, longitude: lng } = row;
  const valid =
    typeof lat === "number" &&
    typeof lng === "number" &&
    Number.isFinite(lat) &&
    Number.isFinite(lng) &&
    Math.abs(lat) <= 90 &&
    Math.abs(lng) <= 180;
  return valid ? row : { ...row, latitude: null, longitude: null };
}

function groupBy<Row extends { ab_id: string }>(rows: readonly Row[]): Map<string, Row[]> {
  const grouped = new Map<string, Row[]>();
  for (const row of rows) {
    const list = grouped.get(row.ab_id);
    if (list) list.push(row);
    else grouped.set(row.ab_id, [row]);
  }
  return grouped;
}
