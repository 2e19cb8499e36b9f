/**
 * Builds the embedded search index of a DATA_DIR's SQLite store in pages of a given size, saying
 * each page's progress on stdout ("done/total"): a process a test kills in the middle of a build.
 *
 *   node test/helpers/build-search-index.ts <DATA_DIR> <merchants a page>
 */
import path from "node:path";
import { createEmbeddedSearchIndex } from "../../src/search/embedded/index.ts";
import { openDatabase } from "../../src/store/db.ts";

const [dataDir, pageSize] = process.argv.slice(2);
if (!dataDir || !pageSize) throw new Error("usage: build-search-index.ts <DATA_DIR> <merchants a page>");
const db = openDatabase(path.join(dataDir, "abeille.db"));
const index = createEmbeddedSearchIndex(db, { pageSize: Number(pageSize) });
await index.rebuild((done, total) => process.stdout.write(`${done}/${total}\n`));
index.close();
db.$client.close();
process.stdout.write("built\n");
