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
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type pg from "pg";
import { matchPublishedPath } from "../../publish/documents.ts";
import { openPackStore, type PackStage, type PackStore, StageWriter } from "../../publish/pack-store.ts";
import { PublishFolder, RefreshBusyError, STATE_DIRNAME } from "../../publish/publish-folder.ts";
import {
  isMirrorablePath,
  type PublishedChange,
  type PublishedDocuments,
  publishedHash,
  SERVE_INDEX_PATH,
} from "../../publish/published-documents.ts";
import { parseServeIndex } from "../../publish/serve-index.ts";
import { packIndexFile } from "../pack-index.ts";
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
  // A machine whose packs were never written (a new one, or the first start on packs, whose
  // folder held files) takes everything from the table, whatever revision it had reached.
  let revision = existsSync(packIndexFile(folder.stateDir)) ? readRevision(revisionFile) : 0;
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
        const reached = await inPacks(folder, (target) => applyChanges(documents, target, revision));
        state = await behindPruned();
        if (state === null) revision = reached;
      }
      if (state !== null) {
        const from = state.revision;
        revision = await inPacks(folder, (target) => applyEverything(documents, target, from));
      }
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

/**
 * Where a mirror applies the table's rows: a merchant's documents into the machine's packs (one
 * stage, committed once every row of the catch-up is in), the serve index into the packs' serve
 * records, any other file (the key set, the static server configuration) into the folder.
 */
interface MirrorTarget {
  put(change: PublishedChange & { body: Buffer }): void;
  remove(relative: string): void;
  /** The serve index, applied last: every merchant it names served as it says, every other one not. */
  serveIndex(text: string): void;
  /** The committed documents' paths and hashes, a page at a time (a full catch-up's comparison). */
  committedPaths(): Iterable<[string, string]>;
  folder: PublishFolder;
}

/** Runs an apply on a stage of the machine's packs, committed when the apply ends without error. */
async function inPacks(folder: PublishFolder, apply: (target: MirrorTarget) => Promise<number>): Promise<number> {
  const packs = openPackStore(folder.stateDir);
  try {
    // The first apply on packs: the files an earlier version mirrored a merchant at a time go.
    if (packs.index.committed().run === null) for (const abId of folder.merchantsOnDisk()) folder.removeMerchant(abId);
    const stage = packs.begin();
    const target = mirrorTarget(packs, stage, folder);
    const reached = await apply(target);
    target.finish();
    stage.commit({ publishKey: target.publishKey(), run: `mirror:${reached}` });
    return reached;
  } finally {
    packs.close();
  }
}

function mirrorTarget(
  packs: PackStore,
  stage: PackStage,
  folder: PublishFolder,
): MirrorTarget & {
  finish(): void;
  publishKey(): string;
} {
  let publishKey = packs.index.committed().publishKey ?? "mirror";
  let writer: StageWriter | null = null;
  const writerFor = (sample: Buffer) => {
    writer ??= new StageWriter(
      stage,
      folder.stateDir,
      stage.dictionary(publishKey, () => [sample]),
    );
    return writer;
  };
  return {
    folder,
    put(change) {
      if (!matchPublishedPath(`/${change.path}`, "")) folder.write(change.path, change.body);
      // The leader's own refresh wrote it already: the same bytes are not packed twice.
      else if (change.sha256 === null || packs.index.document(change.path)?.sha256 !== change.sha256) {
        writerFor(change.body).put(change.path, change.body, change.sha256 ?? undefined);
      }
    },
    remove(relative) {
      if (matchPublishedPath(`/${relative}`, ""))
        stage.stageDocuments([{ path: relative, location: null, replaces: true }]);
      else folder.remove(relative);
    },
    serveIndex(text) {
      const parsed = parseServeIndex(text);
      if (!parsed) return;
      publishKey = parsed.publishKey;
      const rows = [...parsed.entries].map(([abId, entry]) => ({
        abId,
        record: { stamp: entry.stamp, until: entry.until, snapshotExpiresAt: entry.snapshotExpiresAt },
        replaces: true,
      }));
      stage.stageServe(rows);
      const gone = [...stage.servedMerchants()].filter((abId) => !parsed.entries.has(abId));
      stage.stageServe(gone.map((abId) => ({ abId, record: null, replaces: true })));
    },
    *committedPaths() {
      let after = "";
      for (;;) {
        const page = packs.index.paths(after, 1000);
        for (const [relative, location] of page) yield [relative, location.sha256] as [string, string];
        const last = page[page.length - 1];
        if (!last) return;
        after = last[0];
      }
    },
    finish() {
      writer?.flush();
      writer?.close();
    },
    publishKey: () => publishKey,
  };
}

/** Applies every row after `from`; the serve index last, once the documents it names are there. */
async function applyChanges(documents: PublishedDocuments, target: MirrorTarget, from: number): Promise<number> {
  let reached = from;
  let after: { revision: number; path: string } | null = null;
  let serveIndex: PublishedChange | null = null;
  for (;;) {
    const page = await documents.changesSince(from, after, PAGE_ROWS);
    for (const change of page) {
      reached = Math.max(reached, change.revision);
      if (!isMirrorablePath(change.path) || change.path.startsWith(`${STATE_DIRNAME}/mirror`)) continue;
      if (change.path === SERVE_INDEX_PATH) serveIndex = change;
      else applyChange(target, change);
    }
    const last = page[page.length - 1];
    if (!last || page.length < PAGE_ROWS) break;
    after = { revision: last.revision, path: last.path };
  }
  if (serveIndex?.body) target.serveIndex(serveIndex.body.toString("utf8"));
  return reached;
}

/**
 * A full catch-up: every file the table has (written when its bytes differ), every other
 * published document and file removed, then what changed after `stateRevision` (the state when it
 * began: a publication during the read may have removed a file already written). Run under the
 * folder's run lock, as every apply (applyOnce).
 */
async function applyEverything(
  documents: PublishedDocuments,
  target: MirrorTarget,
  stateRevision: number,
): Promise<number> {
  const live = new Set<string>();
  const committed = new Map<string, string>(target.committedPaths());
  let after: { revision: number; path: string } | null = null;
  let serveIndex: PublishedChange | null = null;
  for (;;) {
    // From revision 0: the files that exist, without tombstones.
    const page = await documents.changesSince(0, after, PAGE_ROWS);
    for (const change of page) {
      if (!isMirrorablePath(change.path) || change.path.startsWith(`${STATE_DIRNAME}/mirror`)) continue;
      live.add(change.path);
      if (change.path === SERVE_INDEX_PATH) serveIndex = change;
      else if (change.body !== null && !sameBytes(target.folder, committed, change)) applyChange(target, change);
    }
    const last = page[page.length - 1];
    if (!last || page.length < PAGE_ROWS) break;
    after = { revision: last.revision, path: last.path };
  }
  for (const relative of committed.keys()) if (!live.has(relative)) target.remove(relative);
  for (const relative of target.folder.publishedFiles()) if (!live.has(relative)) target.remove(relative);
  if (serveIndex?.body) target.serveIndex(serveIndex.body.toString("utf8"));
  return await applyChanges(documents, target, stateRevision);
}

/** Whether the machine already holds these bytes (a full catch-up rewrites only what differs). */
function sameBytes(folder: PublishFolder, committed: Map<string, string>, change: PublishedChange): boolean {
  if (change.sha256 === null) return false;
  const inPacks = committed.get(change.path);
  if (inPacks !== undefined) return inPacks === change.sha256;
  try {
    return publishedHash(readFileSync(folder.full(change.path))) === change.sha256;
  } catch {
    return false;
  }
}

function applyChange(target: MirrorTarget, change: PublishedChange): void {
  if (change.body === null) target.remove(change.path);
  else target.put({ ...change, body: change.body });
}

function readRevision(file: string): number {
  try {
    const value = Number(readFileSync(file, "utf8").trim());
    return Number.isSafeInteger(value) && value > 0 ? value : 0;
  } catch {
    return 0;
  }
}
