/**
 * What the live identity check needs from an official register read through its API (implemented
 * by src/official/recherche-entreprises.ts, the API Recherche d'entreprises): one establishment,
 * looked up by its SIRET, as the register describes it now.
 */
export interface OfficialRegistryLookup {
  /**
   * The establishment with this SIRET, or `establishment: null` when the register does not know it
   * (or does not publish it). Throws an OfficialRegistryError when the register could not answer.
   */
  findEstablishment(siret: string): Promise<OfficialLookup>;
}

export interface OfficialLookup {
  /** The exact address that was queried: the signal's source URL. */
  url: string;
  establishment: RegisteredEstablishment | null;
}

/** One establishment as the register answers for it. */
export interface RegisteredEstablishment {
  siret: string;
  siren: string;
  /** Its administrative state: A (active) is true, F (closed) is false. */
  active: boolean;
  /** When it closed (YYYY-MM-DD), if it did and the register says when. */
  closedOn: string | null;
  /** False when the establishment opposed the publication of its data (diffusion partielle, P). */
  public: boolean;
  /** Its main activity (NAF code, e.g. 10.71C: NAF rev. 2 until 2026, NAF 2025 after), if given. */
  nafCode: string | null;
  /** Its main activity's NAF 2025 code (e.g. 10.71H), if given. */
  nafCode2025: string | null;
  /** Its address in one line, as the register writes it, if given. */
  address: string | null;
  /** The company's name (raison sociale, or the sole trader's name), if given. */
  legalName: string | null;
}

/** Why the register gave no answer: the check is not made and nothing is written. */
export type OfficialRegistryFailure = "timeout" | "unavailable" | "rate_limited" | "refused" | "invalid_answer";

export class OfficialRegistryError extends Error {
  override name = "OfficialRegistryError";
  readonly failure: OfficialRegistryFailure;
  /** The address queried. */
  readonly url: string;

  constructor(failure: OfficialRegistryFailure, url: string, message: string) {
    super(message);
    this.failure = failure;
    this.url = url;
  }
}
