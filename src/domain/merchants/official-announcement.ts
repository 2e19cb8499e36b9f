/**
 * An announcement of the BODACC (Bulletin officiel des annonces civiles et commerciales) as the
 * registry reads it (src/import/bodacc reads DILA's open-data files into this shape).
 */
export interface OfficialAnnouncement {
  /** BODACC's identifier: the bulletin's letter, the issue and the announcement's number (A202600521234). */
  id: string;
  /** Publication date (YYYY-MM-DD). */
  publishedOn: string;
  /**
   * What the announcement is about: `collective` (an insolvency proceeding: sauvegarde,
   * redressement, liquidation judiciaire, rétablissement professionnel), `radiation`
   * (deregistration from the RCS), `sale` (a business sold or transferred), `other` (creations,
   * modifications, filed accounts, ...).
   */
  kind: "collective" | "radiation" | "sale" | "other";
  /** BODACC's own family code and wording (familleavis, familleavis_lib). */
  family: string;
  familyLabel: string | null;
  /** `annonce` (initial), `rectificatif` (replaces `replaces`) or `annulation` (cancels `replaces`). */
  type: string;
  /** The earlier announcement a correction or cancellation refers to (its id), if any. */
  replaces: string | null;
  court: string | null;
  url: string | null;
  /** The companies (SIREN) the announcement is about. */
  subjects: string[];
  /** For a sale: the companies (SIREN) that owned or ran the business before. */
  previousOwners: string[];
  /** For a judgment: its family, nature and date. */
  judgment: { family: string | null; nature: string | null; decidedOn: string | null } | null;
  /** For a deregistration: BODACC's comment (e.g. "Rapport de radiation d'office") and the end of activity. */
  deregistration: { comment: string | null; ceasedOn: string | null } | null;
  /** For a sale: its category (acte.vente.categorieVente). */
  saleCategory: string | null;
}
