import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/**
 * A hash of the source tree that renders the documents. The refresh job skips rendering a
 * merchant only when its inputs and this key are those of the last run, so a code change (a
 * renderer, a scoring rule) re-renders everything without anyone having to remember a version bump.
 */
export function sourceTreeKey(root: string): string {
  const hash = createHash("sha256");
  const visit = (directory: string) => {
    let names: string[];
    try {
      names = readdirSync(directory).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const full = path.join(directory, name);
      const stat = statSync(full);
      if (stat.isDirectory()) {
        if (name !== "node_modules" && !name.startsWith(".")) visit(full);
      } else if (/\.(ts|mts|js|mjs|json|astro)$/.test(name)) {
        hash.update(path.relative(root, full)).update("\0").update(readFileSync(full)).update("\0");
      }
    }
  };
  visit(root);
  return hash.digest("base64url").slice(0, 22);
}
