import { createHash, type Hash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/**
 * A hash of the source tree that renders the documents. The refresh job skips rendering a
 * merchant only when its inputs and this key are those of the last run, so a code change (a
 * renderer, a scoring rule) re-renders everything without anyone having to remember a version bump.
 */
export function sourceTreeKey(root: string): string {
  const hash = createHash("sha256");
  hashTree(hash, root, root, true);
  return hash.digest("base64url").slice(0, 22);
}

/**
 * The same key over several trees (paths relative to `root`): `trees` walked whole, `flat` their
 * own files only. Null when none of the walked trees exists (code running from a bundle, away
 * from its sources): then nothing can tell two versions apart, whatever `flat` finds.
 */
export function sourceTreesKey(root: string, trees: readonly string[], flat: readonly string[] = []): string | null {
  const present = (list: readonly string[]) => list.filter((tree) => existsSync(path.join(root, tree)));
  const walked = present(trees);
  if (walked.length === 0) return null;
  const listed = present(flat);
  const hash = createHash("sha256");
  for (const tree of walked) hashTree(hash, root, path.join(root, tree), true);
  for (const tree of listed) hashTree(hash, root, path.join(root, tree), false);
  return hash.digest("base64url").slice(0, 22);
}

function hashTree(hash: Hash, root: string, start: string, recursive: boolean): void {
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
        if (recursive && name !== "node_modules" && !name.startsWith(".")) visit(full);
      } else if (/\.(ts|mts|js|mjs|json|astro)$/.test(name)) {
        hash.update(path.relative(root, full)).update("\0").update(readFileSync(full)).update("\0");
      }
    }
  };
  visit(start);
}

/**
 * What builds a search result card kept in the store (src/domain/registry/search-cards.ts): the
 * domain, the schemas, the store's row mapping and the data files (data/'s own files only: the
 * default DATA_DIR, data/runtime, holds the database and the published documents). `npm start`'s primary computes it from the sources and hands
 * it to every server process in this variable, so the bundled routes and the owner's keeper
 * agree on it.
 */
export const CARD_CODE_ENV = "ABEILLE_CARD_CODE";

export function cardCodeKey(srcDir: string): string | null {
  return sourceTreesKey(srcDir, ["domain", "schemas", "store"], ["../data"]);
}

/**
 * The card code key this process builds and reads kept cards with: the one `npm start`'s primary
 * handed down, else the key of the sources this module sits in (src/); null when it runs away
 * from them (a bundle started by hand).
 */
export function processCardCode(): string | null {
  return process.env[CARD_CODE_ENV] ?? cardCodeKey(path.resolve(import.meta.dirname, ".."));
}
