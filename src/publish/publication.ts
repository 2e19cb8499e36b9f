/**
 * The published documents' port (docs/several-machines.md, "Published documents live in the
 * database"): what a refresh run publishes and what every instance's mirror reads back. Types only,
 * so that the refresh's index (src/store/publish-index.ts) can name a publication without importing
 * the publish folder. Implemented on PostgreSQL by src/store/postgres/published-documents.ts.
 */

export interface PublishedFile {
  path: string;
  body: Buffer;
  contentType: string;
}

/** One refresh run's files, written in one transaction. */
export interface Publication {
  /** The run's index (generatedAt) and publish key: the next run compares them with its own. */
  runGeneratedAt: string;
  publishKey: string;
  at: string;
  writes: PublishedFile[];
  removes: string[];
  /** The writes are every file published: any other row is removed (a run that found the table behind its index). */
  replaceAll: boolean;
}

export interface PublicationState {
  revision: number;
  runGeneratedAt: string;
  publishKey: string;
  /**
   * The highest revision whose tombstones (rows of removed files) were pruned, 0 when none was: a
   * mirror whose last revision is below it may have missed a removal and catches up in full.
   */
  prunedRevision: number;
}

/** A row as the mirror applies it: a body to write, or null for a file removed. */
export interface PublishedChange {
  path: string;
  body: Buffer | null;
  sha256: string | null;
  revision: number;
}

export interface PublishedDocuments {
  /** The last publication, or null when nothing was ever published here. */
  state(): Promise<PublicationState | null>;
  /** Writes a publication in one transaction (its notice leaves with the commit); answers its revision. */
  publish(publication: Publication): Promise<number>;
  /**
   * The rows changed after `revision`, in (revision, path) order from `after` (the last row of the
   * previous page), at most `limit`; from revision 0 only the files that exist (a new mirror has
   * nothing to remove).
   */
  changesSince(
    revision: number,
    after: { revision: number; path: string } | null,
    limit: number,
  ): Promise<PublishedChange[]>;
}
