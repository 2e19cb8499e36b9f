import path from "node:path";
import { PackReader } from "../../src/publish/pack-files.ts";
import { STATE_DIRNAME } from "../../src/publish/publish-folder.ts";
import { openPackIndexReader } from "../../src/store/pack-index.ts";

/**
 * What a publish folder's packs serve, as the server reads them (the committed generation only):
 * every document's place (pack, offset and hash: a document written again moves), and their bytes.
 */
export function publishedDocuments(publishDir: string): Map<string, string> {
  const found = new Map<string, string>();
  const index = openPackIndexReader(path.join(publishDir, STATE_DIRNAME));
  if (!index) return found;
  try {
    for (let after = ""; ; ) {
      const page = index.paths(after, 1000);
      for (const [relative, location] of page) {
        found.set(relative, `${location.pack}:${location.offset}:${location.sha256}`);
      }
      const last = page[page.length - 1];
      if (!last) break;
      after = last[0];
    }
  } finally {
    index.close();
  }
  return found;
}

/** A published document's bytes as the server would serve them, or null. */
export function readPublished(publishDir: string, relative: string): Buffer | null {
  const stateDir = path.join(publishDir, STATE_DIRNAME);
  const index = openPackIndexReader(stateDir);
  if (!index) return null;
  const reader = new PackReader(stateDir, (id) => index.dictionary(id));
  try {
    const location = index.document(relative);
    return location ? reader.read(location) : null;
  } finally {
    reader.close();
    index.close();
  }
}
