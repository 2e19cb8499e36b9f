import type { MerchantStatus } from "../../schemas/envelope.ts";
import type { Merchant, Product, QaCluster, Signal, TerritorialProof } from "../merchant.ts";
import type { SpaceNotice } from "../merchant-space/space-store.ts";

/**
 * The registry as a batch's decisions read and write it (implemented by src/store/
 * merchant-registry-repository.ts on SQLite, src/store/postgres/merchant-registry-repository.ts on
 * PostgreSQL): synchronous, inside the store's one transaction (`applyBatch`). Every write is the
 * merchant's rows, its audit event and, when a reader of the listed registry would see it, its
 * change-feed row; the merchant's revision moves by one. Later writes of a batch see earlier ones.
 */
export interface MerchantRegistryView {
  find(abId: string): RegisteredMerchant | null;
  abIdOfSiret(siret: string): string | null;
  /** The merchants of one company: those whose SIRET starts with this SIREN, archived ones included. */
  abIdsOfSiren(siren: string): string[];
  /** Whether an ab_id is free (new ids are drawn at random). */
  isFree(abId: string): boolean;
  create(write: MerchantCreation): void;
  /** Applies a change made on top of `expectedRevision`; false when the merchant moved meanwhile. */
  update(write: MerchantModification): boolean;
  /**
   * An official source said again what a merchant's signals already say, same status and value (a
   * newer SIRENE stock, a day's changes): moves their dates and where they were read only
   * (verified_at, recorded_at, expires_at, changed_at, source, source_url, origin of the signals of
   * these keys, which must be recorded already). Not a change of the merchant's record:
   * its revision, audit log and change feed stay; the store revision and the merchant's touch move
   * (what is published shows the dates). Cheap by design: a national stock confirms millions.
   */
  confirm(confirmation: SignalConfirmation): void;
  /**
   * One row of a batch (a savepoint): its writes stay when `decide` returns, none of them when it
   * throws, and the batch goes on with the others.
   */
  row<T>(decide: () => T): T;
  /**
   * Records the digest of the official row a decision has just applied to this merchant (created,
   * updated or found unchanged), with the merchant's revision now: the same row read again, the
   * merchant untouched since, is known unchanged without a decision (officialRowDigests).
   */
  recordOfficialRowDigest(abId: string, digest: string): void;
}

/**
 * What a batch reads: the merchants of these ab_ids, SIRETs and SIRENs (a PostgreSQL store reads
 * them, locked, before the decisions run; a decision asking for another is a mistake of the
 * caller, said by name). New ab_ids need no key: `isFree` answers for them.
 */
export interface RegistryBatchKeys {
  abIds?: readonly string[];
  sirets?: readonly string[];
  sirens?: readonly string[];
}

/**
 * What the merchant lifecycle needs from storage. Reads and single writes answer Promises; work
 * that must see what it writes on (a lifecycle command's read-decide-write, an import's few hundred
 * rows per commit) is one `applyBatch`: the store opens one transaction, reads the batch's
 * merchants, runs the domain's synchronous decisions over them (`MerchantRegistryView`) and
 * commits their writes together. A transaction never spans an await of the domain.
 */
export interface MerchantRegistryStore {
  find(abId: string): Promise<RegisteredMerchant | null>;
  abIdOfSiret(siret: string): Promise<string | null>;
  /** The merchants of one company: those whose SIRET starts with this SIREN, archived ones included. */
  abIdsOfSiren(siren: string): Promise<string[]>;
  create(write: MerchantCreation): Promise<void>;
  /** Applies a change made on top of `expectedRevision`; false when the merchant moved meanwhile. */
  update(write: MerchantModification): Promise<boolean>;
  events(abId: string): Promise<MerchantEvent[]>;
  list(filter: MerchantListFilter): Promise<MerchantListing[]>;
  /**
   * Runs `decide` over the registry in one transaction and answers what it returned: nothing stays
   * when `decide` throws; a `row` of it that throws leaves only its own writes out.
   */
  applyBatch<T>(keys: RegistryBatchKeys, decide: (view: MerchantRegistryView) => T): Promise<T>;
  /**
   * The SIRETs of the merchants, archived ones included, in code-unit order, after `after` (null:
   * from the first), `limit` at most: what an import of a national file asks to know which closing
   * rows concern the registry. Archived ones are not left out: the SIRET index alone answers (a
   * scan of it, where reading each merchant's status took 6 µs a merchant, 14 s at 2.2 million),
   * and the few closing rows of archived merchants go to the domain, which leaves them be.
   */
  sirets(after: string | null, limit: number): Promise<string[]>;
  /**
   * For those of these SIRETs held by one merchant only, still at the revision recorded with its
   * official row's digest (recordOfficialRowDigest), that digest; the others are left out.
   */
  officialRowDigests(sirets: readonly string[]): Promise<Map<string, string>>;
}

export interface RegisteredMerchant {
  merchant: Merchant;
  revision: number;
  territorialProof: TerritorialProof | null;
  products: Product[];
  signals: Signal[];
  clusters: QaCluster[];
  /** The merchant's account at the payment provider, when one is known. */
  paymentAccountId: string | null;
}

/** Who made a change: `operator:<name>`, `merchant`, `import:<source>`. */
export type Actor = string;

export interface MerchantEventInput {
  at: string;
  actor: Actor;
  action:
    | "created"
    | "updated"
    | "status_changed"
    | "description_reviewed"
    | "observed"
    | "claimed"
    | "claim_revoked"
    | "letter_locked"
    | "qa_reviewed";
  changes: Record<string, { from: unknown; to: unknown }>;
  reason: string | null;
}

export interface MerchantEvent extends MerchantEventInput {
  eventId: number;
  revision: number;
}

export interface MerchantCreation {
  merchant: Merchant;
  territorialProof: TerritorialProof | null;
  products: Product[];
  /** Signals recorded with the merchant (an official file's identity check). */
  signals?: Signal[];
  event: MerchantEventInput;
  feed: "created" | null;
}

/** The new dates of signals a source confirmed, by key (`confirm`). */
export interface SignalConfirmation {
  abId: string;
  signals: Pick<
    Signal,
    "key" | "source" | "sourceUrl" | "verifiedAt" | "recordedAt" | "expiresAt" | "changedAt" | "origin"
  >[];
}

export interface MerchantModification {
  abId: string;
  expectedRevision: number;
  /** Columns to set, in the domain's names. */
  fields: Partial<Merchant>;
  /** When given, the merchant's whole product list afterwards. */
  products: Product[] | null;
  territorialProof: TerritorialProof | null | undefined;
  /** Signals written (replacing those of the same key) in the same transaction. */
  signals?: Signal[];
  /** When given, the merchant's whole list of Q&A clusters afterwards. */
  clusters?: QaCluster[];
  /** When given, the merchant's account at the payment provider. */
  paymentAccountId?: string | null;
  event: MerchantEventInput;
  feed: "created" | "updated" | "withdrawn" | null;
  /** A change of the lead email is told: its notice, written with the change (space-notices.ts). */
  notice?: SpaceNotice;
}

export interface MerchantListFilter {
  status?: MerchantStatus;
  sector?: string;
  department?: string;
  limit: number;
}

export interface MerchantListing {
  abId: string;
  businessName: string;
  status: MerchantStatus;
  sector: string;
  postalCode: string;
  city: string;
  revision: number;
  updatedAt: string;
}

/** Finds the commune of a declared address in the reference data (for the territorial proof). */
export interface CommuneLookup {
  find(postalCode: string, city: string): CommuneMatch | null;
  /** By INSEE commune code (the official files give it). */
  findByInsee?(inseeCode: string): CommuneMatch | null;
}

export interface CommuneMatch {
  insee: string;
  name: string;
  /** Its centroid; null for a commune the reference does not place (a geocoded file places its merchants). */
  lat: number | null;
  lng: number | null;
  population: number;
  department: string;
  region: string;
  epci: string | null;
}

export interface MerchantLifecycleDeps {
  registry: MerchantRegistryStore;
  communes: CommuneLookup;
  now: () => Date;
  /** Random source for new ab_ids (injectable for tests). */
  randomId?: () => string;
  /** Source of new product, brick and Q&A ids (default random UUIDs; the demo's are drawn from its seed). */
  newId?: () => string;
}

/** What a lifecycle decision runs with: the same, the registry seen from inside one batch. */
export interface MerchantDecisionDeps {
  registry: MerchantRegistryView;
  communes: CommuneLookup;
  now: () => Date;
  /** Random source for new ab_ids (injectable for tests). */
  randomId?: () => string;
  /** Source of new product, brick and Q&A ids (default random UUIDs; the demo's are drawn from its seed). */
  newId?: () => string;
}

/**
 * Runs lifecycle decisions (synchronous, over the registry as one batch reads it) as one store
 * transaction: a command's read-decide-write, a batch of one, or an import's rows.
 */
export function decideInRegistry<Deps extends { registry: MerchantRegistryStore }, T>(
  deps: Deps,
  keys: RegistryBatchKeys,
  decide: (decisionDeps: Omit<Deps, "registry"> & { registry: MerchantRegistryView }) => T,
): Promise<T> {
  return deps.registry.applyBatch(keys, (view) => decide({ ...deps, registry: view }));
}
