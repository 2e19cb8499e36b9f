/**
 * An establishment as an official register describes it: the SIRENE stock files (src/import/sirene)
 * or API Sirene's answer for a day's changes (src/official/sirene-api.ts).
 */
export interface OfficialEstablishment {
  siret: string;
  siren: string;
  /** statutDiffusionEtablissement O: public. Anything else (P, partial diffusion) never enters. */
  public: boolean;
  /** etatAdministratifEtablissement A: active; F: closed. */
  active: boolean;
  /** For a closed row, the day it closed: dateDebut, the start of the row's current (closed) period (YYYY-MM-DD). */
  closedOn?: string | null;
  /** Its main activity code, as the file gives it (NAF rev. 2 until 2026), else its NAF 2025 code. */
  nafCode: string;
  /** Its NAF 2025 code, when the file gives one. */
  nafCode2025: string | null;
  /** The shop's sign or usual name, if the file gives one. */
  name: string | null;
  street: string;
  postalCode: string;
  city: string;
  inseeCode: string;
  createdOn: string | null;
  /**
   * When INSEE last changed the record (dateDernierTraitementEtablissement): kept and shown as such,
   * not the check's date (an establishment INSEE has not touched for years is still confirmed by
   * every stock that lists it active).
   */
  processedAt: string | null;
  /**
   * The instant the source speaks as of (ISO): the stock's date (`--file-date`, else the latest
   * processing date in the file), or the day of API Sirene's changes. The identity check holds from
   * it (never from before `processedAt`); without it, nothing is checked.
   */
  asOf?: string | null;
  /** Where it was read: INSEE's stock file when not said (the signals' source and address). */
  readFrom?: OfficialReading | null;
  /** The company the establishment belongs to, when its file was read too. */
  legalUnit?: OfficialLegalUnit | null;
  /** Where a geocoded file places it; without one, the commune's centroid stands in (marked as such). */
  position?: OfficialPosition | null;
}

/** A position from a geocoded official file (Etalab's geocoded SIRENE). */
export interface OfficialPosition {
  latitude: number;
  longitude: number;
  /** The geocoder's confidence, 0 to 1. */
  score: number | null;
  /** What the geocoder matched: housenumber, interpolation, street, locality, municipality. */
  type: string | null;
  /** The address it matched, labelled as the national address base writes it ("12 Rue de la Paix 75002 Paris"). */
  label?: string | null;
}

/** Where an establishment was read: a published file, or an API's answer, and the address to read it at. */
export interface OfficialReading {
  source: "official_file" | "official_api";
  url: string;
}

/** A company (unité légale) as the register describes it. */
export interface OfficialLegalUnit {
  siren: string;
  /** Its name: the company name, or a sole trader's usual first name and name. */
  legalName: string;
  /** When the company was created (YYYY-MM-DD). */
  createdOn: string | null;
  /** Its legal form, INSEE's four-digit code (5499: SARL, 1000: sole trader...). */
  legalForm?: string | null;
  /** When INSEE last changed the company's record (dateDernierTraitementUniteLegale), if read. */
  processedAt?: string | null;
}
