/**
 * The store's ports as the composition root (src/app.ts) takes them, built over one engine: the
 * embedded SQLite file (sqlite-store.ts, the default) or PostgreSQL (postgres/postgres-store.ts,
 * with DATABASE_URL). The domain never knows which (docs/several-machines.md).
 */
import type { RateLimitStore } from "../domain/access/rate-limiter.ts";
import type { AgentStore } from "../domain/agents/agent.ts";
import type { AttributionRepository } from "../domain/attribution/attribution-store.ts";
import type { LeadEmailConfirmationStore } from "../domain/merchant-space/lead-email-store.ts";
import type { LetterStore } from "../domain/merchant-space/letter-store.ts";
import type { SignInLinkStore } from "../domain/merchant-space/sign-in-links.ts";
import type { SpaceNoticeStore } from "../domain/merchant-space/space-notices.ts";
import type { SpaceStore } from "../domain/merchant-space/space-store.ts";
import type { MerchantRegistryStore } from "../domain/merchants/merchant-registry.ts";
import type { OrderRepository } from "../domain/orders/order-store.ts";
import type { OutboxRepository } from "../domain/outbox-store.ts";
import type { PlatformContactRepository } from "../domain/platform-contact/platform-contact-store.ts";
import type { RetentionRepository } from "../domain/privacy/retention-store.ts";
import type { ChangeFeedStore } from "../domain/registry/read-changes.ts";
import type { SearchCardStore } from "../domain/registry/search-cards.ts";
import type { SettingsRepository } from "../domain/settings-store.ts";
import type { TrustSweepStore } from "../domain/trust/trust-sweep.ts";
import type { DeploymentFileStore } from "./deployment-files.ts";
import type { LeadRepository } from "./lead-repository.ts";
import type { MerchantRepository } from "./merchant-repository.ts";
import type { PublishSource } from "./publish-source.ts";
import type { SearchFeed } from "./search-feed.ts";

export interface StorePorts {
  engine: "sqlite" | "postgres";
  agents: AgentStore;
  settings: SettingsRepository;
  outbox: OutboxRepository;
  merchants: MerchantRepository;
  keptCards: SearchCardStore;
  searchFeed: SearchFeed;
  /** Where the sweep of trust changes got to, what it reads, and the touches it records. */
  trustSweep: TrustSweepStore;
  leads: LeadRepository;
  changeFeed: ChangeFeedStore;
  publishSource: PublishSource;
  orders: OrderRepository;
  attribution: AttributionRepository;
  platformContacts: PlatformContactRepository;
  retention: RetentionRepository;
  leadEmailConfirmations: LeadEmailConfirmationStore;
  space: SpaceStore;
  merchantRegistry: MerchantRegistryStore;
  letters: LetterStore;
  signInLinks: SignInLinkStore;
  spaceNotices: SpaceNoticeStore;
  /** The fingerprints of the secrets and signing keys every machine holds alike (jobs/shared-files.ts). */
  deploymentFiles: DeploymentFileStore;
  /** Rate limits counted in the store itself when it is shared by several machines (PostgreSQL), else null. */
  sharedLimits: RateLimitStore | null;
  /** Rejects when the database does not answer (the health check's readiness). */
  probeDatabase: () => Promise<void>;
  /** Closes the connections (the pool, the notice connection). */
  close(): Promise<void>;
}
