import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { isServiceError } from "../../src/errors/service-error.ts";
import { renderAiMd } from "../../src/publish/ai-md.ts";
import { keptDocument, viewDepsOf } from "../../src/publish/http.ts";
import { renderJsonLd } from "../../src/publish/jsonld.ts";
import { loadPublishedView, type ViewDeps } from "../../src/publish/view.ts";
import { openDatabase } from "../../src/store/db.ts";
import { FIXTURE, fixtureMerchants, insertFixtureMerchants } from "../helpers/search-index-fixture.ts";

/*
 * The documents routes render on demand (a merchant the publish folder does not hold fresh) are
 * kept until the store moves or the content period ends, the rule published files follow.
 */

const bakery = FIXTURE.bakeryTrusted;
let dataDir: string;
let app: App;
let now: Date;
let loads: number;

const countedLoad = (abId: string) => async (deps: ViewDeps) => {
  loads += 1;
  return await loadPublishedView(deps, abId);
};

beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), "abeille-kept-documents-"));
  now = new Date("2026-11-26T10:00:00.000Z");
  app = createApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "silent" }), { now: () => now });
  insertFixtureMerchants(app.db, fixtureMerchants);
  loads = 0;
});

afterEach(() => {
  app.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("documents kept by their routes", () => {
  it("renders a merchant's document once, the same bytes as rendering it afresh", async () => {
    const first = await keptDocument(app, "jsonld", bakery, countedLoad(bakery), renderJsonLd);
    expect(first.body.equals(renderJsonLd(await loadPublishedView(viewDepsOf(app), bakery)).body)).toBe(true);
    expect(await keptDocument(app, "jsonld", bakery, countedLoad(bakery), renderJsonLd)).toBe(first);
    expect(loads).toBe(1);
    // Each kind is a document of its own.
    const markdown = await keptDocument(app, "ai-md", bakery, countedLoad(bakery), renderAiMd);
    expect(markdown.contentType).toBe("text/markdown; charset=utf-8");
    expect(loads).toBe(2);
  });

  it("renders it again after a write to the store from another process", async () => {
    const before = await keptDocument(app, "jsonld", bakery, countedLoad(bakery), renderJsonLd);
    const other = openDatabase(path.join(dataDir, "abeille.db"));
    try {
      other.$client
        .prepare("UPDATE merchants SET business_name = ?, updated_at = ? WHERE ab_id = ?")
        .run("Boulangerie des Halles", "2026-11-26T09:00:00.000Z", bakery);
    } finally {
      other.$client.close();
    }
    const after = await keptDocument(app, "jsonld", bakery, countedLoad(bakery), renderJsonLd);
    expect(loads).toBe(2);
    expect(after.hash).not.toBe(before.hash);
    expect(JSON.parse(after.body.toString("utf8")).name).toBe("Boulangerie des Halles");
  });

  it("renders it again once the content period ends, as a published file stops being served", async () => {
    const until = (await loadPublishedView(viewDepsOf(app), bakery)).period.until;
    if (until === null) throw new Error("the fixture bakery's content period has no end");
    await keptDocument(app, "jsonld", bakery, countedLoad(bakery), renderJsonLd);
    now = new Date(Date.parse(until) - 1);
    await keptDocument(app, "jsonld", bakery, countedLoad(bakery), renderJsonLd);
    expect(loads).toBe(1);
    now = new Date(until);
    await keptDocument(app, "jsonld", bakery, countedLoad(bakery), renderJsonLd);
    expect(loads).toBe(2);
  });

  it("keeps no refusal: an unknown merchant is looked up on every request", async () => {
    for (let attempt = 0; attempt < 2; attempt++) {
      let code = "";
      try {
        await keptDocument(app, "jsonld", "ab_zzzzzzzz", countedLoad("ab_zzzzzzzz"), renderJsonLd);
      } catch (error) {
        code = isServiceError(error) ? error.code : String(error);
      }
      expect(code).toBe("MERCHANT_NOT_FOUND");
    }
    expect(loads).toBe(2);
  });
});
