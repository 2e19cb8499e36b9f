import { createHash } from "node:crypto";
import type { ServeRecord } from "../store/pack-index.ts";
import type { IndexEntry } from "../store/publish-index.ts";

/**
 * What the server needs to know about each published merchant to serve its files without
 * rendering: the source stamp the files were rendered from, until when they hold (the next
 * calendar instant, period.ts) and when the snapshot manifest expires. One line per merchant,
 * tab-separated, so a 100,000-merchant index loads in a few tens of milliseconds.
 */
export interface ServeEntry {
  stamp: string;
  /** Until when the documents hold (ISO), or null; and as epoch ms, Infinity when null. */
  until: string | null;
  untilMs: number;
  /** Epoch ms; NaN when no snapshot is published. */
  snapshotExpiresMs: number;
  snapshotExpiresAt: string | null;
}

export interface ServeIndex {
  publishKey: string;
  entries: Map<string, ServeEntry>;
}

const HEADER = "#abeille-serve-index";

/**
 * Bump when a renderer's output changes shape, or where documents are published: what older code
 * published is then not served, and the next refresh publishes everything again. 2: packs
 * (issue 35) where each document was a file.
 */
export const PUBLISH_FORMAT_VERSION = 2;

/** What the server needs of a merchant's entry in the packs' index: its stamp, period end, snapshot expiry. */
export function serveRecordOf(entry: IndexEntry): ServeRecord {
  return {
    stamp: entry.stamp,
    until: entry.until,
    snapshotExpiresAt: entry.hashes.snapshot ? entry.snapshotExpiresAt : null,
  };
}

/** What published bytes depend on besides the store: the format, BASE_URL and the order rail. */
export function publishKeyOf(config: { baseUrl: string; publicOrderRailEnabled: boolean }): string {
  return createHash("sha256")
    .update(JSON.stringify([PUBLISH_FORMAT_VERSION, config.baseUrl, config.publicOrderRailEnabled]))
    .digest("base64url")
    .slice(0, 22);
}

export function formatServeIndex(
  publishKey: string,
  rows: Iterable<[abId: string, stamp: string, until: string | null, snapshotExpiresAt: string | null]>,
): string {
  const lines = [`${HEADER}\t1\t${publishKey}`];
  for (const [abId, stamp, until, snapshot] of rows)
    lines.push(`${abId}\t${stamp}\t${until ?? "-"}\t${snapshot ?? "-"}`);
  return `${lines.join("\n")}\n`;
}

export function parseServeIndex(text: string): ServeIndex | null {
  const lines = text.split("\n");
  const header = (lines[0] ?? "").split("\t");
  if (header[0] !== HEADER || header[1] !== "1" || !header[2]) return null;
  const entries = new Map<string, ServeEntry>();
  for (let index = 1; index < lines.length; index++) {
    const line = lines[index];
    if (!line) continue;
    const [abId, stamp, until, snapshot] = line.split("\t");
    if (!abId || !stamp || until === undefined || snapshot === undefined) continue;
    entries.set(abId, {
      stamp,
      until: until === "-" ? null : until,
      untilMs: until === "-" ? Number.POSITIVE_INFINITY : Date.parse(until),
      snapshotExpiresMs: snapshot === "-" ? Number.NaN : Date.parse(snapshot),
      snapshotExpiresAt: snapshot === "-" ? null : snapshot,
    });
  }
  return { publishKey: header[2], entries };
}
