/**
 * The store's ports over the embedded SQLite file (DATA_DIR/abeille.db): the default, one machine.
 */
import type { Config } from "../config/config.ts";
import { createAgentRepository } from "./agent-repository.ts";
import { createAttributionRepository } from "./attribution-repository.ts";
import { createChangeFeedRepository } from "./change-feed-repository.ts";
import { createDatabaseProbe } from "./database-probe.ts";
import { type Db, openDatabase } from "./db.ts";
import { createDeploymentFileStore } from "./deployment-files.ts";
import { createLeadEmailConfirmationRepository } from "./lead-email-confirmation-repository.ts";
import { createLeadRepository } from "./lead-repository.ts";
import { createLetterRepository } from "./letter-repository.ts";
import { createMerchantRegistryRepository } from "./merchant-registry-repository.ts";
import { createMerchantRepository } from "./merchant-repository.ts";
import { createMerchantSpaceRepository } from "./merchant-space-repository.ts";
import { createOrderRepository } from "./order-repository.ts";
import { createOutboxRepository, sqliteOutboxClaims } from "./outbox-repository.ts";
import { createPlatformContactRepository } from "./platform-contact-repository.ts";
import { createPublishSource } from "./publish-source.ts";
import { createRetentionRepository } from "./retention-repository.ts";
import { createSearchCardStore } from "./search-card-store.ts";
import { createSearchFeed } from "./search-feed.ts";
import { createSettingsRepository } from "./settings-repository.ts";
import { createSignInLinkRepository } from "./sign-in-link-repository.ts";
import { createSpaceNoticeRepository } from "./space-notice-repository.ts";
import type { StorePorts } from "./store-ports.ts";
import { createTrustSweepStore } from "./trust-sweep-store.ts";

export interface SqliteStore extends StorePorts {
  engine: "sqlite";
  db: Db;
}

export function openSqliteStore(config: Pick<Config, "databaseFile" | "walCheckpoints">): SqliteStore {
  const db = openDatabase(config.databaseFile, { checkpoints: config.walCheckpoints });
  return sqliteStoreOf(db);
}

/** The ports over an open SQLite store (a job's own connection, a test's). */
export function sqliteStoreOf(db: Db): SqliteStore {
  return {
    engine: "sqlite",
    db,
    agents: createAgentRepository(db),
    settings: createSettingsRepository(db),
    outbox: createOutboxRepository(db, sqliteOutboxClaims(db)),
    merchants: createMerchantRepository(db),
    keptCards: createSearchCardStore(db),
    searchFeed: createSearchFeed(db),
    trustSweep: createTrustSweepStore(db),
    leads: createLeadRepository(db),
    changeFeed: createChangeFeedRepository(db),
    publishSource: createPublishSource(db),
    orders: createOrderRepository(db),
    attribution: createAttributionRepository(db),
    platformContacts: createPlatformContactRepository(db),
    retention: createRetentionRepository(db),
    leadEmailConfirmations: createLeadEmailConfirmationRepository(db),
    space: createMerchantSpaceRepository(db),
    merchantRegistry: createMerchantRegistryRepository(db),
    letters: createLetterRepository(db),
    signInLinks: createSignInLinkRepository(db),
    spaceNotices: createSpaceNoticeRepository(db),
    deploymentFiles: createDeploymentFileStore(db),
    sharedLimits: null,
    probeDatabase: createDatabaseProbe(db),
    close: async () => {
      db.$client.close();
    },
  };
}
