/** An establishment as an official register describes it (the SIRENE stock files, src/import/sirene). */
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
  /** When INSEE last processed the row: the date the identity check holds from. */
  processedAt: string | null;
  /** The file's date (YYYY-MM-DD) as the operator states it: the check's date for rows without a processing date. */
  fileDate?: string | null;
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

/** A company (unité légale) as the register describes it. */
export interface OfficialLegalUnit {
  siren: string;
  /** Its name: the company name, or a sole trader's usual first name and name. */
  legalName: string;
  /** When the company was created (YYYY-MM-DD). */
  createdOn: string | null;
  /** Its legal form, INSEE's four-digit code (5499: SARL, 1000: sole trader...). */
  legalForm?: string | null;
}
