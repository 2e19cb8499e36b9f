import { randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { AB_ID_PATTERN } from "../schemas/common.ts";
import { INDEX_DATABASE, openPublishIndex, type PublishIndex } from "../store/publish-index.ts";
import { KEY_SET_PATH, merchantFolders } from "./documents.ts";
import { STATIC_CONFIG_FILES } from "./static-config.ts";

/** Bookkeeping lives in a dot-folder the fast path never serves (and the static config denies). */
export const STATE_DIRNAME = ".abeille";
export const SERVE_INDEX_FILENAME = "serve-index.tsv";

export type { IndexEntry, PublishIndex } from "../store/publish-index.ts";

/** Temporary files are hidden siblings of their target: `.<name>.tmp-<writer>-<n>`. */
const TEMP_MARK = ".tmp-";
const RUN_MARKER = "run-in-progress";
const LOCK_FILENAME = "refresh.lock";

/** Another run holds the publish folder (or, on PostgreSQL, the deployment's refresh lock). */
/** Who holds a publish folder's run lock: a refresh writing it, or the machine's mirror applying the shared table to it. */
export type FolderLockHolder = "refresh" | "mirror";

export class RefreshBusyError extends Error {
  override name = "RefreshBusyError";
  /** Who holds the lock (a mirror's apply is short: a refresh waits for it, publisher.ts). */
  readonly heldBy: FolderLockHolder;
  constructor(message: string, heldBy: FolderLockHolder = "refresh") {
    super(message);
    this.heldBy = heldBy;
  }
}

/**
 * The publish folder: files at their public URL paths, written atomically (a hidden temporary
 * file beside the target, then a rename over it), so a reader (our server, nginx, a CDN sync) sees
 * either the old or the new bytes, never a partial file. A run marks the folder while it works; a
 * run that finds the mark of an interrupted one first sweeps the temporary files it left.
 */
export class PublishFolder {
  readonly stateDir: string;
  /** Directories known to exist (see ensureDirectory). */
  private readonly recentDirs = new Set<string>();
  private sequence = 0;
  private readonly tempTag = `${TEMP_MARK}${process.pid.toString(36)}${randomBytes(3).toString("hex")}-`;

  readonly root: string;

  constructor(root: string) {
    this.root = root;
    this.stateDir = path.join(root, STATE_DIRNAME);
  }

  /** Creates the folder and marks a run in progress; sweeps what an interrupted run left behind. */
  open(): void {
    mkdirSync(this.stateDir, { recursive: true });
    const marker = path.join(this.stateDir, RUN_MARKER);
    if (existsSync(marker)) this.sweepTemporaryFiles();
    writeFileSync(marker, String(process.pid));
  }

  /** Ends a run; the mark stays when the run failed, so the next one sweeps. */
  close(success: boolean): void {
    if (success) rmSync(path.join(this.stateDir, RUN_MARKER), { force: true });
  }

  full(relative: string): string {
    return path.join(this.root, relative);
  }

  exists(relative: string): boolean {
    return existsSync(this.full(relative));
  }

  /** A file's bytes, or null when it is not there. */
  read(relative: string): Buffer | null {
    try {
      return readFileSync(this.full(relative));
    } catch {
      return null;
    }
  }

  /**
   * Writes a file atomically: a hidden temporary sibling, then a rename over the target.
   * Synchronous on purpose: the renderers are one thread per core, and handing each file to the
   * thread pool cost two and a half times the CPU of writing it here (the pool's threads compete
   * with the renderers for the same cores; docs/performance.md).
   *
   * `directoryExists` is what the caller knows of the target's directory, to spare a system call
   * per directory (about 10 µs each on this machine, three directories a merchant): true when it
   * was there at the last run (it is made if the write finds it missing), false when it is not
   * expected (made first, without asking), undefined to ask the file system first.
   */
  write(relative: string, body: Uint8Array | string, directoryExists?: boolean): void {
    const target = this.full(relative);
    const dir = path.dirname(target);
    const known = this.recentDirs.has(dir);
    if (!known && (directoryExists === false || (directoryExists === undefined && !existsSync(dir)))) {
      makeDirectory(dir);
    }
    const temp = this.tempPathOf(target);
    try {
      try {
        writeFileSync(temp, body);
      } catch (error) {
        if (known || directoryExists !== true || (error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        // The directory was expected but is gone (removed by hand since the last run).
        makeDirectory(dir);
        writeFileSync(temp, body);
      }
      renameSync(temp, target);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
    this.remember(dir);
  }

  /** Directories known to exist: a merchant's files live in three, a few recent ones are all the reuse there is. */
  private remember(dir: string): void {
    if (this.recentDirs.has(dir)) return;
    if (this.recentDirs.size >= 16) this.recentDirs.clear();
    this.recentDirs.add(dir);
  }

  private tempPathOf(target: string): string {
    return path.join(path.dirname(target), `.${path.basename(target)}${this.tempTag}${this.sequence++}`);
  }

  /**
   * One writer at a time per publish folder (a refresh, or the mirror applying the shared table):
   * a lock file holding the owner's pid and kind, taken over when that process is gone. Answers
   * its release; a RefreshBusyError saying who holds it otherwise.
   */
  lockForRun(holder: FolderLockHolder = "refresh"): () => void {
    mkdirSync(this.stateDir, { recursive: true });
    return acquireLock(path.join(this.stateDir, LOCK_FILENAME), holder);
  }

  /**
   * The files on disk a refresh publishes, as relative paths: every file under a merchant's folders
   * and the global files (the key set, the static server configuration). Nothing else: the folder
   * (PUBLISH_DIR) may be shared with files Abeille did not write, which a mirror must never delete.
   */
  publishedFiles(): string[] {
    const found: string[] = [];
    const add = (file: string) => {
      if (!path.basename(file).includes(TEMP_MARK))
        found.push(path.relative(this.root, file).split(path.sep).join("/"));
    };
    for (const abId of this.merchantsOnDisk()) {
      for (const folder of merchantFolders(abId)) walk(this.full(folder), add);
    }
    for (const relative of [KEY_SET_PATH, ...Object.keys(STATIC_CONFIG_FILES)]) {
      if (this.exists(relative)) found.push(relative);
    }
    return found;
  }

  /** Every temporary file under the folder (none once a run is over). */
  temporaryFiles(): string[] {
    const found: string[] = [];
    walk(this.root, (file) => {
      if (path.basename(file).includes(TEMP_MARK)) found.push(file);
    });
    return found;
  }

  private sweepTemporaryFiles(): void {
    for (const file of this.temporaryFiles()) rmSync(file, { force: true });
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
      this.recentDirs.delete(full);
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

  /** The refresh job's index as one object (tests and tools; the job reads it a row at a time). */
  readIndex(): PublishIndex | null {
    if (!existsSync(path.join(this.stateDir, INDEX_DATABASE))) return null;
    const index = openPublishIndex(this.stateDir);
    try {
      return index.snapshot();
    } finally {
      index.close();
    }
  }

  writeState(name: string, text: string): void {
    this.write(path.join(STATE_DIRNAME, name), text);
  }

  mtimeMs(relative: string): number | null {
    try {
      return statSync(this.full(relative)).mtimeMs;
    } catch {
      return null;
    }
  }
}

/** One mkdir when the parent exists (the usual case), the recursive walk only when it does not. */
function makeDirectory(dir: string): void {
  try {
    mkdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return;
    if (code !== "ENOENT") throw error;
    mkdirSync(dir, { recursive: true });
  }
}

function walk(directory: string, visit: (file: string) => void): void {
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(directory, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) walk(full, visit);
    else visit(full);
  }
}

function acquireLock(file: string, holder: FolderLockHolder): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx");
      writeSync(fd, `${process.pid} ${holder}`);
      closeSync(fd);
      return () => {
        try {
          unlinkSync(file);
        } catch {
          // already removed
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      // "<pid> <holder>"; a bare pid is a refresh's (the format before mirrors took the lock).
      const [pidText = "", heldBy = "refresh"] = readFileSafe(file).split(" ");
      const owner = Number(pidText);
      if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
        throw heldBy === "mirror"
          ? new RefreshBusyError(`this machine's mirror (pid ${owner}) is writing this publish folder`, "mirror")
          : new RefreshBusyError(`another refresh (pid ${owner}) is running on this publish folder`);
      }
      try {
        unlinkSync(file);
      } catch {
        // someone else took it over first; retry once
      }
    }
  }
  throw new RefreshBusyError("could not take the refresh lock");
}

function readFileSafe(file: string): string {
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    return "";
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
