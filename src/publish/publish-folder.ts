import { randomBytes } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { AB_ID_PATTERN } from "../schemas/common.ts";
import type { PublishedKind } from "./documents.ts";
import { merchantFolders } from "./documents.ts";

/** Bookkeeping lives in a dot-folder the fast path never serves (and the static config denies). */
export const STATE_DIRNAME = ".abeille";
export const INDEX_FILENAME = "index.json";
export const SERVE_INDEX_FILENAME = "serve-index.tsv";
const TEMP_DIRNAME = "tmp";

export interface IndexEntry {
  status: string;
  /** Source stamp (source-store.ts) when rendered: what the server compares against the store. */
  stamp: string;
  /** Hash of the whole loaded profile: equal means the renderers' inputs are equal. */
  fingerprint: string;
  since: string;
  until: string | null;
  /** Content hash (base64 SHA-256) of each file written for the merchant. */
  hashes: Partial<Record<PublishedKind, string>>;
  /** The decision card's content_hash: a new one means the snapshot manifest must be re-signed. */
  cardHash: string | null;
  snapshotExpiresAt: string | null;
}

export interface PublishIndex {
  version: 1;
  /** Format version, BASE_URL and order rail: what the published bytes depend on besides the store. */
  publishKey: string;
  /** Hash of the source code that rendered the files (job side only; a change re-renders everything). */
  codeKey: string;
  generatedAt: string;
  merchants: Record<string, IndexEntry>;
  /** Hashes of the files that belong to no merchant (key set, static server configuration). */
  files: Record<string, string>;
}

/**
 * The publish folder: files at their public URL paths, written atomically (a temporary file in
 * `.abeille/tmp` on the same file system, then a rename), so a reader (our server, nginx, a CDN
 * sync) sees either the old or the new bytes, never a partial file.
 */
export class PublishFolder {
  readonly stateDir: string;
  private readonly tempDir: string;
  private readonly madeDirs = new Set<string>();
  private sequence = 0;
  private readonly tempPrefix = `${process.pid}-${randomBytes(4).toString("hex")}-`;

  constructor(readonly root: string) {
    this.stateDir = path.join(root, STATE_DIRNAME);
    this.tempDir = path.join(this.stateDir, TEMP_DIRNAME);
  }

  /** Creates the folder; leftovers of an interrupted run (temporary files) are removed. */
  open(): void {
    mkdirSync(this.root, { recursive: true });
    rmSync(this.tempDir, { recursive: true, force: true });
    mkdirSync(this.tempDir, { recursive: true });
  }

  close(): void {
    rmSync(this.tempDir, { recursive: true, force: true });
  }

  full(relative: string): string {
    return path.join(this.root, relative);
  }

  exists(relative: string): boolean {
    return existsSync(this.full(relative));
  }

  write(relative: string, body: Uint8Array | string): void {
    const target = this.full(relative);
    const dir = path.dirname(target);
    if (!this.madeDirs.has(dir)) {
      mkdirSync(dir, { recursive: true });
      this.madeDirs.add(dir);
    }
    const temp = path.join(this.tempDir, `${this.tempPrefix}${this.sequence++}.tmp`);
    writeFileSync(temp, body);
    try {
      renameSync(temp, target);
    } catch (error) {
      try {
        unlinkSync(temp);
      } catch {
        // already gone
      }
      throw error;
    }
  }

  remove(relative: string): boolean {
    try {
      unlinkSync(this.full(relative));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw error;
    }
  }

  /** Deletes everything a merchant owns; answers the number of files removed. */
  removeMerchant(abId: string): number {
    let removed = 0;
    for (const folder of merchantFolders(abId)) {
      const full = this.full(folder);
      let names: string[];
      try {
        names = readdirSync(full);
      } catch {
        continue;
      }
      removed += names.length;
      rmSync(full, { recursive: true, force: true });
      this.madeDirs.delete(full);
    }
    return removed;
  }

  /** Every ab_id with a folder on disk (whatever the index says). */
  merchantsOnDisk(): Set<string> {
    const found = new Set<string>();
    for (const parent of ["api/merchants", "m", "api/registry/verify"]) {
      let names: string[];
      try {
        names = readdirSync(this.full(parent));
      } catch {
        continue;
      }
      for (const name of names) if (AB_ID_PATTERN.test(name)) found.add(name);
    }
    return found;
  }

  readIndex(): PublishIndex | null {
    try {
      const parsed = JSON.parse(readFileSync(path.join(this.stateDir, INDEX_FILENAME), "utf8")) as PublishIndex;
      return parsed.version === 1 && typeof parsed.merchants === "object" ? parsed : null;
    } catch {
      return null;
    }
  }

  writeState(name: string, text: string): void {
    this.write(path.join(STATE_DIRNAME, name), text);
  }

  /** Files left in the temporary folder (none once a run is over). */
  leftoverTemporaryFiles(): string[] {
    try {
      return readdirSync(this.tempDir);
    } catch {
      return [];
    }
  }

  mtimeMs(relative: string): number | null {
    try {
      return statSync(this.full(relative)).mtimeMs;
    } catch {
      return null;
    }
  }
}
