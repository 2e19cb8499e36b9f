import { mkdtempSync, rmSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bodyHash, etagOf } from "../../src/publish/document.ts";
import { type PublishedKind, publishedPath } from "../../src/publish/documents.ts";
import { createPublishedFastPath, type FastPathStore } from "../../src/publish/fast-path.ts";
import { openPackStore, type PackStage, type PackStore, StageWriter } from "../../src/publish/pack-store.ts";
import { STATE_DIRNAME } from "../../src/publish/publish-folder.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { createPublishSource } from "../../src/store/publish-source.ts";
import { FIXTURE, fixtureMerchants, insertFixtureMerchants } from "../helpers/search-index-fixture.ts";

/*
 * The published-file fast path against a real store: what it reads from the store per request,
 * and which bytes it serves while the store and the publish folder move.
 */

const PUBLISH_KEY = "test-publish-key";
const BASE_URL = "https://registre.example";
const bakery = FIXTURE.bakeryTrusted;
const plumber = FIXTURE.plumberLyon;

let dataDir: string;
let publishDir: string;
let db: Db;
let calls: { revision: number; touchedSince: number; stampOf: number };
let store: FastPathStore;

beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), "abeille-fast-path-"));
  publishDir = path.join(dataDir, "publish");
  db = openDatabase(path.join(dataDir, "abeille.db"));
  insertFixtureMerchants(db, fixtureMerchants);
  const source = createPublishSource(db);
  calls = { revision: 0, touchedSince: 0, stampOf: 0 };
  // The real store, counted.
  store = {
    revision: () => {
      calls.revision += 1;
      return source.revision();
    },
    touchedSince: (cursor) => {
      calls.touchedSince += 1;
      return source.touchedSince(cursor);
    },
    stampOf: (abId) => {
      calls.stampOf += 1;
      return source.stampOf(abId);
    },
  };
});

afterEach(() => {
  run?.packs.close();
  run = null;
  db.$client.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A refresh run under way, as the job keeps it: documents written into its stage, not committed yet. */
let run: { packs: PackStore; stage: PackStage; writer: StageWriter | null } | null = null;

function openRun(): NonNullable<typeof run> {
  if (!run) {
    const packs = openPackStore(path.join(publishDir, STATE_DIRNAME));
    run = { packs, stage: packs.begin(), writer: null };
  }
  return run;
}

/** A document written into the packs by a run that has not committed yet. */
function publish(kind: PublishedKind, abId: string, text: string): Buffer {
  const body = Buffer.from(text);
  const current = openRun();
  current.writer ??= new StageWriter(
    current.stage,
    path.join(publishDir, STATE_DIRNAME),
    current.stage.dictionary(PUBLISH_KEY, () => [body]),
  );
  current.writer.put(publishedPath(kind, abId), body);
  return body;
}

/**
 * The end of the run, as the refresh job commits it: each merchant served under the stamp the
 * store gives it now, with the documents written since the last commit.
 */
async function writeServeIndex(abIds: string[], until: string | null = null): Promise<void> {
  const stamps = await createPublishSource(db).stampsOf([...abIds].sort());
  const current = openRun();
  current.writer?.flush();
  current.writer?.close();
  current.stage.stageServe(
    stamps.map((stamp) => ({
      abId: stamp.abId,
      record: { stamp: stamp.stamp, until, snapshotExpiresAt: null },
      replaces: true,
    })),
  );
  current.stage.commit({ publishKey: PUBLISH_KEY, run: new Date().toISOString() });
  current.packs.close();
  run = null;
}

interface Written {
  status: number;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

/** One GET through the fast path: whether it answered, and what it wrote. */
async function get(
  fastPath: ReturnType<typeof createPublishedFastPath>,
  url: string,
  headers: Record<string, string> = {},
): Promise<Written | null> {
  const request = { method: "GET", url, headers } as unknown as IncomingMessage;
  let written: Written | null = null;
  const response = {
    headersSent: false,
    writeHead(status: number, sent: Record<string, string>) {
      written = { status, headers: sent, body: undefined };
    },
    end(body?: Buffer) {
      if (written) written.body = body;
    },
  } as unknown as ServerResponse;
  return (await fastPath.handle(request, response)) ? written : null;
}

function otherConnection(statement: string): void {
  const other = openDatabase(path.join(dataDir, "abeille.db"));
  try {
    other.$client.exec(statement);
  } finally {
    other.$client.close();
  }
}

describe("the published-file fast path", () => {
  it("reads one merchant's stamp once, then only the store revision, until a write touches that merchant", async () => {
    const bakeryJsonLd = publish("jsonld", bakery, '{"name":"Boulangerie"}');
    publish("ai-digest", bakery, '{"digest":"Boulangerie"}');
    const plumberJsonLd = publish("jsonld", plumber, '{"name":"Plombier"}');
    await writeServeIndex([bakery, plumber]);
    const fastPath = createPublishedFastPath({ publishDir, store, publishKey: PUBLISH_KEY, baseUrl: BASE_URL });

    const first = await get(fastPath, `/api/merchants/${bakery}/jsonld`);
    expect(first?.status).toBe(200);
    expect(first?.body?.equals(bakeryJsonLd)).toBe(true);
    expect(first?.headers).toMatchObject({
      "content-type": "application/ld+json; charset=utf-8",
      etag: etagOf(bodyHash(bakeryJsonLd)),
      "cache-control": "public, max-age=300",
      "x-served-from": "publish-folder",
      link: `<${BASE_URL}/openapi.json>; rel="describedby"; type="application/json", <${BASE_URL}/m/${bakery}/ai.md>; rel="alternate"; type="text/markdown"`,
      "access-control-allow-origin": "*",
      "content-length": String(bakeryJsonLd.length),
    });
    expect(calls).toEqual({ revision: 1, touchedSince: 0, stampOf: 1 });

    // The same merchant again, and another of its documents: no stamp query.
    expect((await get(fastPath, `/api/merchants/${bakery}/jsonld`))?.status).toBe(200);
    expect((await get(fastPath, `/api/merchants/${bakery}/ai-digest`))?.status).toBe(200);
    expect((await get(fastPath, `/api/merchants/${plumber}/jsonld`))?.body?.equals(plumberJsonLd)).toBe(true);
    expect(calls).toEqual({ revision: 4, touchedSince: 0, stampOf: 2 });

    // A write to the bakery from another process (writers move updated_at, which the stamp reads):
    // its file is behind the store at once; the plumber's stays served on the stamp read before.
    otherConnection(
      `UPDATE merchants SET phone = '+33 4 00 00 00 01', updated_at = '2026-11-26T12:00:00.000Z' WHERE ab_id = '${bakery}'`,
    );
    expect(await get(fastPath, `/api/merchants/${bakery}/jsonld`)).toBeNull();
    expect((await get(fastPath, `/api/merchants/${plumber}/jsonld`))?.status).toBe(200);
    expect(calls).toEqual({ revision: 6, touchedSince: 1, stampOf: 3 });
    expect(fastPath.stats()).toEqual({ served: 5, notModified: 0, passed: 1 });
  });

  it("answers without a Promise when the store revision is known at once and the stamp is kept", async () => {
    const bakeryJsonLd = publish("jsonld", bakery, '{"name":"Boulangerie"}');
    await writeServeIndex([bakery]);
    const source = createPublishSource(db);
    let known: number | null = null;
    const knowing: FastPathStore = { ...store, knownRevision: () => known };
    const fastPath = createPublishedFastPath({ publishDir, store: knowing, publishKey: PUBLISH_KEY });
    const request = {
      method: "GET",
      url: `/api/merchants/${bakery}/jsonld`,
      headers: {},
    } as unknown as IncomingMessage;
    const bodies: (Buffer | undefined)[] = [];
    const response = {
      headersSent: false,
      writeHead() {},
      end(body?: Buffer) {
        bodies.push(body);
      },
    } as unknown as ServerResponse;
    // Not known (a PostgreSQL instance not listening): the revision is read, a Promise answers.
    const first = fastPath.handle(request, response);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toBe(true);
    // Known and the stamp kept: the answer is written before handle returns, with no store read.
    known = await source.revision();
    const before = { ...calls };
    expect(fastPath.handle(request, response)).toBe(true);
    expect(calls).toEqual(before);
    expect(bodies.map((body) => body?.equals(bakeryJsonLd))).toEqual([true, true]);
    // A write moves the known revision: the touches are read (a Promise again) and the file passes.
    otherConnection(
      `UPDATE merchants SET phone = '+33 4 00 00 00 03', updated_at = '2026-11-26T12:00:00.000Z' WHERE ab_id = '${bakery}'`,
    );
    known = await source.revision();
    const moved = fastPath.handle(request, response);
    expect(moved).toBeInstanceOf(Promise);
    expect(await moved).toBe(false);
    expect(calls.touchedSince).toBe(before.touchedSince + 1);
  });

  it("does not keep a stamp read while another request followed a write to that merchant", async () => {
    publish("jsonld", plumber, '{"name":"Plombier"}');
    publish("jsonld", bakery, '{"name":"Boulangerie"}');
    await writeServeIndex([plumber, bakery]);
    // The plumber's first stamp read is answered late, after the store moved (as a slower engine may).
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let holdNext = true;
    const slowStore: typeof store = {
      ...store,
      stampOf: async (abId) => {
        const stamp = await store.stampOf(abId);
        if (holdNext && abId === plumber) {
          holdNext = false;
          await held;
        }
        return stamp;
      },
    };
    const fastPath = createPublishedFastPath({ publishDir, store: slowStore, publishKey: PUBLISH_KEY });
    const first = get(fastPath, `/api/merchants/${plumber}/jsonld`);
    await new Promise((resolve) => setImmediate(resolve));
    otherConnection(
      `UPDATE merchants SET phone = '+33 4 00 00 00 02', updated_at = '2026-11-26T12:00:00.000Z' WHERE ab_id = '${plumber}'`,
    );
    // Another request follows the write (the plumber's stamp is not kept yet: nothing to drop).
    expect((await get(fastPath, `/api/merchants/${bakery}/jsonld`))?.status).toBe(200);
    release();
    // The first request read the plumber before the write: it may answer with the file of then.
    expect((await first)?.status).toBe(200);
    // But its stamp is not kept: the next request reads the stamp after the write, and passes.
    expect(await get(fastPath, `/api/merchants/${plumber}/jsonld`)).toBeNull();
  });

  it("never serves a merchant the store no longer publishes, nor one whose content period ended", async () => {
    publish("jsonld", bakery, '{"name":"Boulangerie"}');
    publish("jsonld", plumber, '{"name":"Plombier"}');
    await writeServeIndex([bakery, plumber], "2026-12-01T00:00:00.000Z");
    let now = Date.parse("2026-11-30T23:59:59.000Z");
    const fastPath = createPublishedFastPath({ publishDir, store, publishKey: PUBLISH_KEY, nowMs: () => now });
    expect((await get(fastPath, `/api/merchants/${bakery}/jsonld`))?.status).toBe(200);
    expect((await get(fastPath, `/api/merchants/${plumber}/jsonld`))?.status).toBe(200);

    otherConnection(`UPDATE merchants SET status = 'SUSPENDED' WHERE ab_id = '${bakery}'`);
    expect(await get(fastPath, `/api/merchants/${bakery}/jsonld`)).toBeNull();
    expect((await get(fastPath, `/api/merchants/${plumber}/jsonld`))?.status).toBe(200);

    now = Date.parse("2026-12-01T00:00:00.000Z");
    expect(await get(fastPath, `/api/merchants/${plumber}/jsonld`)).toBeNull();
  });

  it("drops every kept stamp when the store moved by more writes than it follows one by one", async () => {
    publish("jsonld", plumber, '{"name":"Plombier"}');
    await writeServeIndex([plumber]);
    const fastPath = createPublishedFastPath({ publishDir, store, publishKey: PUBLISH_KEY });
    expect((await get(fastPath, `/api/merchants/${plumber}/jsonld`))?.status).toBe(200);
    expect(calls.stampOf).toBe(1);

    // 5,001 writes to another merchant: listing who was touched is not worth it any more.
    const update = db.$client.prepare("UPDATE merchants SET phone = ? WHERE ab_id = ?");
    db.$client.transaction(() => {
      for (let write = 0; write <= 5_000; write++) update.run(`+33 4 00 00 ${String(write).padStart(4, "0")}`, bakery);
    })();
    expect((await get(fastPath, `/api/merchants/${plumber}/jsonld`))?.status).toBe(200);
    expect(calls).toMatchObject({ touchedSince: 0, stampOf: 2 });

    // A few writes are followed: the plumber's stamp stays.
    update.run("+33 4 99 99 99 99", bakery);
    expect((await get(fastPath, `/api/merchants/${plumber}/jsonld`))?.status).toBe(200);
    expect(calls).toMatchObject({ touchedSince: 1, stampOf: 2 });
  });

  it("keeps the bytes of the packs' committed generation until the refresh job commits the next", async () => {
    const before = publish("jsonld", bakery, '{"name":"Boulangerie"}');
    await writeServeIndex([bakery]);
    const fastPath = createPublishedFastPath({ publishDir, store, publishKey: PUBLISH_KEY, indexRecheckMs: 0 });
    expect((await get(fastPath, `/api/merchants/${bakery}/jsonld`))?.body?.equals(before)).toBe(true);

    // A run in progress writes the document into its packs first: the generation served is still the old one.
    const after = publish("jsonld", bakery, '{"name":"Boulangerie du Centre"}');
    const during = await get(fastPath, `/api/merchants/${bakery}/jsonld`);
    expect(during?.body?.equals(before)).toBe(true);
    expect(during?.headers.etag).toBe(etagOf(bodyHash(before)));

    // Then the run commits: the new bytes, with their own ETag.
    await writeServeIndex([bakery]);
    const served = await get(fastPath, `/api/merchants/${bakery}/jsonld`);
    expect(served?.body?.equals(after)).toBe(true);
    expect(served?.headers.etag).toBe(etagOf(bodyHash(after)));
    const notModified = await get(fastPath, `/api/merchants/${bakery}/jsonld`, {
      "if-none-match": etagOf(bodyHash(after)),
    });
    expect(notModified?.status).toBe(304);
    expect(notModified?.body).toBeUndefined();
  });
});
