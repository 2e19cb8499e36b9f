import type { KeptCard, SearchCardStore } from "../domain/registry/search-cards.ts";
import type { Db } from "./db.ts";
import { storeRevisionReader } from "./store-revision.ts";

export type { SearchCardStore } from "../domain/registry/search-cards.ts";

/**
 * The current cards of a list of merchants: built for this format, their merchant not touched
 * after the revision they were built at, not past their validity. `+c.format` keeps SQLite from
 * walking the (format, valid_until) index, every card of the format, instead of the ids' keys.
 */
export const CURRENT_CARDS_SQL = `
  SELECT c.ab_id, c.card FROM kept_cards c LEFT JOIN merchant_touches t ON t.ab_id = c.ab_id
  WHERE c.ab_id IN (SELECT value FROM json_each(?)) AND +c.format = ?
    AND coalesce(t.touch, 0) <= c.built_at AND (c.valid_until IS NULL OR c.valid_until > ?)`;

/*
 * The kept search cards (schema.ts keptCards), as JSON text. Lists of ids travel as one JSON
 * parameter, so every statement is prepared once.
 */
export function createSearchCardStore(db: Db): SearchCardStore {
  const sqlite = db.$client;
  const currentCards = sqlite.prepare<[string, string, string], [string, string]>(CURRENT_CARDS_SQL).raw();
  const upsert = sqlite.prepare<[string, string, number, string | null, string]>(
    `INSERT INTO kept_cards (ab_id, format, built_at, valid_until, card) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (ab_id) DO UPDATE SET format = excluded.format, built_at = excluded.built_at,
       valid_until = excluded.valid_until, card = excluded.card`,
  );
  const idsAfter = sqlite
    .prepare<[string, number], string>("SELECT ab_id FROM merchants WHERE ab_id > ? ORDER BY ab_id LIMIT ?")
    .pluck();
  const expired = sqlite
    .prepare<[string, string, number], string>(
      "SELECT ab_id FROM kept_cards WHERE format = ? AND valid_until <= ? ORDER BY valid_until LIMIT ?",
    )
    .pluck();
  const dropOthers = sqlite.prepare<[string]>("DELETE FROM kept_cards WHERE format <> ?");
  const dropOtherCursors = sqlite.prepare<[string]>("DELETE FROM kept_card_cursors WHERE format <> ?");
  const cursorOf = sqlite.prepare<[string], number>("SELECT revision FROM kept_card_cursors WHERE format = ?").pluck();
  const setCursor = sqlite.prepare<[string, number]>(
    "INSERT INTO kept_card_cursors (format, revision) VALUES (?, ?) ON CONFLICT (format) DO UPDATE SET revision = excluded.revision",
  );
  const writeAll = sqlite.transaction((cards: ReadonlyMap<string, KeptCard>, format: string, builtAt: number) => {
    for (const [abId, card] of cards) upsert.run(abId, format, builtAt, card.validUntil, JSON.stringify(card));
  });
  const dropOtherFormats = sqlite.transaction((format: string) => {
    dropOthers.run(format);
    dropOtherCursors.run(format);
  });

  const revision = storeRevisionReader(db);
  return {
    async read(abIds, format, nowIso) {
      const cards = new Map<string, KeptCard>();
      if (abIds.length === 0) return cards;
      for (const [abId, card] of currentCards.all(JSON.stringify(abIds), format, nowIso)) {
        cards.set(abId, JSON.parse(card) as KeptCard);
      }
      return cards;
    },
    write: async (cards, format, builtAt) => writeAll.immediate(cards, format, builtAt),
    merchantIdsAfter: async (after, limit) => idsAfter.all(after ?? "", limit),
    expired: async (format, nowIso, limit) => expired.all(format, nowIso, limit),
    dropOtherFormats: async (format) => dropOtherFormats.immediate(format),
    revision: async () => revision(),
    readCursor: async (format) => cursorOf.get(format) ?? null,
    writeCursor: async (format, revision) => {
      setCursor.run(format, revision);
    },
  };
}
