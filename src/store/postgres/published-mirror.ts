/**
 * An instance's mirror of the published documents (docs/several-machines.md, "Published documents
 * live in the database"): it fills DATA_DIR's publish folder from the table at start and again on
 * each NOTIFY abeille_published, so that serving stays a file read (the fast path and its ETags are
 * unchanged). A file not mirrored yet is rendered on demand by the routes, as today when a file is
 * not fresh. The mirror remembers the last revision it applied in the folder's state
 * (`.abeille/mirror-revision`), so a restart only reads what changed meanwhile; a notice missed
 * while the listening connection was down is caught up when it listens again, and a catch-up that
 * failed is tried again every `retryMs`. A mirror whose revision is below the last pruned
 * tombstone's (published-documents.ts) catches up in full: it may have missed a removal.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type pg from "pg";
import { PublishFolder, RefreshBusyError, STATE_DIRNAME } from "../../publish/publish-folder.ts";
import {
  isMirrorablePath,
  type PublishedChange,
  type PublishedDocuments,
  publishedHash,
  SERVE_INDEX_PATH,
} from "../../publish/published-documents.ts";
import { listenForNotices, type NoticeListener } from "./notices.ts";
import { createPostgresPublishedDocuments, PUBLISHED_CHANNEL } from "./published-documents.ts";

const REVISION_FILE = "mirror-revision";
/** Rows read at a time: a catch-up of a whole registry streams through in pages. */
const PAGE_ROWS = 500;
/** As the listening connection's (notices.ts). */
const DEFAULT_RETRY_MS = 5_000;

export interface PublishedMirrorOptions {
  /** The instance's pool (reads the table). */
  pool: pg.Pool;
  /** DATABASE_URL: the listening connection is a dedicated one (notices.ts). */
  url: string;
  /** DATA_DIR's publish folder (PublishSettings.publishDir). */
  publishDir: string;
  /** Between two heartbeats of the listening connection, and two tries to reconnect (default 5 s). */
  retryMs?: number;
  /**
   * A catch-up that failed (the database gone): the mirror tries again every `retryMs`, and on the
   * next notice or reconnection, until one succeeds.
   */
  onError?: (error: unknown) => void;
  /** A catch-up succeeded after one or more failed (the mirror follows the table again). */
  onRecovered?: (revision: number) => void;
}

export interface PublishedMirror {
  /** The last revision written into the folder. */
  revision(): number;
  /** Reads and applies what changed since the last revision (what a notice does). */
  catchUp(): Promise<number>;
  listening(): boolean;
  stop(): Promise<void>;
}

/**
 * Starts an instance's mirror: a first catch-up (awaited), then one per notice. A first catch-up
 * that fails (the database down while the machine starts) does not stop the mirror: it is said
 * (`onError`) and tried again every `retryMs`, so the machine mirrors again once the database is
 * back, without a restart (until then the routes render on demand).
 */
export async function startPublishedMirror(options: PublishedMirrorOptions): Promise<PublishedMirror> {
  const documents = createPostgresPublishedDocuments(options.pool);
  const folder = new PublishFolder(options.publishDir);
  const revisionFile = path.join(folder.stateDir, REVISION_FILE);
  const retryMs = options.retryMs ?? DEFAULT_RETRY_MS;
  let revision = readRevision(revisionFile);
  let running: Promise<number> | null = null;
  let again = false;
  let failing = false;
  let stopped = false;
  let retry: NodeJS.Timeout | null = null;

  // A mirror behind a pruned tombstone (its last revision below the state's prunedRevision) may
  // have missed a removal: it catches up in full. Checked again after an incremental read, which a
  // prune committed meanwhile may have cut short of tombstones it needed.
  const behindPruned = async () => {
    const state = await documents.state();
    return revision > 0 && state !== null && revision < state.prunedRevision ? state : null;
  };
  // Every apply holds the folder's run lock: a refresh of this machine's own folder (the leader's)
  // writes files the table does not have yet, which an apply must neither overwrite with older
  // bytes (the refresh would publish them) nor delete. While a refresh holds it, the apply waits
  // for its turn (retryMs); a refresh that finds the mirror applying waits for it (publisher.ts).
  const applyOnce = async (): Promise<number> => {
    const release = folder.lockForRun("mirror");
    try {
      let state = await behindPruned();
      if (state === null) {
        const reached = await applyChanges(documents, folder, revision);
        state = await behindPruned();
        if (state === null) revision = reached;
      }
      if (state !== null) revision = await applyEverything(documents, folder, state.revision);
      folder.writeState(REVISION_FILE, String(revision));
      return revision;
    } finally {
      release();
    }
  };
  // One catch-up at a time; a notice during one runs another right after (it may have missed the rows).
  const catchUp = (): Promise<number> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        let reached = await applyOnce();
        while (again) {
          again = false;
          reached = await applyOnce();
        }
        return reached;
      } finally {
        running = null;
      }
    })();
    return running;
  };
  // A failed catch-up is tried again after retryMs: a notice may never come (nothing published
  // meanwhile), and the listening connection may have stayed up while the reads failed.
  const attempt = async (): Promise<void> => {
    try {
      const reached = await catchUp();
      if (failing) {
        failing = false;
        options.onRecovered?.(reached);
      }
    } catch (error) {
      // A refresh of this folder under way is not a failure: its publication's notice, or the
      // retry below, brings the mirror in step once it ends.
      if (!(error instanceof RefreshBusyError)) {
        failing = true;
        options.onError?.(error);
      }
      if (!stopped && retry === null) {
        retry = setTimeout(() => {
          retry = null;
          if (!stopped) void attempt();
        }, retryMs);
        retry.unref();
      }
    }
  };
  const background = () => {
    void attempt();
  };

  await attempt();
  const listener: NoticeListener = listenForNotices({
    url: options.url,
    channels: [PUBLISHED_CHANNEL],
    applicationName: "abeille-published-mirror",
    retryMs,
    onNotice: background,
    onListening: (listening) => {
      if (listening) background();
    },
  });
  return {
    revision: () => revision,
    catchUp,
    listening: () => listener.listening(),
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      await listener.stop();
      await running?.catch(() => undefined);
    },
  };
}

/** Applies every row after `from` to the folder; the serve index last, once the files it names are there. */
async function applyChanges(documents: PublishedDocuments, folder: PublishFolder, from: number): Promise<number> {
  let reached = from;
  let after: { revision: number; path: string } | null = null;
  let serveIndex: PublishedChange | null = null;
  for (;;) {
    const page = await documents.changesSince(from, after, PAGE_ROWS);
    for (const change of page) {
      reached = Math.max(reached, change.revision);
      if (!isMirrorablePath(change.path) || change.path.startsWith(`${STATE_DIRNAME}/mirror`)) continue;
      if (change.path === SERVE_INDEX_PATH) serveIndex = change;
      else applyChange(folder, change);
    }
    const last = page[page.length - 1];
    if (!last || page.length < PAGE_ROWS) break;
    after = { revision: last.revision, path: last.path };
  }
  if (serveIndex) applyChange(folder, serveIndex);
  return reached;
}

/**
 * A full catch-up: every file the table has (written when its bytes differ), every other file of
 * the folder deleted, then what changed after `stateRevision` (the state when it began: a
 * publication during the read may have removed a file already written). Run under the folder's
 * run lock, as every apply (applyOnce).
 */
async function applyEverything(
  documents: PublishedDocuments,
  folder: PublishFolder,
  stateRevision: number,
): Promise<number> {
  const live = new Set<string>();
  let after: { revision: number; path: string } | null = null;
  let serveIndex: PublishedChange | null = null;
  for (;;) {
    // From revision 0: the files that exist, without tombstones.
    const page = await documents.changesSince(0, after, PAGE_ROWS);
    for (const change of page) {
      if (!isMirrorablePath(change.path) || change.path.startsWith(`${STATE_DIRNAME}/mirror`)) continue;
      live.add(change.path);
      if (change.path === SERVE_INDEX_PATH) serveIndex = change;
      else if (change.body !== null && !sameBytes(folder, change)) folder.write(change.path, change.body);
    }
    const last = page[page.length - 1];
    if (!last || page.length < PAGE_ROWS) break;
    after = { revision: last.revision, path: last.path };
  }
  for (const relative of folder.publishedFiles()) if (!live.has(relative)) folder.remove(relative);
  if (serveIndex) applyChange(folder, serveIndex);
  return await applyChanges(documents, folder, stateRevision);
}

/** Whether the folder already holds these bytes (a full catch-up rewrites only what differs). */
function sameBytes(folder: PublishFolder, change: PublishedChange): boolean {
  try {
    return change.sha256 !== null && publishedHash(readFileSync(folder.full(change.path))) === change.sha256;
  } catch {
    return false;
  }
}

function applyChange(folder: PublishFolder, change: PublishedChange): void {
  if (change.body === null) folder.remove(change.path);
  else folder.write(change.path, change.body);
}

function readRevision(file: string): number {
  try {
    const value = Number(readFileSync(file, "utf8").trim());
    return Number.isSafeInteger(value) && value > 0 ? value : 0;
  } catch {
    return 0;
  }
}
