import type { FollowedEngine } from "../../search/follower.ts";
import type { MerchantRepository } from "./merchant-store.ts";
import { buildKeptCards, cardFormat, type SearchCardStore } from "./search-cards.ts";

/** Cards built and written at a time: about 25 ms of the owner's event loop at 100,000 merchants. */
const CARDS_PER_BATCH = 200;

export interface CardKeeperDeps {
  merchants: MerchantRepository;
  keptCards: SearchCardStore;
  orderRailEnabled: boolean;
  /** The code key the cards are built with (see cardFormat). */
  cardCode: () => string;
  now: () => Date;
}

/**
 * Keeps the store's search cards (search-cards.ts) in step with the merchants, as an engine the
 * search follower drives (src/search/follower.ts: the merchants touched after the keeper's cursor,
 * a full build when it has none, for this card format). Between changes, it renews the cards whose
 * trust stopped being valid by itself (a counted signal expired). Every batch yields to the event
 * loop: the owner process serves requests too.
 */
export function createSearchCardKeeper(deps: CardKeeperDeps): FollowedEngine {
  const store = deps.keptCards;
  // On first use: the code key hashes the sources, which a process that never keeps cards skips.
  let formatOfKeeper: string | undefined;
  const format = () => {
    formatOfKeeper ??= cardFormat(deps.orderRailEnabled, deps.cardCode());
    return formatOfKeeper;
  };

  async function keep(abIds: readonly string[]): Promise<void> {
    const builtAt = await store.revision(); // before the merchants are read: a later write makes the card stale
    await store.write(await buildKeptCards(deps, abIds, deps.now()), format(), builtAt);
  }

  /** Keeps these merchants' cards a batch at a time, yielding to the event loop after each. */
  async function keepInBatches(abIds: readonly string[], onBatch?: (done: number) => void): Promise<void> {
    for (let start = 0; start < abIds.length; start += CARDS_PER_BATCH) {
      await keep(abIds.slice(start, start + CARDS_PER_BATCH));
      onBatch?.(Math.min(abIds.length, start + CARDS_PER_BATCH));
      await nextTurn();
    }
  }

  return {
    async refresh(abIds) {
      await keepInBatches(abIds);
    },
    async rebuild(onProgress) {
      const from = await store.revision();
      const ids: string[] = [];
      for (let page = await store.merchantIdsAfter(null, 10_000); page.length > 0; ) {
        ids.push(...page);
        page = await store.merchantIdsAfter(page.at(-1) ?? null, 10_000);
      }
      onProgress?.(0, ids.length);
      await keepInBatches(ids, (done) => onProgress?.(done, ids.length));
      await store.dropOtherFormats(format());
      // Merchants touched during the build are taken again from here.
      await store.writeCursor(format(), from);
    },
    async readCursor() {
      return store.readCursor(format());
    },
    async writeCursor(revision) {
      await store.writeCursor(format(), revision);
    },
    async sweep() {
      const expired = await store.expired(format(), deps.now().toISOString(), CARDS_PER_BATCH);
      if (expired.length === 0) return false;
      await keep(expired);
      await nextTurn();
      return true;
    },
  };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
