import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { openPackIndexReader } from "../store/pack-index.ts";
import { KEY_SET_PATH } from "./documents.ts";
import { PackReader } from "./pack-files.ts";
import { PublishFolder, STATE_DIRNAME } from "./publish-folder.ts";
import { STATIC_CONFIG_FILES } from "./static-config.ts";

/** Written into an export, so that a later export may replace the folder (and nothing else). */
export const EXPORT_MARKER = ".abeille-export.json";

export interface ExportSummary {
  /** The packs' generation exported, and under which publish key. */
  generation: number;
  publishKey: string | null;
  documents: number;
  /** Files that belong to no merchant (key set, static server configuration). */
  files: number;
  bytes: number;
}

/** The export cannot be made: nothing is published yet, or the target is not an earlier export. */
export class ExportRefused extends Error {
  override name = "ExportRefused";
}

/**
 * Writes the committed publication out as the tree of files a static server or a CDN upload takes
 * (docs/deployment.md): every document at its public URL path, the key set and the static server
 * configuration (`_headers`, `_nginx.conf`) beside them. Read in one read transaction of the
 * packs' index (the generation of when it began, whatever a refresh commits meanwhile), written
 * into a sibling folder then renamed over `target`: a server or upload reading `target` never
 * sees half an export. `target` must not exist, or be an earlier export (its marker file).
 */
export function exportPublication(publishDir: string, target: string): ExportSummary {
  const destination = path.resolve(target);
  if (
    existsSync(destination) &&
    readdirSync(destination).length > 0 &&
    !existsSync(path.join(destination, EXPORT_MARKER))
  ) {
    throw new ExportRefused(`${destination} exists and is not an earlier export: give an empty or new folder`);
  }
  const stateDir = path.join(publishDir, STATE_DIRNAME);
  const index = openPackIndexReader(stateDir);
  if (!index) throw new ExportRefused(`nothing is published in ${publishDir} yet: run npm run refresh first`);
  const reader = new PackReader(stateDir, (id) => index.dictionary(id));
  const staging = `${destination}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  try {
    const summary = index.snapshot(() => {
      const committed = index.committed();
      if (committed.generation === 0) throw new ExportRefused(`nothing is published in ${publishDir} yet`);
      const made = new Set<string>();
      const write = (relative: string, body: Uint8Array) => {
        const file = path.join(staging, relative);
        const dir = path.dirname(file);
        if (!made.has(dir)) {
          mkdirSync(dir, { recursive: true });
          made.add(dir);
          if (made.size > 4096) made.clear();
        }
        writeFileSync(file, body);
      };
      let documents = 0;
      let bytes = 0;
      for (let after = ""; ; ) {
        const page = index.paths(after, 1000);
        for (const [relative, location] of page) {
          const body = reader.read(location);
          if (!body)
            throw new Error(`${relative}: its pack cannot be read (removed or damaged); run npm run refresh -- --full`);
          write(relative, body);
          documents += 1;
          bytes += body.length;
        }
        const last = page[page.length - 1];
        if (!last) break;
        after = last[0];
      }
      const folder = new PublishFolder(publishDir);
      let files = 0;
      for (const relative of [KEY_SET_PATH, ...Object.keys(STATIC_CONFIG_FILES)]) {
        const body = folder.read(relative);
        if (!body) continue;
        write(relative, body);
        files += 1;
        bytes += body.length;
      }
      return { generation: committed.generation, publishKey: committed.publishKey, documents, files, bytes };
    });
    mkdirSync(staging, { recursive: true });
    writeFileSync(
      path.join(staging, EXPORT_MARKER),
      `${JSON.stringify({ ...summary, exportedAt: new Date().toISOString() })}\n`,
    );
    // The earlier export moves aside, the new one takes its name, the earlier one goes.
    const previous = existsSync(destination) ? `${destination}.previous-${process.pid}` : null;
    if (previous) renameSync(destination, previous);
    renameSync(staging, destination);
    if (previous) rmSync(previous, { recursive: true, force: true });
    return summary;
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  } finally {
    reader.close();
    index.close();
  }
}
