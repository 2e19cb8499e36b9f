import type { MerchantStatus } from "../../schemas/envelope.ts";
import type { Merchant, Product, QaCluster, Signal, TerritorialProof } from "../merchant.ts";

/**
 * What the merchant lifecycle needs from storage (implemented by src/store/
 * merchant-registry-repository.ts). Every write is one transaction: the merchant's rows, its
 * audit event and, when a reader of the listed registry would see it, its change-feed row; the
 * merchant's revision moves by one.
 */
export interface MerchantRegistryStore {
  find(abId: string): RegisteredMerchant | null;
  abIdOfSiret(siret: string): string | null;
  /** The merchants of one company: those whose SIRET starts with this SIREN, archived ones included. */
  abIdsOfSiren(siren: string): string[];
  /** Whether an ab_id is free (new ids are drawn at random). */
  isFree(abId: string): boolean;
  create(write: MerchantCreation): void;
  /** Applies a change made on top of `expectedRevision`; false when the merchant moved meanwhile. */
  update(write: MerchantModification): boolean;
  events(abId: string): MerchantEvent[];
  /**
   * Runs several writes as one transaction (each write inside becomes a savepoint): an import
   * applies a few hundred rows per commit instead of one. Nothing of `work` stays if it throws.
   */
  inOneTransaction<T>(work: () => T): T;
  list(filter: MerchantListFilter): MerchantListing[];
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
  action: "created" | "updated" | "status_changed" | "description_reviewed" | "observed" | "claimed" | "claim_revoked";
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
