import type { BrandVoice, HoursException, MerchantClosure, SignalNotice } from "../domain/merchant.ts";
import { index, integer, primaryKey, real, sql, sqliteTable, text, uniqueIndex } from "./drizzle.ts";
import { NUMBERED_BY_THE_STORE } from "./rowid.ts";

export type { BrandVoice } from "../domain/merchant.ts";

/*
 * Tables for the whole contract. Timestamps are ISO-8601 strings (UTC) so that documents can
 * echo them unchanged; JSON columns hold small, bounded structures read as a whole.
 * Keep in step with src/store/migrations/ (test/unit/store-schema.test.ts checks both agree).
 */

/** A rowid an insert leaves out, numbered by either engine (rowid.ts). */
const numberedByTheStore = () => sql.raw(NUMBERED_BY_THE_STORE);

export const merchants = sqliteTable(
  "merchants",
  {
    abId: text("ab_id").primaryKey(),
    siret: text("siret").notNull(),
    legalName: text("legal_name").notNull(),
    businessName: text("business_name").notNull(),
    slug: text("slug").notNull(),
    /** The main activity's code: NAF rev. 2 when the source gives one, else NAF 2025 (docs/decisions.md). */
    nafCode: text("naf_code").notNull(),
    /** The main activity's NAF 2025 code, when the source gives one. */
    nafCode2025: text("naf_code_2025"),
    sector: text("sector").notNull(),
    status: text("status").notNull(),
    rcs: text("rcs"),
    vatIntracom: text("vat_intracom"),
    street: text("street").notNull(),
    postalCode: text("postal_code").notNull(),
    city: text("city").notNull(),
    phone: text("phone"),
    email: text("email"),
    website: text("website"),
    description: text("description"),
    descriptionLlmUnreviewed: integer("description_llm_unreviewed", { mode: "boolean" }).notNull().default(false),
    brandVoice: text("brand_voice", { mode: "json" }).$type<BrandVoice | null>(),
    brandUpdatedAt: text("brand_updated_at"),
    hours: text("hours", { mode: "json" }).$type<Record<string, string> | null>(),
    /** The merchant's dated exceptions to its usual week (HoursException[]); null: none. */
    hoursExceptions: text("hours_exceptions", { mode: "json" }).$type<HoursException[] | null>(),
    timezone: text("timezone").notNull().default("Europe/Paris"),
    zones: text("zones", { mode: "json" }).$type<string[]>().notNull(),
    areasDeclaredAt: text("areas_declared_at"),
    deliveryEnabled: integer("delivery_enabled", { mode: "boolean" }).notNull().default(false),
    deliveryRadiusKm: real("delivery_radius_km"),
    languages: text("languages", { mode: "json" }).$type<string[]>().notNull(),
    foundedOn: text("founded_on").notNull(),
    domainAgeYears: integer("domain_age_years"),
    listingRating: real("listing_rating"),
    listingReviewCount: integer("listing_review_count"),
    listingPhotosCount: integer("listing_photos_count").notNull().default(0),
    terrainPhotos: text("terrain_photos", { mode: "json" }).$type<string[]>().notNull(),
    sameAs: text("same_as", { mode: "json" }).$type<string[]>().notNull(),
    paymentSetup: integer("payment_setup", { mode: "boolean" }).notNull().default(false),
    paymentAccountId: text("payment_account_id"),
    /** The official closure (SIRENE, BODACC), null while open: such a merchant is never a search hit. */
    closure: text("closure", { mode: "json" }).$type<MerchantClosure | null>(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    /** Moves by one with every change of the merchant's own record (merchant_changes has each). */
    revision: integer("revision").notNull().default(1),
  },
  (table) => [index("merchants_status").on(table.status), index("merchants_siret").on(table.siret)],
);

export const territorialProofs = sqliteTable("territorial_proofs", {
  abId: text("ab_id")
    .primaryKey()
    .references(() => merchants.abId, { onDelete: "cascade" }),
  latitude: real("latitude"),
  longitude: real("longitude"),
  inseeCode: text("insee_code"),
  postalCode: text("postal_code"),
  cityNormalized: text("city_normalized"),
  geocodingSource: text("geocoding_source"),
  geocodingScore: real("geocoding_score"),
  verified: integer("verified", { mode: "boolean" }).notNull().default(false),
  verifiedAt: text("verified_at"),
  population: integer("population"),
  departmentCode: text("department_code"),
  regionCode: text("region_code"),
  epciCode: text("epci_code"),
});

/** Products are "bricks": the unit an agent can name in a lead (brick_id) or an order (product_id). */
export const products = sqliteTable(
  "products",
  {
    productId: text("product_id").primaryKey(),
    brickId: text("brick_id").notNull(),
    abId: text("ab_id")
      .notNull()
      .references(() => merchants.abId, { onDelete: "cascade" }),
    slug: text("slug").notNull(),
    brickType: text("brick_type").notNull(),
    name: text("name").notNull(),
    description: text("description").notNull(),
    priceCents: integer("price_cents"),
    currency: text("currency").notNull().default("EUR"),
    pricingModel: text("pricing_model").notNull(),
    inventoryStatus: text("inventory_status").notNull(),
    imageUrl: text("image_url"),
    externalUrl: text("external_url"),
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull(),
    isLocked: integer("is_locked", { mode: "boolean" }).notNull().default(false),
    position: integer("position").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [
    index("products_merchant").on(table.abId, table.position),
    uniqueIndex("products_brick").on(table.brickId),
    uniqueIndex("products_merchant_slug").on(table.abId, table.slug),
  ],
);

/**
 * One row per merchant and signal key: credentials (siret_verified, company_age_years, ...) and
 * evidence signals share this table. `value` holds the observed value (a number, a rating, a
 * boolean) the scoring rules read.
 */
export const signals = sqliteTable(
  "signals",
  {
    abId: text("ab_id")
      .notNull()
      .references(() => merchants.abId, { onDelete: "cascade" }),
    key: text("key").notNull(),
    status: text("status").notNull(),
    proofStatus: text("proof_status").notNull(),
    source: text("source").notNull(),
    sourceUrl: text("source_url"),
    value: text("value", { mode: "json" }).$type<number | string | boolean | null>(),
    verifiedAt: text("verified_at"),
    recordedAt: text("recorded_at").notNull(),
    expiresAt: text("expires_at"),
    /** The official notice the status rests on (JSON), e.g. the BODACC announcement behind a failed bodacc_clean. */
    notice: text("notice", { mode: "json" }).$type<SignalNotice | null>(),
    /**
     * When the source's own record last changed, where it says (SIRENE's dateDernierTraitement):
     * shown as such, never taken as the check's date (verified_at is when the source said so).
     */
    changedAt: text("changed_at"),
    /** Which official source said so, as merchant.sources names it (sirene, bodacc, recherche-entreprises). */
    origin: text("origin"),
  },
  (table) => [
    primaryKey({ columns: [table.abId, table.key] }),
    // Trust reads a merchant's verified signals on every search result card, resolve and lead:
    // covered by this index, they are read without a table lookup per signal (about 17 a merchant).
    index("signals_verified")
      .on(table.abId, table.key, table.value, table.expiresAt)
      .where(sql`${table.status} = 'verified'`),
    // The sweep of trust changes (src/domain/trust/trust-sweep.ts) reads the verified signals
    // expiring in a stretch of time, and those recorded as given dates (a company's creation date
    // whose anniversary is a step), as ranges of these.
    index("signals_expiring")
      .on(table.expiresAt, table.abId)
      .where(sql`${table.status} = 'verified' AND ${table.expiresAt} IS NOT NULL`),
    index("signals_recorded").on(table.key, table.value, table.abId).where(sql`${table.status} = 'verified'`),
  ],
);

export const qaClusters = sqliteTable(
  "qa_clusters",
  {
    clusterId: text("cluster_id").primaryKey(),
    abId: text("ab_id")
      .notNull()
      .references(() => merchants.abId, { onDelete: "cascade" }),
    label: text("label").notNull(),
    type: text("type").notNull(),
    scope: text("scope").notNull(),
    brickId: text("brick_id"),
    position: integer("position").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [index("qa_clusters_merchant").on(table.abId, table.position)],
);

export const qaNodes = sqliteTable(
  "qa_nodes",
  {
    nodeId: text("node_id").primaryKey(),
    clusterId: text("cluster_id")
      .notNull()
      .references(() => qaClusters.clusterId, { onDelete: "cascade" }),
    intent: text("intent").notNull(),
    question: text("question").notNull(),
    answer: text("answer").notNull(),
    answerBluf: text("answer_bluf").notNull(),
    claimSentence: text("claim_sentence").notNull().default(""),
    verificationLevel: text("verification_level").notNull(),
    factLevel: text("fact_level").notNull(),
    /** The signal a verified fact level rests on (src/domain/trust/answer-fact.ts); null: none. */
    factSignal: text("fact_signal"),
    factSourceUrl: text("fact_source_url"),
    editedByMerchant: integer("edited_by_merchant", { mode: "boolean" }).notNull().default(false),
    driftSeverity: text("drift_severity"),
    humanVerifiedAt: text("human_verified_at"),
    position: integer("position").notNull(),
  },
  (table) => [index("qa_nodes_cluster").on(table.clusterId, table.position)],
);

/** Key/value settings operators change at run time (kill switch, ...). */
export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: text("updated_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
});

/**
 * One row whose `revision` grows with every write to merchants, signals, products or territorial
 * proofs, from any connection or process: triggers (migration 0002) keep it, so an in-memory copy
 * of merchant data (the search result cards) knows with one tiny read whether it is still current.
 */
export const storeRevision = sqliteTable("store_revision", {
  id: integer("id").primaryKey(),
  revision: integer("revision").notNull().default(0),
  /**
   * 1 while a registry batch (merchant-registry-repository.ts) writes on SQLite: the touch triggers
   * stand aside and the batch touches each merchant it wrote once, before it commits; a national
   * import's merchant fired them four times (its row, place and two signals). Set and cleared inside
   * the batch's transaction, so no other connection ever reads it set. PostgreSQL's triggers do not
   * read it (its column stays 0).
   */
  deferredTouches: integer("deferred_touches").notNull().default(0),
});

/**
 * The last store revision at which each merchant's published inputs (its row, products, signals,
 * territorial proof, Q&A clusters and nodes) were written, by any writer: triggers of migration
 * 0007 bump `store_revision` and record it here in the same statement. The refresh job reads the
 * merchants touched since its last run's revision instead of stamping the whole registry.
 */
export const merchantTouches = sqliteTable(
  "merchant_touches",
  {
    abId: text("ab_id").primaryKey(),
    touch: integer("touch").notNull(),
  },
  (table) => [index("merchant_touches_touch").on(table.touch)],
);

/**
 * Search result cards built ahead by the owner process (src/domain/registry/keep-search-cards.ts),
 * so that a query no process has seen reads its cards instead of building them from three tables.
 * A card is current while its merchant has no touch after `built_at` and `valid_until` (its first
 * counted signal expiry) has not passed; `format` names the code and settings it was built with.
 */
export const keptCards = sqliteTable(
  "kept_cards",
  {
    abId: text("ab_id")
      .primaryKey()
      .references(() => merchants.abId, { onDelete: "cascade" }),
    format: text("format").notNull(),
    builtAt: integer("built_at").notNull(),
    validUntil: text("valid_until"),
    card: text("card").notNull(),
  },
  (table) => [index("kept_cards_valid_until").on(table.format, table.validUntil)],
);

/**
 * Where the sweep of trust changes got to (src/domain/trust/trust-sweep.ts): one row, its position
 * as JSON (TrustSweepPosition), moved with the touches it records, in one transaction.
 */
export const trustSweeps = sqliteTable("trust_sweeps", {
  id: integer("id").primaryKey(),
  position: text("position").notNull(),
});

/** The store revision the kept cards of a format reflect (the card keeper's cursor). */
export const keptCardCursors = sqliteTable("kept_card_cursors", {
  format: text("format").primaryKey(),
  revision: integer("revision").notNull(),
});

/**
 * The digest of the official row (a SIRENE stock's) last applied to each merchant, and the
 * merchant's revision right after: a row read again with that digest, its merchant still at that
 * revision, is known unchanged without a decision (src/import/sirene/import-sirene.ts).
 */
export const officialRowDigests = sqliteTable("official_row_digests", {
  abId: text("ab_id")
    .primaryKey()
    .references(() => merchants.abId, { onDelete: "cascade" }),
  digest: text("digest").notNull(),
  revision: integer("revision").notNull(),
});

/* ---- The merchants' lifecycle: who changed what, and the feed of changes ---- */

/**
 * The audit log: one row per change an operator, a merchant or an import made to a merchant,
 * append-only (triggers of migration 0004 refuse UPDATE and DELETE).
 */
export const merchantEvents = sqliteTable(
  "merchant_events",
  {
    eventId: integer("event_id").primaryKey({ autoIncrement: true }).$defaultFn(numberedByTheStore),
    abId: text("ab_id").notNull(),
    at: text("at").notNull(),
    actor: text("actor").notNull(),
    action: text("action").notNull(),
    /** JSON: { field: { from, to } } for what changed. */
    changes: text("changes").notNull(),
    reason: text("reason"),
    revision: integer("revision").notNull(),
  },
  (table) => [index("merchant_events_merchant").on(table.abId, table.eventId)],
);

/** The change feed: one row per merchant revision, in commit order (`seq` is the cursor). */
export const merchantChanges = sqliteTable(
  "merchant_changes",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }).$defaultFn(numberedByTheStore),
    abId: text("ab_id").notNull(),
    revision: integer("revision").notNull(),
    /** created, updated or withdrawn, as a reader of the listed registry sees it. */
    change: text("change").notNull(),
    changedAt: text("changed_at").notNull(),
  },
  (table) => [index("merchant_changes_merchant").on(table.abId, table.seq)],
);

/* ---- Write side: leads, their delivery, agents, attribution, orders ---- */

export const leads = sqliteTable(
  "leads",
  {
    leadId: text("lead_id").primaryKey(),
    abId: text("ab_id")
      .notNull()
      .references(() => merchants.abId),
    brickId: text("brick_id"),
    intent: text("intent"),
    leadType: text("lead_type").notNull(),
    contactName: text("contact_name").notNull(),
    contactEmail: text("contact_email").notNull(),
    contactPhone: text("contact_phone"),
    message: text("message"),
    aiContext: text("ai_context"),
    intentData: text("intent_data", { mode: "json" }).$type<Record<string, string> | null>(),
    metadata: text("metadata", { mode: "json" }).$type<Record<string, unknown> | null>(),
    agentId: text("agent_id"),
    /** page (the form of the merchant's page) or api (the lead endpoint, the MCP tool); null before it was kept. */
    channel: text("channel"),
    /** received -> delivered | failed; anonymized once the retention period is over. */
    trackingStatus: text("tracking_status").notNull(),
    createdAt: text("created_at").notNull(),
    deliveredAt: text("delivered_at"),
    failedAt: text("failed_at"),
    anonymizedAt: text("anonymized_at"),
    /*
     * Issue 25 (pro-leads): the merchant's own word on the lead, from its space, kept apart from
     * tracking_status (which stays the delivery of the notification): null until the merchant acts,
     * then answered | handled | declined (src/domain/leads/respond-to-lead.ts), and when it last did.
     */
    merchantStatus: text("merchant_status"),
    merchantStatusAt: text("merchant_status_at"),
    /** The audit actor who set it (`merchant:<claim id>`). */
    merchantStatusBy: text("merchant_status_by"),
  },
  (table) => [index("leads_merchant").on(table.abId, table.createdAt), index("leads_created").on(table.createdAt)],
);

/**
 * The 24-hour duplicate rule as a constraint (src/domain/leads/duplicate-rule.ts): one row per
 * (merchant, normalised email, lead type, caller) holding the lead that opened the window. An
 * upsert replaces it only once the window is over, so concurrent identical submissions cannot both
 * create a lead. The caller is `agent:<agent id>` or `ip:<client address>`; the retention job
 * deletes windows once over, so an address is kept a day or two at most.
 */
export const leadDedupWindows = sqliteTable(
  "lead_dedup_windows",
  {
    abId: text("ab_id").notNull(),
    emailNormalized: text("email_normalized").notNull(),
    leadType: text("lead_type").notNull(),
    callerScope: text("caller_scope").notNull(),
    leadId: text("lead_id").notNull(),
    windowEndsAt: text("window_ends_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.abId, table.emailNormalized, table.leadType, table.callerScope] })],
);

/** Idempotency-Key answers, scoped by caller (agent id or client address) and operation. */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    resourceId: text("resource_id").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.scope, table.key] })],
);

export const leadMessages = sqliteTable(
  "lead_messages",
  {
    messageId: text("message_id").primaryKey(),
    leadId: text("lead_id")
      .notNull()
      .references(() => leads.leadId),
    /**
     * agent_to_merchant (a follow-up, emailed to the merchant); merchant_to_person (the merchant's
     * answer from its space, emailed to the person who wrote: issue 25).
     */
    direction: text("direction").notNull(),
    body: text("body").notNull(),
    status: text("status").notNull(),
    createdAt: text("created_at").notNull(),
    anonymizedAt: text("anonymized_at"),
    /** Who wrote a merchant's answer (`merchant:<claim id>`, issue 25); null for an agent's follow-up. */
    author: text("author"),
  },
  (table) => [index("lead_messages_lead").on(table.leadId, table.createdAt)],
);

/** Transactional outbox: written with the record it announces, delivered by a worker with retries. */
export const outbox = sqliteTable(
  "outbox",
  {
    messageId: text("message_id").primaryKey(),
    /** lead_notification, lead_follow_up, lead_answer, platform_contact, space_sign_in_link, lead_email_confirmation, space_notice */
    kind: text("kind").notNull(),
    subjectId: text("subject_id").notNull(),
    status: text("status").notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: text("next_attempt_at").notNull(),
    lastError: text("last_error"),
    createdAt: text("created_at").notNull(),
    sentAt: text("sent_at"),
    /** `<host>:<pid>` of the process whose claim holds the row (the one sending it), if any. */
    claimedBy: text("claimed_by"),
  },
  (table) => [index("outbox_due").on(table.status, table.nextAttemptAt)],
);

export const platformContacts = sqliteTable("platform_contacts", {
  contactId: text("contact_id").primaryKey(),
  type: text("type").notNull(),
  name: text("name").notNull(),
  email: text("email").notNull(),
  phone: text("phone"),
  company: text("company"),
  message: text("message").notNull(),
  status: text("status").notNull(),
  createdAt: text("created_at").notNull(),
  anonymizedAt: text("anonymized_at"),
});

export const agents = sqliteTable(
  "agents",
  {
    agentId: text("agent_id").primaryKey(),
    agentName: text("agent_name").notNull(),
    agentUrl: text("agent_url"),
    contactEmail: text("contact_email").notNull(),
    requestedLevel: integer("requested_level").notNull(),
    certificationLevel: integer("certification_level").notNull(),
    /** active, pending_verification, suspended, revoked */
    status: text("status").notNull(),
    capabilities: text("capabilities", { mode: "json" }).$type<string[]>().notNull(),
    keyHash: text("key_hash").notNull(),
    keyPrefix: text("key_prefix").notNull(),
    /**
     * Pseudonymous key of the address the agent registered from (registrantKey): the keys one
     * address registered share one hourly budget. Null for agents registered before it existed.
     */
    registeredFrom: text("registered_from"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [uniqueIndex("agents_key_hash").on(table.keyHash)],
);

export const attributionSessions = sqliteTable(
  "attribution_sessions",
  {
    sessionId: text("session_id").primaryKey(),
    agentId: text("agent_id"),
    abId: text("ab_id"),
    /** bot_user_agent, campaign or referrer: the strongest evidence present. */
    evidenceLevel: text("evidence_level").notNull(),
    referrer: text("referrer"),
    campaign: text("campaign", { mode: "json" }).$type<Record<string, string> | null>(),
    userAgentFamily: text("user_agent_family"),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    convertedAt: text("converted_at"),
    leadId: text("lead_id"),
    orderId: text("order_id"),
  },
  (table) => [index("attribution_expires").on(table.expiresAt)],
);

export const orders = sqliteTable(
  "orders",
  {
    orderId: text("order_id").primaryKey(),
    abId: text("ab_id")
      .notNull()
      .references(() => merchants.abId),
    items: text("items", { mode: "json" })
      .$type<{ product_id: string; quantity: number; unit_cents: number }[]>()
      .notNull(),
    amountCents: integer("amount_cents").notNull(),
    currency: text("currency").notNull(),
    fulfillmentType: text("fulfillment_type").notNull(),
    deliveryAddress: text("delivery_address", { mode: "json" }).$type<Record<string, string> | null>(),
    userEmail: text("user_email"),
    customerNotes: text("customer_notes"),
    agentId: text("agent_id"),
    /** payment_pending, paid, cancelled */
    status: text("status").notNull(),
    paymentProvider: text("payment_provider").notNull(),
    paymentIntentId: text("payment_intent_id"),
    checkoutUrl: text("checkout_url"),
    createdAt: text("created_at").notNull(),
    anonymizedAt: text("anonymized_at"),
  },
  (table) => [index("orders_merchant").on(table.abId, table.createdAt)],
);

/* ---- The merchant space (issue 25): sessions of people signed in, and their claims on listings ---- */

/**
 * A person's session in the merchant space (/pro). The cookie carries a random token; only its
 * SHA-256 is kept here, so a copy of the database opens no session. The person's identity is
 * what ProConnect (or a letter code) said at sign-in; `id_token` is kept for sign-out's
 * id_token_hint at ProConnect. A session ends at `idle_expires_at` (moved by each use),
 * at `absolute_expires_at` (never moved), or when `ended_at` is set (sign-out, a newer sign-in
 * from the same browser, a revoked claim).
 */
export const proSessions = sqliteTable(
  "pro_sessions",
  {
    sessionId: text("session_id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    subject: text("subject").notNull(),
    email: text("email"),
    givenName: text("given_name"),
    usualName: text("usual_name"),
    siret: text("siret"),
    siren: text("siren"),
    /** proconnect or letter: how the person got in. */
    via: text("via").notNull(),
    /** ProConnect's acr (how well it knows the person), amr (JSON array of methods) and idp_id; null for a letter. */
    acr: text("acr"),
    amr: text("amr"),
    idpId: text("idp_id"),
    idToken: text("id_token"),
    createdAt: text("created_at").notNull(),
    lastSeenAt: text("last_seen_at").notNull(),
    idleExpiresAt: text("idle_expires_at").notNull(),
    absoluteExpiresAt: text("absolute_expires_at").notNull(),
    endedAt: text("ended_at"),
    /** sign_out, replaced, claim_revoked, expired, identity_changed. */
    endedReason: text("ended_reason"),
  },
  (table) => [uniqueIndex("pro_sessions_token").on(table.tokenHash), index("pro_sessions_subject").on(table.subject)],
);

/**
 * A sign-in under way at ProConnect: what the callback must find again (state, nonce, PKCE
 * verifier), kept here rather than in the URL or a cookie. The browser holds a random token whose
 * SHA-256 is the key; the row is taken once (`used_at`), so a replayed callback finds nothing.
 */
export const proSignIns = sqliteTable(
  "pro_sign_ins",
  {
    tokenHash: text("token_hash").primaryKey(),
    state: text("state").notNull(),
    nonce: text("nonce").notNull(),
    codeVerifier: text("code_verifier").notNull(),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    usedAt: text("used_at"),
  },
  (table) => [index("pro_sign_ins_expires").on(table.expiresAt)],
);

/**
 * Who may manage a listing: one row per person and listing (several people of one company may
 * claim one listing). Revoked rows stay, with who revoked them and why (the operator sees every
 * claim); each claim and revocation is also in the merchant's audit log (merchant_events).
 */
export const merchantClaims = sqliteTable(
  "merchant_claims",
  {
    claimId: text("claim_id").primaryKey(),
    abId: text("ab_id")
      .notNull()
      .references(() => merchants.abId),
    siren: text("siren").notNull(),
    subject: text("subject").notNull(),
    email: text("email"),
    /** The email address in lower case: who the person is across doors (revocation); null before issue 36. */
    emailKey: text("email_key"),
    /** proconnect or letter: how the person proved it may manage the listing. */
    via: text("via").notNull(),
    /** What the claim rests on: siret, siren (certification-dirigeant) or letter; null before issue 36. */
    basis: text("basis"),
    /** The proof's ProConnect acr, amr (JSON array) and idp_id; null for a letter. */
    acr: text("acr"),
    amr: text("amr"),
    idpId: text("idp_id"),
    createdAt: text("created_at").notNull(),
    /** Set when a later sign-in no longer carried the basis (the claim opens nothing); cleared when one does again. */
    lapsedAt: text("lapsed_at"),
    revokedAt: text("revoked_at"),
    revokedBy: text("revoked_by"),
    revokedReason: text("revoked_reason"),
  },
  (table) => [
    index("merchant_claims_merchant").on(table.abId, table.createdAt),
    index("merchant_claims_subject").on(table.subject),
    // A revocation holds against the person's email address too, compared without case (issue 36).
    index("merchant_claims_email_key").on(table.emailKey),
    // One live claim per person and listing: claiming twice is answered with the claim already held.
    uniqueIndex("merchant_claims_live").on(table.abId, table.subject).where(sql`${table.revokedAt} IS NULL`),
  ],
);

/* ---- Merchant space: postal letters with single-use codes, and sign-in links (issue 25, pro-letters) ---- */

/**
 * One row per letter sent to an establishment. The code is never stored: only keyed hashes of its
 * two halves (src/domain/merchant-space/letter-code.ts). Single use (used_at), expires, locked
 * after a few wrong tries, superseded by a newer letter to the same establishment.
 */
export const letterCodes = sqliteTable(
  "letter_codes",
  {
    letterId: text("letter_id").primaryKey(),
    abId: text("ab_id")
      .notNull()
      .references(() => merchants.abId),
    batchId: text("batch_id").notNull(),
    locatorHash: text("locator_hash").notNull(),
    secretHash: text("secret_hash").notNull(),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    usedAt: text("used_at"),
    failedAttempts: integer("failed_attempts").notNull().default(0),
    lockedAt: text("locked_at"),
    supersededAt: text("superseded_at"),
  },
  (table) => [uniqueIndex("letter_codes_locator").on(table.locatorHash), index("letter_codes_merchant").on(table.abId)],
);

/**
 * A sign-in link asked by email by a merchant who came in by letter (no ProConnect to come back
 * with). The link's token is derived from link_id with a keyed MAC and never stored; single use
 * (used_at), it expires after a few minutes.
 */
export const spaceSignInLinks = sqliteTable(
  "space_sign_in_links",
  {
    linkId: text("link_id").primaryKey(),
    claimId: text("claim_id").notNull(),
    email: text("email").notNull(),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    usedAt: text("used_at"),
  },
  (table) => [index("space_sign_in_links_expiry").on(table.expiresAt)],
);

/* --- Merchant space, listing edits (issue 25, pro-edits) --- */

/**
 * A lead email the merchant asked for from its space, waiting for the link sent to it. Only the
 * SHA-256 of the link's token is kept (the token is an HMAC of the id, so the outbox can write the
 * link again without storing it). Leads keep going to the merchant's current email until one is
 * confirmed (docs/decisions.md).
 */
export const leadEmailConfirmations = sqliteTable(
  "lead_email_confirmations",
  {
    confirmationId: text("confirmation_id").primaryKey(),
    abId: text("ab_id")
      .notNull()
      .references(() => merchants.abId),
    email: text("email").notNull(),
    tokenHash: text("token_hash").notNull(),
    /** The audit actor who asked (`merchant:<claimId>`): the email change is theirs once confirmed. */
    requestedBy: text("requested_by").notNull(),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    sentAt: text("sent_at"),
    confirmedAt: text("confirmed_at"),
    /**
     * A later request of the same listing replaces this one; a confirmed change that waited for its
     * notice and was not applied (a later change confirmed, its claim revoked) is withdrawn too.
     */
    withdrawnAt: text("withdrawn_at"),
    /**
     * Confirmed, the change waits for this notice to the address in force (space_notices) to be
     * sent: the outbox's settling of that notice applies it, then clears this (docs/decisions.md,
     * "Issue 36: notices of claims and lead email changes").
     */
    waitingNoticeId: text("waiting_notice_id"),
  },
  (table) => [
    uniqueIndex("lead_email_confirmations_token").on(table.tokenHash),
    index("lead_email_confirmations_merchant").on(table.abId, table.createdAt),
  ],
);

/**
 * A notice of a change of who manages a listing (a claim) or where its leads go (a lead email
 * change), one row per person told: the lead address in force before the change, and each other
 * live claimant. Written in the transaction of the change, with its outbox row (kind
 * `space_notice`, the row's id as subject); the email is rendered from it at delivery.
 */
export const spaceNotices = sqliteTable(
  "space_notices",
  {
    noticeId: text("notice_id").primaryKey(),
    abId: text("ab_id")
      .notNull()
      .references(() => merchants.abId),
    /** claimed or lead_email_changed */
    what: text("what").notNull(),
    /** When the change was made. */
    at: text("at").notNull(),
    /** The claim that acted (the claim made, or the claim that asked the change); null: the operators. */
    byClaimId: text("by_claim_id"),
    /** A lead email change: the address before and after. */
    fromEmail: text("from_email"),
    toEmail: text("to_email"),
    /** The merchant's change (lead_email_confirmations) this notice tells of, if any. */
    confirmationId: text("confirmation_id"),
    recipient: text("recipient").notNull(),
    /** lead_address (the address in force before the change) or claimant */
    recipientRole: text("recipient_role").notNull(),
  },
  (table) => [index("space_notices_at").on(table.at)],
);
/* --- The files every machine of a deployment holds alike (issue 36) --- */

/**
 * The SHA-256 of each secret under DATA_DIR/secrets and of the signing keys (DATA_DIR/keys), as
 * the deployment's first server or command recorded them (jobs/shared-files.ts): a machine, or a
 * DATA_DIR restored without its secrets, whose copy is missing or different is refused instead of
 * making a new one. Only fingerprints: the secrets never go into the database. On PostgreSQL the
 * table came first by hand (migration 0004_deployment_files), with these very columns.
 */
export const deploymentFiles = sqliteTable("deployment_files", {
  /** `secrets/<file>` or `keys`. */
  name: text("name").primaryKey(),
  sha256: text("sha256").notNull(),
  recordedAt: text("recorded_at").notNull(),
  /** The host name of the machine that recorded it. */
  recordedBy: text("recorded_by").notNull(),
});
