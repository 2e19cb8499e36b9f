import { randomBytes } from "node:crypto";
import { type Config, loadConfig } from "./config/config.ts";
import { type AccessServices, createAccessServices } from "./domain/access/access-services.ts";
import type { AssessedLeadTarget } from "./domain/leads/lead-deps.ts";
import { createPageFormTokens, type PageFormTokens } from "./domain/leads/page-form-token.ts";
import { createTrackingTokens, type TrackingTokens } from "./domain/leads/tracking-token.ts";
import type { LeadEmailConfirmationStore } from "./domain/merchant-space/lead-email-store.ts";
import type { LeadEmailTokens } from "./domain/merchant-space/lead-email-token.ts";
import { createLetterCodeKeys, type LetterCodeKeys } from "./domain/merchant-space/letter-code.ts";
import type { LetterStore } from "./domain/merchant-space/letter-store.ts";
import type { IdentityProvider } from "./domain/merchant-space/sign-in.ts";
import {
  createSignInLinkTokens,
  type SignInLinkStore,
  type SignInLinkTokens,
} from "./domain/merchant-space/sign-in-links.ts";
import type { SpaceNoticeStore } from "./domain/merchant-space/space-notices.ts";
import type { SpaceStore } from "./domain/merchant-space/space-store.ts";
import type { CommuneLookup, MerchantRegistryStore } from "./domain/merchants/merchant-registry.ts";
import { createOutboxHealth, type OutboxHealth } from "./domain/outbox-health.ts";
import type { OutboxRepository } from "./domain/outbox-store.ts";
import { readAtMostEvery } from "./domain/read-at-most.ts";
import { createSearchCardKeeper } from "./domain/registry/keep-search-cards.ts";
import type { PlaceFinder } from "./domain/registry/place-finder.ts";
import type { ChangeFeedStore } from "./domain/registry/read-changes.ts";
import { createSearchCardCache, type SearchCardCache } from "./domain/registry/search-cards.ts";
import { createRevisionCache, type RevisionCache } from "./domain/revision-cache.ts";
import type { SettingsRepository } from "./domain/settings-store.ts";
import { createTrustSweeper, type TrustSweeper } from "./domain/trust/trust-sweep.ts";
import type { PreparedEnvelope } from "./http/envelope.ts";
import { logger } from "./logging.ts";
import { notifyOutbox } from "./mail/outbox-signal.ts";
import { createProConnectProvider } from "./official/proconnect.ts";
import type { PaymentProvider } from "./payments/payment-provider.ts";
import { paymentProviderFromConfig } from "./payments/stripe-checkout.ts";
import { processCardCode } from "./publish/code-key.ts";
import type { RenderedDocument } from "./publish/document.ts";
import {
  createSearchEngine,
  type EmbeddedIndex,
  postgresSearchPorts,
  type SearchEngine,
  type SearchHealth,
  sqliteSearchPorts,
} from "./search/engine.ts";
import { createSearchFollower, type SearchFollower } from "./search/follower.ts";
import type { SearchIndex } from "./search/search-index.ts";
import { createCommuneLookup, createPlaceFinder } from "./seed/communes.ts";
import { createKeyStore, type KeyStore } from "./signing/key-store.ts";
import type { AgentRepository } from "./store/agent-repository.ts";
import type { AttributionRepository } from "./store/attribution-repository.ts";
import type { Db } from "./store/db.ts";
import { leadEmailTokensOf } from "./store/lead-email-confirmation-repository.ts";
import { type LeadRepository, loadOrCreateSecret } from "./store/lead-repository.ts";
import { letterCodeKeyFile } from "./store/letter-repository.ts";
import type { MerchantRepository } from "./store/merchant-repository.ts";
import { type OpenedStore, openStore } from "./store/open-store.ts";
import type { OrderRepository } from "./store/order-repository.ts";
import type { PlatformContactRepository } from "./store/platform-contact-repository.ts";
import type { PublishSource } from "./store/publish-source.ts";
import { createRateLimitStore } from "./store/rate-limit-store.ts";
import type { RetentionRepository } from "./store/retention-repository.ts";
import type { SearchCardStore } from "./store/search-card-store.ts";
import { secretFile } from "./store/secret-files.ts";
import { signInLinkKeyFile } from "./store/sign-in-link-repository.ts";

export interface PreparedAnswer {
  envelope: PreparedEnvelope;
  validUntil: string | null;
}

/** About 10 KB each: 4,000 answers are 40 MB at most per process. */
const PREPARED_ANSWER_ENTRIES = 4_000;

/** A merchant's document as its route rendered it, and the end of its content period (period.ts). */
export interface KeptDocument {
  document: RenderedDocument;
  validUntil: string | null;
}

/** 7-25 KB each: 1,000 documents are 25 MB at most per process. */
const KEPT_DOCUMENT_ENTRIES = 1_000;
/** How long after a failure of the limit store the health check reports it failing. */
const LIMITS_FAILING_MS = 10_000;
/** The health check's database probe, outbox backlog and search state are read at most this often. */
const HEALTH_READ_INTERVAL_MS = 1_000;
/** A lead target is small (the merchant's assessable columns, signals, trust): a few KB each. */
const LEAD_TARGET_ENTRIES = 4_000;

/** The composition root: every service the routes and jobs use, built once from one config. */
export interface App {
  config: Config;
  /** The SQLite store's connection (tests, SQLite-only jobs); throws on PostgreSQL. */
  readonly db: Db;
  /** The store's ports on their engine. */
  store: OpenedStore;
  merchants: MerchantRepository;
  search: SearchIndex;
  /** The engine behind `search` (embedded, or Meilisearch) and its followers, for health and jobs. */
  searchEngine: SearchEngine<EmbeddedIndex>;
  /** Search result cards kept between searches, checked against the store revision. */
  searchCards: SearchCardCache;
  /** Search result cards built ahead in the store, for queries no process has seen. */
  keptCards: SearchCardStore;
  /** Builds and renews the kept cards; started by the process that runs the background work. */
  cardKeeper: SearchFollower;
  /**
   * Records a touch of the merchants whose trust moved by itself (a signal expired, a company's
   * age stepped), so that every follower of the feed applies them; started by the process that
   * runs the background work.
   */
  trustSweeper: TrustSweeper;
  /** The code key kept cards are built with (src/publish/code-key.ts cardCodeKey), computed once. */
  cardCode: () => string;
  /** Serialized answers that change only with the store (resolve), checked against the store revision. */
  preparedAnswers: RevisionCache<PreparedAnswer>;
  /** Merchants' documents rendered by their routes (src/publish/http.ts keptDocument). */
  keptDocuments: RevisionCache<KeptDocument>;
  /** Merchants leads go to, assessed, checked against the store revision and their signals' expiry. */
  leadTargets: RevisionCache<AssessedLeadTarget>;
  /** Manifest signing keys under DATA_DIR/keys (lazy: no file is touched before first use). */
  keys: KeyStore;
  /** Agents, orders, attribution, operator settings; access = kill switch + keys + rate limits. */
  agents: AgentRepository;
  orders: OrderRepository;
  attribution: AttributionRepository;
  settings: SettingsRepository;
  access: AccessServices;
  /** Hosted checkout on the merchant's connected account; null without STRIPE_SECRET_KEY. */
  payments: PaymentProvider | null;
  /** Leads, their follow-ups, platform messages, the mail outbox and the retention job's queries. */
  leads: LeadRepository;
  /** Every merchant's status and source stamp, and the store revision (the sitemap reads them). */
  publishSource: PublishSource;
  /** The registry's change feed (merchant_changes). */
  changeFeed: ChangeFeedStore;
  outbox: OutboxRepository;
  platformContacts: PlatformContactRepository;
  retention: RetentionRepository;
  /** Lead tracking tokens (HMAC keyed by DATA_DIR/secrets/lead-tracking.key, created on first use). */
  trackingTokens: TrackingTokens;
  /** The form tokens of the merchants' pages (HMAC keyed by DATA_DIR/secrets/page-form.key, created on first use). */
  pageFormTokens: PageFormTokens;
  /** The merchant space's lead email confirmations, and their links' tokens (DATA_DIR/secrets/lead-email.key). */
  leadEmailConfirmations: LeadEmailConfirmationStore;
  leadEmailTokens: LeadEmailTokens;
  /** The merchant space's sessions, sign-ins under way and claims (src/domain/merchant-space/). */
  space: SpaceStore;
  /** The merchant lifecycle's store: the merchant space's edits go through the operator's doors. */
  merchantRegistry: MerchantRegistryStore;
  /** The communes reference, loaded on first use (an edit that moves an address needs it). */
  communes: CommuneLookup;
  /** The places a search's `near` names, from the same reference, loaded on first use. */
  places: PlaceFinder;
  /** The key of the merchant space's CSRF tokens (DATA_DIR/secrets/pro-csrf.key, created on first use). */
  proCsrfSecret: () => Buffer;
  /** ProConnect (PROCONNECT_*), or null when the service has no client there. */
  proConnect: IdentityProvider | null;
  /** Postal letters with single-use codes, and the keys of their hashes (DATA_DIR/secrets/letter-code.key). */
  letters: LetterStore;
  letterCodeKeys: LetterCodeKeys;
  /** Sign-in links of the letter path, and their tokens (DATA_DIR/secrets/pro-sign-in-link.key). */
  signInLinks: SignInLinkStore;
  signInLinkTokens: SignInLinkTokens;
  /** The notices of claims and lead email changes, as the outbox renders them. */
  spaceNotices: SpaceNoticeStore;
  /** Wakes the in-process outbox worker after a commit that wrote outbox rows. */
  notifyOutbox: () => void;
  /** Rejects when the database does not answer (the health check's readiness; a success is kept a second). */
  probeDatabase: () => Promise<void>;
  /** The store this instance serves from, for the health check. */
  storeHealth(): { engine: "sqlite" | "postgres"; revision_notices: "listening" | "not_listening" | null };
  /** Where limits are counted, and whether that store failed in the last 10 seconds. */
  limitsHealth(): { store: "redis" | "postgres" | "file"; state: "ok" | "failing" };
  /** The outbox's backlog for the health check, read at most once a second. */
  outboxHealth: () => Promise<OutboxHealth>;
  /** The search engine's state and lag for the health check, read at most once a second. */
  searchHealth: () => Promise<SearchHealth>;
  now: () => Date;
  close(): void;
}

export function createApp(config: Config, options: { now?: () => Date } = {}): App {
  const store = openStore(config);
  const noticesListening = store.engine === "postgres" ? store.revisionWatch.listening : null;
  const now = options.now ?? (() => new Date());
  const { agents, settings, outbox, merchants, keptCards } = store;
  let limitsFailedAt = Number.NEGATIVE_INFINITY;
  const limitsFailed = (warn: (error: unknown) => void) => (error: unknown) => {
    limitsFailedAt = Date.now();
    warn(error);
  };
  const limitStore = createRateLimitStore(
    config,
    limitsFailed(warnAtMostEveryMinute("rate limit store failed")),
    store.sharedLimits,
  );
  const searchPorts =
    store.engine === "sqlite"
      ? sqliteSearchPorts(store.db, { now })
      : postgresSearchPorts(store.pool, { dataDir: config.dataDir, now });
  const searchEngine = createSearchEngine<EmbeddedIndex>(searchPorts, config, {
    now,
    onFailure: warnAtMostEveryMinute("search engine failed, answering from the fallback"),
    onFollowerFailure: warnAtMostEveryMinute("search index follower failed; it tries again (lag in /api/health)"),
    // Meilisearch is shared: only the leader writes it, through the fence its election gives.
    ...(store.engine === "postgres" ? { meilisearchWriteGate: store.leaderFence.hold } : {}),
  });
  const cardKeeper = createSearchFollower({
    engine: createSearchCardKeeper({
      merchants,
      keptCards,
      orderRailEnabled: config.publicOrderRailEnabled,
      cardCode,
      now,
    }),
    feed: store.searchFeed,
    batchSize: 1_000,
    onError: warnAtMostEveryMinute("search card keeper failed, cards are built when shown"),
  });
  const trustSweeper = createTrustSweeper(
    { store: store.trustSweep, merchants, now },
    { onError: warnAtMostEveryMinute("trust sweep failed; it tries again (search ranks by the trust of before)") },
  );
  return {
    config,
    get db(): Db {
      if (store.engine !== "sqlite") throw new Error("app.db is the SQLite store's; this app serves from PostgreSQL");
      return store.db;
    },
    store,
    merchants,
    search: searchEngine.index,
    searchEngine,
    searchCards: createSearchCardCache(),
    keptCards,
    cardKeeper,
    trustSweeper,
    cardCode,
    preparedAnswers: createRevisionCache<PreparedAnswer>({
      maxEntries: PREPARED_ANSWER_ENTRIES,
      validUntilOf: (answer) => answer.validUntil,
    }),
    keptDocuments: createRevisionCache<KeptDocument>({
      maxEntries: KEPT_DOCUMENT_ENTRIES,
      validUntilOf: (kept) => kept.validUntil,
    }),
    leadTargets: createRevisionCache<AssessedLeadTarget>({
      maxEntries: LEAD_TARGET_ENTRIES,
      validUntilOf: (target) => target.assessment.validUntil,
    }),
    keys: createKeyStore(config, { now }),
    agents,
    orders: store.orders,
    attribution: store.attribution,
    settings,
    access: createAccessServices({
      environmentSuspended: config.agentAccessSuspended,
      limits: config.rateLimitHourly,
      trustProxyHops: config.trustProxyHops,
      agents,
      settings,
      limitStore,
      onLimitStoreFailure: limitsFailed(warnAtMostEveryMinute("rate limit store unavailable, requests let through")),
      ...(options.now ? { limiterClock: () => now().getTime() } : {}),
    }),
    payments: paymentProviderFromConfig(config.stripe),
    leads: store.leads,
    changeFeed: store.changeFeed,
    publishSource: store.publishSource,
    outbox,
    platformContacts: store.platformContacts,
    retention: store.retention,
    trackingTokens: createTrackingTokens(() => loadOrCreateSecret(secretFile(config.dataDir, "leadTracking"))),
    pageFormTokens: createPageFormTokens(() => loadOrCreateSecret(secretFile(config.dataDir, "pageForm"))),
    leadEmailConfirmations: store.leadEmailConfirmations,
    leadEmailTokens: leadEmailTokensOf(config.dataDir),
    space: store.space,
    merchantRegistry: store.merchantRegistry,
    communes: lazyCommuneLookup(),
    places: lazyPlaceFinder(),
    proCsrfSecret: once(() => loadOrCreateSecret(secretFile(config.dataDir, "proCsrf"))),
    proConnect: config.proConnect
      ? createProConnectProvider({
          ...config.proConnect,
          redirectUri: `${config.baseUrl}/pro/connexion/retour`,
          postLogoutRedirectUri: `${config.baseUrl}/pro`,
        })
      : null,
    letters: store.letters,
    letterCodeKeys: createLetterCodeKeys(once(() => loadOrCreateSecret(letterCodeKeyFile(config.dataDir)))),
    signInLinks: store.signInLinks,
    signInLinkTokens: createSignInLinkTokens(once(() => loadOrCreateSecret(signInLinkKeyFile(config.dataDir)))),
    spaceNotices: store.spaceNotices,
    notifyOutbox,
    // Load-balancer traffic: on PostgreSQL each probe is a round trip (read-at-most.ts).
    probeDatabase: readAtMostEvery(HEALTH_READ_INTERVAL_MS, store.probeDatabase),
    storeHealth: () => ({
      engine: store.engine,
      revision_notices: noticesListening ? (noticesListening() ? "listening" : "not_listening") : null,
    }),
    limitsHealth: () => ({
      store: config.redisUrl ? "redis" : store.sharedLimits ? "postgres" : "file",
      state: Date.now() - limitsFailedAt < LIMITS_FAILING_MS ? "failing" : "ok",
    }),
    outboxHealth: createOutboxHealth({ backlog: outbox.backlog, now, cacheMs: HEALTH_READ_INTERVAL_MS }),
    // On PostgreSQL the lag is a count in the shared database: a round trip each time.
    searchHealth: readAtMostEvery(HEALTH_READ_INTERVAL_MS, () => searchEngine.health()),
    now,
    close: () => {
      void searchEngine.follower.stop();
      void searchEngine.fallbackFollower?.stop();
      void cardKeeper.stop();
      void trustSweeper.stop();
      void store.close();
      void limitStore.close?.();
    },
  };
}

/** A value computed on first use, then kept (a secret read from its file once). */
function once<T>(compute: () => T): () => T {
  let value: { of: T } | undefined;
  return () => {
    value ??= { of: compute() };
    return value.of;
  };
}

let cardCodeOfProcess: string | undefined;

/**
 * The code key of the kept search cards (processCardCode); running away from the sources, a key of
 * this process alone: its searches then build their cards rather than trust cards built by code it
 * cannot compare with its own.
 */
function cardCode(): string {
  cardCodeOfProcess ??= processCardCode() ?? `process-${randomBytes(9).toString("base64url")}`;
  return cardCodeOfProcess;
}

/** A fault that can repeat on every request is logged once a minute at most, with the count. */
function warnAtMostEveryMinute(message: string): (error: unknown) => void {
  let lastAt = Number.NEGATIVE_INFINITY;
  let suppressed = 0;
  return (error) => {
    const now = Date.now();
    if (now - lastAt < 60_000) {
      suppressed++;
      return;
    }
    logger.warn(message, { error: error instanceof Error ? error.message : String(error), repeated: suppressed });
    lastAt = now;
    suppressed = 0;
  };
}

let current: App | undefined;

/** The process-wide app, built from the environment on first use. */
export function getApp(): App {
  current ??= createApp(loadConfig());
  return current;
}

/** The places `near` names, read from data/ the first time a search names one. */
function lazyPlaceFinder(): PlaceFinder {
  let finder: PlaceFinder | undefined;
  return {
    find: (text) => {
      finder ??= createPlaceFinder();
      return finder.find(text);
    },
  };
}

/** The communes reference, read from data/ the first time it is asked (a server that edits no address never reads it). */
function lazyCommuneLookup(): CommuneLookup {
  let lookup: CommuneLookup | undefined;
  const loaded = () => {
    lookup ??= createCommuneLookup();
    return lookup;
  };
  return {
    find: (postalCode, city) => loaded().find(postalCode, city),
    findByInsee: (inseeCode) => loaded().findByInsee?.(inseeCode) ?? null,
  };
}
