/**
 * The store's ports over PostgreSQL (DATABASE_URL): one pool per process, and the revision watch
 * that lets this instance's caches follow writes made on any machine (revision-watch.ts).
 */
import type pg from "pg";
import type { Config } from "../../config/config.ts";
import { createAgentRepository } from "../agent-repository.ts";
import { createAttributionRepository } from "../attribution-repository.ts";
import { createDeploymentFileStore } from "../deployment-files.ts";
import { createLetterRepository } from "../letter-repository.ts";
import { createMerchantSpaceRepository } from "../merchant-space-repository.ts";
import { createOrderRepository } from "../order-repository.ts";
import { createPlatformContactRepository } from "../platform-contact-repository.ts";
import { createRetentionRepository } from "../retention-repository.ts";
import { createSettingsRepository } from "../settings-repository.ts";
import { createSpaceNoticeRepository } from "../space-notice-repository.ts";
import type { StorePorts } from "../store-ports.ts";
import { createPostgresLeadRepository } from "./lead-repository.ts";
import { createLeaderFence, type LeaderFence } from "./leader-fence.ts";
import { createPostgresMerchantRegistryRepository } from "./merchant-registry-repository.ts";
import { createPostgresMerchantRepository } from "./merchant-repository.ts";
import { createPostgresOutboxRepository } from "./outbox-repository.ts";
import { openPostgresPool } from "./pool.ts";
import { createPostgresPublishSource } from "./publish-source.ts";
import { createPostgresRateLimitStore } from "./rate-limit-store.ts";
import {
  createPostgresChangeFeed,
  createPostgresSearchCardStore,
  createPostgresSearchFeed,
  postgresStoreRevisionReader,
} from "./registry-feeds.ts";
import { type RevisionWatch, watchStoreRevision } from "./revision-watch.ts";
import {
  createPostgresLeadEmailConfirmationRepository,
  createPostgresSignInLinkRepository,
} from "./space-link-repositories.ts";
import { postgresStore } from "./store.ts";
import { fencedStoreDb } from "./store-db.ts";
import { createPostgresTrustSweepStore } from "./trust-sweep-store.ts";

export interface PostgresPorts extends StorePorts {
  engine: "postgres";
  pool: pg.Pool;
  revisionWatch: RevisionWatch;
  /**
   * What the work done once across the deployment writes through (the retention's batches, the
   * kept cards, Meilisearch's writes, the scheduled refresh's commit): fenced once it follows the
   * server's election (jobs/background.ts), plain before (an operator's command).
   */
  leaderFence: LeaderFence;
}

export function openPostgresStore(
  settings: NonNullable<Config["postgres"]>,
  options: {
    applicationName?: string;
    /** false: a one-shot job's store, which keeps no cache (no notice connection; each revision is read). */
    watchRevision?: boolean;
  } = {},
): PostgresPorts {
  let watch: RevisionWatch | null = null;
  const pool = openPostgresPool(
    { ...settings, applicationName: options.applicationName ?? "abeille" },
    { afterWrite: () => watch?.afterWrite() },
  );
  const revisionWatch =
    options.watchRevision === false ? readEachTime(pool) : watchStoreRevision({ url: settings.url, pool });
  watch = revisionWatch;
  const store = postgresStore(pool);
  const leaderFence = createLeaderFence(pool);
  const merchants = createPostgresMerchantRepository(pool);
  const publishSource = createPostgresPublishSource(pool);
  return {
    engine: "postgres",
    pool,
    revisionWatch,
    leaderFence,
    agents: createAgentRepository(store.storeDb),
    settings: createSettingsRepository(store.storeDb),
    outbox: createPostgresOutboxRepository(store),
    // The caches' revision: what the notices say, else a read (revision-watch.ts).
    merchants: { ...merchants, revision: revisionWatch.read },
    keptCards: createPostgresSearchCardStore(pool, leaderFence),
    searchFeed: createPostgresSearchFeed(pool),
    trustSweep: createPostgresTrustSweepStore(pool, leaderFence),
    leads: createPostgresLeadRepository(pool),
    changeFeed: createPostgresChangeFeed(pool),
    publishSource: { ...publishSource, revision: revisionWatch.read, knownRevision: revisionWatch.known },
    orders: createOrderRepository(store.storeDb),
    attribution: createAttributionRepository(store.storeDb),
    platformContacts: createPlatformContactRepository(store.storeDb),
    retention: createRetentionRepository(fencedStoreDb(pool, leaderFence)),
    signInLinks: createPostgresSignInLinkRepository(pool),
    leadEmailConfirmations: createPostgresLeadEmailConfirmationRepository(pool),
    space: createMerchantSpaceRepository(store.storeDb),
    merchantRegistry: createPostgresMerchantRegistryRepository(store),
    letters: createLetterRepository(store.storeDb),
    spaceNotices: createSpaceNoticeRepository(store.storeDb),
    deploymentFiles: createDeploymentFileStore(store.storeDb),
    sharedLimits: createPostgresRateLimitStore(pool),
    probeDatabase: async () => {
      await pool.query("SELECT 1");
    },
    close: async () => {
      await revisionWatch.stop();
      await pool.end();
    },
  };
}

/** A revision "watch" that keeps nothing: every revision is read from the database. */
function readEachTime(pool: pg.Pool): RevisionWatch {
  const read = postgresStoreRevisionReader(pool);
  return { known: () => null, read, afterWrite: () => undefined, listening: () => false, stop: async () => undefined };
}
