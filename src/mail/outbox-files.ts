import { readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";

/** Deletes the .eml files of DATA_DIR/outbox written before `cutoff` (they hold personal data). */
export function pruneMailFiles(outboxDir: string, cutoff: Date): number {
  let names: string[];
  try {
    names = readdirSync(outboxDir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!name.endsWith(".eml")) continue;
    const file = path.join(outboxDir, name);
    try {
      if (statSync(file).mtime < cutoff) {
        rmSync(file, { force: true });
        removed += 1;
      }
    } catch {
      // removed meanwhile
    }
  }
  return removed;
}
