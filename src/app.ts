import { type Config, loadConfig } from "./config/config.ts";
import { createEmbeddedSearchIndex } from "./search/embedded/index.ts";
import type { SearchIndex } from "./search/search-index.ts";
import { type Db, openDatabase } from "./store/db.ts";
import { createMerchantRepository, type MerchantRepository } from "./store/merchant-repository.ts";

/** The composition root: every service the routes and jobs use, built once from one config. */
export interface App {
  config: Config;
  db: Db;
  merchants: MerchantRepository;
  search: SearchIndex;
  now: () => Date;
  close(): void;
}

export function createApp(config: Config, options: { now?: () => Date } = {}): App {
  const db = openDatabase(config.databaseFile);
  const now = options.now ?? (() => new Date());
  return {
    config,
    db,
    merchants: createMerchantRepository(db),
    search: createEmbeddedSearchIndex(db, { now }),
    now,
    close: () => db.$client.close(),
  };
}

let current: App | undefined;

/** The process-wide app, built from the environment on first use. */
export function getApp(): App {
  current ??= createApp(loadConfig());
  return current;
}
