import { loadConfig } from "../src/config/config.ts";
import { openDatabase } from "../src/store/db.ts";
import { createPublishSource, createProfileLoader } from "../src/publish/source-store.ts";
import { merchantView } from "../src/publish/view.ts";
import { MERCHANT_RENDERERS, MERCHANT_DOCUMENT_KINDS } from "../src/publish/documents.ts";
const config = loadConfig();
const db = openDatabase(config.databaseFile);
const ids = createPublishSource(db).stampsAfter("", 100000).map((s) => s.abId);
const loader = createProfileLoader(db);
const now = new Date();
for (let round = 0; round < 3; round++)
for (let i = 0; i < ids.length; i += 500) {
  const profiles = loader.load(ids.slice(i, i + 500));
  for (const p of profiles.values()) {
    const v = merchantView(p, { baseUrl: config.baseUrl, orderRailEnabled: false, now });
    for (const kind of MERCHANT_DOCUMENT_KINDS) MERCHANT_RENDERERS[kind](v);
  }
}
