import { hash } from "node:crypto";
import type { MerchantProfile } from "../domain/merchant.ts";
import { utf8Bytes } from "../domain/utf8.ts";
import { buildPublishedDecisionCard, renderDecisionCard } from "./decision-card.ts";
import { MERCHANT_DOCUMENT_KINDS, MERCHANT_RENDERERS, type PublishedKind, publishedPath } from "./documents.ts";
import { contentPeriod } from "./period.ts";
import type { IndexEntry, PublishFolder } from "./publish-folder.ts";
import type { SnapshotIssuer } from "./snapshot.ts";
import { merchantView } from "./view.ts";

export interface BatchContext {
  /**
   * The profiles of a batch (store/publish-source.ts createProfileLoader on SQLite, synchronous in
   * its read transaction; store/postgres/publish-source.ts createPostgresProfileLoader, a Promise).
   */
  loadProfiles: (abIds: readonly string[]) => Map<string, MerchantProfile> | Promise<Map<string, MerchantProfile>>;
  folder: PublishFolder;
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

export interface BatchResult extends BatchCounters {
  entries: [abId: string, entry: IndexEntry][];
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
  run(items: BatchItem[]): Promise<BatchResult>;
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
  return hash("sha256", utf8Bytes(JSON.stringify(profile)), "base64url").slice(0, 27);
}

/**
 * Renders and writes one batch of published merchants. A merchant whose inputs (profile
 * fingerprint, content period) are those of the last run, and whose files are all still there, is
 * not rendered at all; otherwise each document is rendered and written only when its hash changed.
 * The snapshot manifest is re-signed when the card changed or it would expire before the next run.
 * A merchant whose file could not be written counts as failed (its files stay as they were,
 * each written atomically); the next run tries it again.
 */
export async function renderBatch(context: BatchContext, items: readonly BatchItem[]): Promise<BatchResult> {
  const inTransaction = context.readTransaction ?? (<T>(work: () => T) => work());
  // One snapshot of the store for the whole batch; rendering itself reads nothing else.
  const profiles = await inTransaction(() => context.loadProfiles(items.map((item) => item.abId)));
  return renderItems(context, items, profiles);
}

function renderItems(
  context: BatchContext,
  items: readonly BatchItem[],
  profiles: Map<string, MerchantProfile>,
): BatchResult {
  const result: BatchResult = { ...emptyCounters(), entries: [], changed: [], failures: [] };
  for (const item of items) {
    try {
      const profile = profiles.get(item.abId);
      const entry = profile ? renderOne(context, item, profile, result) : null;
      if (!entry) continue;
      result.entries.push([item.abId, entry]);
      if (entry.cardHash !== (item.old?.cardHash ?? null)) result.changed.push(item.abId);
    } catch (error) {
      result.failed += 1;
      result.failures.push({ abId: item.abId, message: error instanceof Error ? error.message : String(error) });
      // Keep what was published: the server compares stamps, so stale files are not served as fresh.
      if (item.old) result.entries.push([item.abId, item.old]);
    }
  }
  return result;
}

function snapshotDue(context: BatchContext, old: IndexEntry | null, cardHash: string | null): boolean {
  if (!context.issueSnapshot) return false;
  if (!old?.snapshotExpiresAt || !old.hashes.snapshot) return true;
  if (cardHash !== null && cardHash !== old.cardHash) return true;
  return Date.parse(old.snapshotExpiresAt) <= context.renewBeforeMs;
}

function renderOne(
  context: BatchContext,
  item: BatchItem,
  profile: MerchantProfile,
  counters: BatchCounters,
): IndexEntry | null {
  const fingerprint = profileFingerprint(profile);
  const period = contentPeriod(profile, context.now);
  const { old, abId } = item;
  const folder = context.folder;

  // Same inputs, same period, same code: the documents on disk are what rendering would give.
  const documentsCurrent =
    context.skipAllowed &&
    old !== null &&
    old.fingerprint === fingerprint &&
    old.since === period.since &&
    old.until === period.until &&
    MERCHANT_DOCUMENT_KINDS.every((kind) => old.hashes[kind] !== undefined && folder.exists(publishedPath(kind, abId)));
  if (documentsCurrent && old) {
    const snapshotPresent = !old.hashes.snapshot || folder.exists(publishedPath("snapshot", abId));
    if (snapshotPresent && !snapshotDue(context, old, null)) {
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
      folder.write(publishedPath("snapshot", abId), issued.document.body, old.hashes.snapshot !== undefined);
      counters.written += 1;
      counters.snapshotsSigned += 1;
      return {
        ...old,
        status: item.status,
        stamp: item.stamp,
        hashes: { ...old.hashes, snapshot: issued.document.hash },
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
    const document = kind === "decision-card" ? renderDecisionCard(view, card) : MERCHANT_RENDERERS[kind](view);
    const relative = publishedPath(kind, abId);
    hashes[kind] = document.hash;
    if (old?.hashes[kind] === document.hash && folder.exists(relative)) {
      counters.unchanged += 1;
    } else {
      folder.write(relative, document.body, old !== null);
      counters.written += 1;
    }
  }

  const cardHash = card.decision_card.content_hash;
  let snapshotExpiresAt = old?.snapshotExpiresAt ?? null;
  if (context.issueSnapshot) {
    if (snapshotDue(context, old, cardHash) || !folder.exists(publishedPath("snapshot", abId))) {
      const issued = context.issueSnapshot(view, card, context.now);
      folder.write(publishedPath("snapshot", abId), issued.document.body, old?.hashes.snapshot !== undefined);
      hashes.snapshot = issued.document.hash;
      snapshotExpiresAt = issued.expiresAt;
      counters.written += 1;
      counters.snapshotsSigned += 1;
    } else if (old?.hashes.snapshot) {
      hashes.snapshot = old.hashes.snapshot;
      counters.unchanged += 1;
    }
  } else {
    snapshotExpiresAt = null;
    if (folder.remove(publishedPath("snapshot", abId))) counters.deleted += 1;
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
