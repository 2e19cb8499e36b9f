/** An establishment as an official register describes it (the SIRENE stock files, src/import/sirene). */
export interface OfficialEstablishment {
  siret: string;
  siren: string;
  /** statutDiffusionEtablissement O: public. Anything else (P, partial diffusion) never enters. */
  public: boolean;
  /** etatAdministratifEtablissement A: active; F: closed. */
  active: boolean;
  nafCode: string;
  /** The shop's sign or usual name, if the file gives one. */
  name: string | null;
  street: string;
  postalCode: string;
  city: string;
  inseeCode: string;
  createdOn: string | null;
  /** When INSEE last processed the row: the date the identity check holds from. */
  processedAt: string | null;
  /** The company the establishment belongs to, when its file was read too. */
  legalUnit?: OfficialLegalUnit | null;
}

/** A company (unité légale) as the register describes it. */
export interface OfficialLegalUnit {
  siren: string;
  /** Its name: the company name, or a sole trader's usual first name and name. */
  legalName: string;
  /** When the company was created (YYYY-MM-DD). */
  createdOn: string | null;
}
