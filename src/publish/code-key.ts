import { createHash, type Hash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/** The modules the refresh renders and publishes with: the job's side and the workers' side. */
const REFRESH_ENTRIES = ["publisher.ts", "refresh-worker.ts", "signing-hooks.ts"];

/**
 * What renders the published documents: the refresh job skips a merchant only when its inputs and
 * this key are those of the last run, so a change to a renderer, a scoring rule or the profile
 * loader re-renders everything without anyone having to remember a version bump, and a deploy
 * that changes nothing the documents come from (a route, search, the MCP tools, mail) does not
 * re-render 100,000 merchants.
 */
export function refreshCodeKey(): string {
  return moduleGraphKey(REFRESH_ENTRIES.map((entry) => path.join(import.meta.dirname, entry)));
}

export interface ModuleGraph {
  /** Every file reached, absolute paths, sorted. */
  files: string[];
  /** The packages they import, as `name@version` from the lock file (`name` when not found). */
  packages: string[];
}

const SPECIFIERS = [
  // import ... from "x", export ... from "x" (types included: over-counting only costs a full pass)
  /\bfrom\s*["']([^"'\n]+)["']/g,
  // import "x" and import("x")
  /\bimport\s*\(?\s*["']([^"'\n]+)["']/g,
  // new URL("./worker.ts", import.meta.url): worker entries and the data files a module reads
  /\bnew\s+URL\(\s*["']([^"'\n]+)["']\s*,\s*import\.meta\.url/g,
];
const MODULE = /\.(ts|mts|js|mjs)$/;

/**
 * The modules `entries` run, transitively. Read with patterns rather than a parser: a pattern that
 * matches too much (an import written in a comment) only adds a file to the key, and every way a
 * module reaches another here (static and dynamic imports, re-exports, `new URL(..., import.meta.url)`)
 * is matched. Bare specifiers are packages; `node:` ones are the runtime, whose version the key
 * holds.
 */
export function moduleGraph(entries: readonly string[]): ModuleGraph {
  const files = new Set<string>();
  const packageNames = new Set<string>();
  const pending = entries.map((entry) => path.resolve(entry));
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (files.has(file) || !isFile(file)) continue;
    files.add(file);
    if (!MODULE.test(file)) continue;
    const text = readFileSync(file, "utf8");
    for (const pattern of SPECIFIERS) {
      for (const match of text.matchAll(pattern)) {
        const specifier = match[1] ?? "";
        if (specifier.startsWith(".")) pending.push(path.resolve(path.dirname(file), specifier));
        else if (!specifier.startsWith("node:") && /^[@a-z]/.test(specifier)) packageNames.add(packageName(specifier));
      }
    }
  }
  const lock = readLock(entries[0] ? path.dirname(path.resolve(entries[0])) : process.cwd());
  const packages = [...packageNames].sort().map((name) => {
    const version = lock?.[`node_modules/${name}`]?.version;
    return version ? `${name}@${version}` : name;
  });
  return { files: [...files].sort(), packages };
}

/** The key of a module graph: its files (path and bytes), its packages' versions and Node's. */
export function moduleGraphKey(entries: readonly string[]): string {
  const graph = moduleGraph(entries);
  const root = commonRoot(graph.files);
  const hash = createHash("sha256");
  for (const file of graph.files) hashFile(hash, root, file);
  hash.update(graph.packages.join("\n")).update("\0").update(process.versions.node);
  return hash.digest("base64url").slice(0, 22);
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
}

function commonRoot(files: readonly string[]): string {
  let root = path.dirname(files[0] ?? process.cwd());
  while (!files.every((file) => file.startsWith(root + path.sep)) && path.dirname(root) !== root)
    root = path.dirname(root);
  return root;
}

/** The `packages` of the nearest package-lock.json above `directory`, if any. */
function readLock(directory: string): Record<string, { version?: string }> | null {
  for (let dir = directory; ; dir = path.dirname(dir)) {
    const file = path.join(dir, "package-lock.json");
    if (existsSync(file)) {
      try {
        const parsed = JSON.parse(readFileSync(file, "utf8")) as { packages?: Record<string, { version?: string }> };
        return parsed.packages ?? null;
      } catch {
        return null;
      }
    }
    if (path.dirname(dir) === dir) return null;
  }
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

/** A file's path (relative to `root`, so the key does not depend on where the project sits) and bytes. */
function hashFile(hash: Hash, root: string, file: string): void {
  hash.update(path.relative(root, file)).update("\0").update(readFileSync(file)).update("\0");
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
        hashFile(hash, root, full);
      }
    }
  };
  visit(start);
}

/**
 * What builds a search result card kept in the store (src/domain/registry/search-cards.ts): the
 * domain, the schemas, the store's row mapping and the data files (data/'s own files only: the
 * default DATA_DIR, data/runtime, holds the database and the published documents). `npm start`'s
 * primary computes it from the sources and hands it to every server process in this variable, so
 * the bundled routes and the owner's keeper agree on it.
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
