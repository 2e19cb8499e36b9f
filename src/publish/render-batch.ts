import { hash } from "node:crypto";
import type { MerchantProfile } from "../domain/merchant.ts";
import type { DocumentLocation, PackRecord, StagedDocument } from "../store/pack-index.ts";
import { buildPublishedDecisionCard } from "./decision-card.ts";
import { bodyHash, utf8Writer } from "./document.ts";
import { MERCHANT_DOCUMENT_KINDS, MERCHANT_TEXTS, type PublishedKind, publishedPath } from "./documents.ts";
import type { PackWriter } from "./pack-files.ts";
import { contentPeriod } from "./period.ts";
import type { IndexEntry } from "./publish-folder.ts";
import type { SnapshotIssuer } from "./snapshot.ts";
import { merchantView } from "./view.ts";

/** What rendering needs besides the store and the packs (what a worker thread is given). */
export type RenderContext = Omit<BatchContext, "loadProfiles" | "packWriter" | "readTransaction">;

export interface BatchContext {
  /**
   * The profiles of a batch (store/publish-source.ts createProfileLoader on SQLite, synchronous in
   * its read transaction; store/postgres/publish-source.ts createPostgresProfileLoader, a Promise).
   */
  loadProfiles: (abIds: readonly string[]) => Map<string, MerchantProfile> | Promise<Map<string, MerchantProfile>>;
  /** A writer for the pack of this id (pack-files.ts packWriters: the run's dictionary, one encoder a thread). */
  packWriter: (id: number) => PackWriter;
  baseUrl: string;
  orderRailEnabled: boolean;
  now: Date;
  /** False when the code or the publish key changed since the last run: everything is rendered again. */
  skipAllowed: boolean;
  /** A snapshot expiring at or before this instant (epoch ms) is re-signed. */
  renewBeforeMs: number;
  issueSnapshot: SnapshotIssuer | null;
  /** Runs the batch's reads in one transaction (one snapshot of the store); default: none. */
  readTransaction?: <T>(work: () => T) => T;
}

export interface BatchItem {
  abId: string;
  stamp: string;
  status: string;
  old: IndexEntry | null;
}

export interface BatchCounters {
  rendered: number;
  skipped: number;
  written: number;
  unchanged: number;
  snapshotsSigned: number;
  deleted: number;
  failed: number;
}

/**
 * The packs a batch writes into, ids given by the run: a merchant's four documents in one, its
 * snapshot manifest in the other (re-signed every day, so its packs die whole instead of leaving
 * the documents' packs half dead).
 */
export interface BatchPacks {
  documents: number;
  snapshots: number;
}

export interface BatchResult extends BatchCounters {
  entries: [abId: string, entry: IndexEntry][];
  /** The documents written (their place in the packs) and removed, for the pack index. */
  documents: StagedDocument[];
  /** The packs written (none when nothing was). */
  packs: PackRecord[];
  /** Merchants whose decision card (trust, status, identity, products...) differs from the last run's. */
  changed: string[];
  failures: { abId: string; message: string }[];
}

/** Renders batches somewhere (in this thread, or in worker threads). */
export interface BatchRunner {
  /** Batches in flight at once. */
  concurrency: number;
  /** True when a batch handed over now would start without waiting behind more than one other. */
  hasRoom?(): boolean;
  run(items: BatchItem[], packs: BatchPacks): Promise<BatchResult>;
  close(): Promise<void>;
}

export function emptyCounters(): BatchCounters {
  return { rendered: 0, skipped: 0, written: 0, unchanged: 0, snapshotsSigned: 0, deleted: 0, failed: 0 };
}

/**
 * Hash of the loaded profile: the renderers are pure, so equal profiles (and period) give equal
 * files. Hashed from its JSON text: V8's own serialization (node:v8) would be faster but prints a
 * number as an integer or a double depending on the object's history, so equal profiles could
 * differ and be rendered again on every run.
 */
export function profileFingerprint(profile: unknown): string {
  return hash("sha256", documentBytes(JSON.stringify(profile)), "base64url").slice(0, 27);
}

/**
 * This thread's buffer for the document being written (document.ts utf8Writer): a document's
 * bytes (and a profile's JSON) are hashed and compressed into its pack from there, and the next
 * one overwrites them.
 */
const documentBytes = utf8Writer();

/**
 * Renders and writes one batch of published merchants. A merchant whose inputs (profile
 * fingerprint, content period) are those of the last run, and whose files are all still there, is
 * not rendered at all; otherwise each document is rendered and written only when its hash changed.
 * The snapshot manifest is re-signed when the card changed or it would expire before the next run.
 * A merchant whose file could not be written counts as failed (its files stay as they were,
 * each written atomically); the next run tries it again.
 */
export async function renderBatch(
  context: BatchContext,
  items: readonly BatchItem[],
  packs: BatchPacks,
): Promise<BatchResult> {
  const inTransaction = context.readTransaction ?? (<T>(work: () => T) => work());
  // One snapshot of the store for the whole batch; rendering itself reads nothing else.
  const profiles = await inTransaction(() => context.loadProfiles(items.map((item) => item.abId)));
  return renderItems(context, items, profiles, packs);
}

/**
 * Where one merchant's documents go: written into the batch's packs, recorded once the merchant
 * succeeded. `body` is valid during the call only (documentBytes).
 */
interface MerchantSink {
  write(kind: PublishedKind, body: Buffer, sha256: string, replaces: boolean): void;
  remove(kind: PublishedKind): void;
}

function renderItems(
  context: BatchContext,
  items: readonly BatchItem[],
  profiles: Map<string, MerchantProfile>,
  packs: BatchPacks,
): BatchResult {
  const result: BatchResult = {
    ...emptyCounters(),
    entries: [],
    documents: [],
    packs: [],
    changed: [],
    failures: [],
  };
  const documentsPack = context.packWriter(packs.documents);
  const snapshotsPack = context.packWriter(packs.snapshots);
  /** The merchants rendered: failed all together if their packs cannot be written. */
  const rendered: BatchItem[] = [];
  for (const item of items) {
    const staged: StagedDocument[] = [];
    const frames: [PackWriter, DocumentLocation][] = [];
    const sink: MerchantSink = {
      write(kind, body, sha256, replaces) {
        const pack = kind === "snapshot" ? snapshotsPack : documentsPack;
        const location = pack.add(body, sha256, kind === "snapshot");
        frames.push([pack, location]);
        staged.push({ path: publishedPath(kind, item.abId), location, replaces });
      },
      remove(kind) {
        staged.push({ path: publishedPath(kind, item.abId), location: null, replaces: true });
      },
    };
    try {
      const profile = profiles.get(item.abId);
      const entry = profile ? renderOne(context, item, profile, result, sink) : null;
      if (!entry) continue;
      rendered.push(item);
      result.entries.push([item.abId, entry]);
      result.documents.push(...staged);
      if (entry.cardHash !== (item.old?.cardHash ?? null)) result.changed.push(item.abId);
    } catch (error) {
      // Its frames stay in the pack, dead from the start: nothing records them.
      for (const [pack, location] of frames) pack.forget(location);
      result.failed += 1;
      result.failures.push({ abId: item.abId, message: error instanceof Error ? error.message : String(error) });
      // Keep what was published: the server compares stamps, so stale files are not served as fresh.
      if (item.old) result.entries.push([item.abId, item.old]);
    }
  }
  try {
    for (const pack of [documentsPack, snapshotsPack]) {
      const record = pack.finish();
      if (record) result.packs.push(record);
    }
  } catch (error) {
    // A pack could not be written (a full disk): every merchant of the batch keeps what was
    // published, and the next run renders them again (they are its retries).
    return failedBatch(result, rendered, error);
  }
  return result;
}

/**
 * The documents of these merchants as a run renders them, written nowhere: the samples a
 * publication's zstd dictionary is made of (pack-dictionary.ts).
 */
export function sampleDocuments(context: RenderContext, profiles: Iterable<MerchantProfile>): Buffer[] {
  const bodies: Buffer[] = [];
  const sink: MerchantSink = { write: (_kind, body) => void bodies.push(Buffer.from(body)), remove: () => undefined };
  for (const profile of profiles) {
    const item: BatchItem = { abId: profile.merchant.abId, stamp: "", status: profile.merchant.status, old: null };
    renderOne({ ...context, skipAllowed: false }, item, profile, emptyCounters(), sink);
  }
  return bodies;
}

/** The outcome of a batch whose packs could not be written: each merchant rendered counts as failed. */
function failedBatch(result: BatchResult, rendered: readonly BatchItem[], error: unknown): BatchResult {
  const message = `its documents could not be written: ${error instanceof Error ? error.message : String(error)}`;
  const failedIds = new Set(rendered.map((item) => item.abId));
  const entries = result.entries.filter(([abId]) => !failedIds.has(abId));
  for (const item of rendered) if (item.old) entries.push([item.abId, item.old]);
  return {
    ...result,
    failed: result.failed + rendered.length,
    written: 0,
    snapshotsSigned: 0,
    entries,
    documents: [],
    packs: [],
    changed: result.changed.filter((abId) => !failedIds.has(abId)),
    failures: [...result.failures, ...rendered.map((item) => ({ abId: item.abId, message }))],
  };
}

function snapshotDue(context: RenderContext, old: IndexEntry | null, cardHash: string | null): boolean {
  if (!context.issueSnapshot) return false;
  if (!old?.snapshotExpiresAt || !old.hashes.snapshot) return true;
  if (cardHash !== null && cardHash !== old.cardHash) return true;
  return Date.parse(old.snapshotExpiresAt) <= context.renewBeforeMs;
}

function renderOne(
  context: RenderContext,
  item: BatchItem,
  profile: MerchantProfile,
  counters: BatchCounters,
  sink: MerchantSink,
): IndexEntry | null {
  const fingerprint = profileFingerprint(profile);
  const period = contentPeriod(profile, context.now);
  const { old } = item;

  // Same inputs, same period, same code: the published documents are what rendering would give.
  // (The run gives `old` without the hash of a document the packs lack: publisher.ts.)
  const documentsCurrent =
    context.skipAllowed &&
    old !== null &&
    old.fingerprint === fingerprint &&
    old.since === period.since &&
    old.until === period.until &&
    MERCHANT_DOCUMENT_KINDS.every((kind) => old.hashes[kind] !== undefined);
  if (documentsCurrent && old) {
    if (!snapshotDue(context, old, null)) {
      counters.skipped += 1;
      counters.unchanged += Object.keys(old.hashes).length;
      return { ...old, status: item.status, stamp: item.stamp };
    }
    if (context.issueSnapshot) {
      // Only the snapshot manifest is due (the daily renewal): the card it is cut from, nothing else.
      counters.skipped += 1;
      counters.unchanged += MERCHANT_DOCUMENT_KINDS.length;
      const view = merchantView(
        profile,
        { baseUrl: context.baseUrl, orderRailEnabled: context.orderRailEnabled, now: context.now },
        period,
      );
      const card = buildPublishedDecisionCard(view);
      const issued = context.issueSnapshot(view, card, context.now);
      const body = documentBytes(issued.text);
      const snapshotHash = bodyHash(body);
      sink.write("snapshot", body, snapshotHash, old.hashes.snapshot !== undefined);
      counters.written += 1;
      counters.snapshotsSigned += 1;
      return {
        ...old,
        status: item.status,
        stamp: item.stamp,
        hashes: { ...old.hashes, snapshot: snapshotHash },
        cardHash: card.decision_card.content_hash,
        snapshotExpiresAt: issued.expiresAt,
      };
    }
  }

  counters.rendered += 1;
  const view = merchantView(
    profile,
    { baseUrl: context.baseUrl, orderRailEnabled: context.orderRailEnabled, now: context.now },
    period,
  );
  const card = buildPublishedDecisionCard(view);
  const hashes: Partial<Record<PublishedKind, string>> = {};
  for (const kind of MERCHANT_DOCUMENT_KINDS) {
    const body = documentBytes(MERCHANT_TEXTS[kind](view, card));
    const documentHash = bodyHash(body);
    hashes[kind] = documentHash;
    if (old?.hashes[kind] === documentHash) {
      counters.unchanged += 1;
    } else {
      sink.write(kind, body, documentHash, old?.hashes[kind] !== undefined);
      counters.written += 1;
    }
  }

  const cardHash = card.decision_card.content_hash;
  let snapshotExpiresAt = old?.snapshotExpiresAt ?? null;
  if (context.issueSnapshot) {
    if (snapshotDue(context, old, cardHash)) {
      const issued = context.issueSnapshot(view, card, context.now);
      const body = documentBytes(issued.text);
      hashes.snapshot = bodyHash(body);
      sink.write("snapshot", body, hashes.snapshot, old?.hashes.snapshot !== undefined);
      snapshotExpiresAt = issued.expiresAt;
      counters.written += 1;
      counters.snapshotsSigned += 1;
    } else if (old?.hashes.snapshot) {
      hashes.snapshot = old.hashes.snapshot;
      counters.unchanged += 1;
    }
  } else {
    snapshotExpiresAt = null;
    if (old?.hashes.snapshot) {
      sink.remove("snapshot");
      counters.deleted += 1;
    }
  }

  return {
    status: item.status,
    stamp: item.stamp,
    fingerprint,
    since: period.since,
    until: period.until,
    hashes,
    cardHash,
    snapshotExpiresAt,
  };
}
