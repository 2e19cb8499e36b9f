/**
 * Published documents in the shared database (docs/several-machines.md, "Published documents live
 * in the database"): the port the refresh writes each publication through, and what every
 * instance's mirror reads back (src/store/postgres/published-documents.ts implements both sides).
 * Paths are the publish folder's relative paths, the serve index included
 * (`.abeille/serve-index.tsv`): a mirror is a copy of the leader's folder, served as it is.
 */
import path from "node:path";
import { bodyHash, JSON_TYPE, JSONLD_TYPE, MARKDOWN_TYPE } from "./document.ts";
import { KEY_SET_PATH, type PublishedKind, publishedPath } from "./documents.ts";
import type { Publication, PublishedFile } from "./publication.ts";
import { type IndexEntry, SERVE_INDEX_FILENAME, STATE_DIRNAME } from "./publish-folder.ts";

export type {
  Publication,
  PublicationState,
  PublishedChange,
  PublishedDocuments,
  PublishedFile,
} from "./publication.ts";

export const SERVE_INDEX_PATH = `${STATE_DIRNAME}/${SERVE_INDEX_FILENAME}`;

const KIND_TYPES: Record<PublishedKind, string> = {
  jsonld: JSONLD_TYPE,
  "ai-digest": JSON_TYPE,
  "decision-card": JSON_TYPE,
  "ai-md": MARKDOWN_TYPE,
  snapshot: JSON_TYPE,
};

/** What a mirror or a test checks a file against: the same hash the fast path's ETag is made of. */
export const publishedHash = (body: Uint8Array): string => bodyHash(body);

export function contentTypeOf(relative: string): string {
  if (relative === KEY_SET_PATH) return JSON_TYPE;
  if (relative === SERVE_INDEX_PATH) return "text/tab-separated-values; charset=utf-8";
  return "text/plain; charset=utf-8";
}

/**
 * The files a refresh run changed, read back from its packs and folder: the kinds whose hash moved
 * (or appeared), the kinds and merchants gone, the global files written, and the serve index.
 * `replaceAll`: every file the index now holds instead (the table was behind).
 */
export async function publicationOf(input: {
  /** A published document's or global file's bytes (the run's packs, then the folder). */
  read: (relative: string) => Buffer | null;
  before: Map<string, IndexEntry>;
  written: Map<string, IndexEntry>;
  withdrawn: Iterable<string>;
  /** Every entry of the index after the run (only read when replaceAll). */
  everyEntry: () => Promise<Iterable<[string, IndexEntry]>>;
  globalFiles: { written: string[]; present: string[]; removed: string[] };
  replaceAll: boolean;
  /** The serve index to send with the files (null: the index's commit makes it, on PostgreSQL). */
  serveIndex: string | null;
  runGeneratedAt: string;
  publishKey: string;
  at: string;
}): Promise<Publication> {
  const writes: PublishedFile[] = [];
  const removes: string[] = [];
  const readPublished = (relative: string, contentType: string): PublishedFile => {
    const body = input.read(relative);
    if (!body) throw new Error(`refresh: ${relative} was published but cannot be read back`);
    return { path: relative, body, contentType };
  };
  const merchantFile = (abId: string, kind: PublishedKind) =>
    readPublished(publishedPath(kind, abId), KIND_TYPES[kind]);
  if (input.replaceAll) {
    for (const [abId, entry] of await input.everyEntry()) {
      for (const kind of Object.keys(entry.hashes) as PublishedKind[]) writes.push(merchantFile(abId, kind));
    }
    for (const relative of input.globalFiles.present) writes.push(readPublished(relative, contentTypeOf(relative)));
  } else {
    for (const [abId, entry] of input.written) {
      const old = input.before.get(abId)?.hashes ?? {};
      for (const kind of Object.keys(entry.hashes) as PublishedKind[]) {
        if (old[kind] !== entry.hashes[kind]) writes.push(merchantFile(abId, kind));
      }
      for (const kind of Object.keys(old) as PublishedKind[]) {
        if (!(kind in entry.hashes)) removes.push(publishedPath(kind, abId));
      }
    }
    for (const abId of input.withdrawn) {
      for (const kind of Object.keys(input.before.get(abId)?.hashes ?? {}) as PublishedKind[]) {
        removes.push(publishedPath(kind, abId));
      }
    }
    for (const relative of input.globalFiles.written) writes.push(readPublished(relative, contentTypeOf(relative)));
    removes.push(...input.globalFiles.removed);
  }
  // The serve index last: a mirror writes it after the files it names.
  if (input.serveIndex !== null) {
    writes.push({
      path: SERVE_INDEX_PATH,
      body: Buffer.from(input.serveIndex, "utf8"),
      contentType: contentTypeOf(SERVE_INDEX_PATH),
    });
  }
  return {
    runGeneratedAt: input.runGeneratedAt,
    publishKey: input.publishKey,
    at: input.at,
    writes,
    removes,
    replaceAll: input.replaceAll,
  };
}

/** A path from the table is written under the mirror's folder only: relative, no `..`, no empty part. */
export function isMirrorablePath(relative: string): boolean {
  if (relative === "" || path.isAbsolute(relative) || relative.includes("\\") || relative.includes("\0")) return false;
  return relative.split("/").every((part) => part !== "" && part !== "." && part !== "..");
}
