import { createHash } from "node:crypto";

/**
 * What the server needs to know about each published merchant to serve its files without
 * rendering: the source stamp the files were rendered from, until when they hold (the next
 * calendar instant, period.ts) and when the snapshot manifest expires. One line per merchant,
 * tab-separated, so a 100,000-merchant index loads in a few tens of milliseconds.
 */
export interface ServeEntry {
  stamp: string;
  /** Epoch ms; Infinity when the content has no calendar boundary ahead. */
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

/** Bump when a renderer's output changes shape: files published by older code are then not served. */
export const PUBLISH_FORMAT_VERSION = 1;

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
      untilMs: until === "-" ? Number.POSITIVE_INFINITY : Date.parse(until),
      snapshotExpiresMs: snapshot === "-" ? Number.NaN : Date.parse(snapshot),
      snapshotExpiresAt: snapshot === "-" ? null : snapshot,
    });
  }
  return { publishKey: header[2], entries };
}
