import type { OfficialEstablishment, OfficialLegalUnit } from "./official-establishment.ts";

/**
 * What the daily import needs from the SIRENE register's API (src/official/sirene-api.ts, API
 * Sirene 3.11): the establishments and the companies INSEE processed on a day, a page at a time,
 * each page asked by the cursor the previous one gave ("*" for the first). Throws an
 * OfficialRegistryError when the register could not answer, or answered in another shape.
 */
export interface OfficialChanges {
  /** A page of the establishments whose record INSEE processed on `day` (YYYY-MM-DD). */
  establishmentsProcessedOn(day: string, cursor: string): Promise<ChangesPage<OfficialEstablishment>>;
  /** A page of the companies (legal units) whose record INSEE processed on `day`: renamed, closed, ... */
  legalUnitsProcessedOn(day: string, cursor: string): Promise<ChangesPage<OfficialLegalUnitChange>>;
}

/** The first cursor of a query. */
export const FIRST_CURSOR = "*";

export interface ChangesPage<T> {
  /** The records of the page, read. */
  items: T[];
  /** Records of the page that could not be read: their identifier when they have one, and why. */
  rejected: { id: string | null; error: string }[];
  /** The cursor of the next page; the one asked when there is no more (the API's last page). */
  nextCursor: string;
  /** The records the day's query matches in all (0: nothing was processed that day). */
  total: number;
  /** The address asked, for the signals' source and the messages. */
  url: string;
}

/** A company as the register answers for it on the day INSEE processed it. */
export interface OfficialLegalUnitChange {
  siren: string;
  /** Its current state: ceased (C) or active (A). */
  ceased: boolean;
  /** For a ceased company, the day it ceased: dateDebut, the start of its current (ceased) period (YYYY-MM-DD). */
  ceasedOn: string | null;
  /** Its name, legal form and creation date; null when it is not public (its name is not to be used) or names nobody. */
  unit: OfficialLegalUnit | null;
  /** When INSEE processed it (dateDernierTraitementUniteLegale). */
  processedAt: string | null;
  /** The day the register speaks as of (ISO instant): the day processed. */
  asOf: string;
  /** Where it was read. */
  url: string;
}
