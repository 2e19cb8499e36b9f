import type { AssessableMerchant } from "../assess-merchant.ts";
import type { Merchant, MerchantProfile, Product, QaCluster, Signal } from "../merchant.ts";
import type { ScorableSignal } from "../trust/compute-trust.ts";

/**
 * The registry's read side as the domain needs it (a port): src/store/merchant-repository.ts
 * implements it with prepared statements. Asynchronous, so that an engine with an asynchronous driver
 * (PostgreSQL) can serve it; each method is one read.
 */
/** What lead creation reads about its merchant: no clusters, no territorial proof. */
export interface LeadTarget {
  /** The fields an assessment reads (no hours, zones, photos...: JSON lead creation never uses). */
  merchant: AssessableMerchant;
  /** Verified signals only, with the fields trust scoring reads (see findTrustSignals). */
  signals: ScorableSignal[];
  /** Empty unless asked for (only a lead naming a brick_id needs them). */
  products: Product[];
}

export interface MerchantRepository {
  findProfile(abId: string): Promise<MerchantProfile | null>;
  /** The lead path's share of findProfile (no Q&A clusters, no territorial proof): half its cost. */
  findLeadTarget(abId: string, options: { withProducts: boolean }): Promise<LeadTarget | null>;
  findMerchants(abIds: string[]): Promise<Merchant[]>;
  findProducts(abIds: string[]): Promise<Product[]>;
  /**
   * The verified signals of each merchant, with only the fields trust scoring reads (key, status,
   * value, expiry): what search results and lead creation need to assess a merchant. Unverified
   * signals score nothing, so they are not read.
   */
  findTrustSignals(abIds: string[]): Promise<Map<string, ScorableSignal[]>>;
  /**
   * One signal of each merchant, whatever its status (a merchant without it is absent): what a
   * page says of one fact of many merchants, as the identity check of each search result.
   */
  findSignal(abIds: string[], key: string): Promise<Map<string, Signal>>;
  findCluster(clusterId: string): Promise<QaCluster | null>;
  findClusters(abId: string): Promise<QaCluster[]>;
  /**
   * A number that moves with every write to merchants, signals, products or territorial proofs,
   * from any connection (triggers keep it, migration 0002): copies of merchant data check it.
   */
  revision(): Promise<number>;
}
