import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { get as httpGet, type IncomingHttpHeaders } from "node:http";
import path from "node:path";
import type { Worker } from "node:worker_threads";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { compactVerify, createLocalJWKSet } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobArgv } from "../../jobs/compile-cache.ts";
import { loadConfig } from "../../src/config/config.ts";
import { matchesIfNoneMatch } from "../../src/publish/document.ts";
import { publishedPath } from "../../src/publish/documents.ts";
import { ExportRefused, exportPublication } from "../../src/publish/export-publication.ts";
import { PublishFolder } from "../../src/publish/publish-folder.ts";
import { type RefreshInput, type RefreshSummary, runRefresh } from "../../src/publish/publisher.ts";
import { loadPublishSettings } from "../../src/publish/settings.ts";
import { publishSigning } from "../../src/publish/signing-hooks.ts";
import { workerRunner } from "../../src/publish/worker-runner.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { createMerchantRepository } from "../../src/store/merchant-repository.ts";
import { createProfileLoader, createPublishSource } from "../../src/store/publish-source.ts";
import { publishedDocuments, readPublished } from "../helpers/published-packs.ts";
import { runJob } from "../helpers/run-job.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
let db: Db;
let refreshInput: () => RefreshInput;

beforeAll(async () => {
  server = await startTestServer({ count: 150 });
  db = openDatabase(path.join(server.dataDir, "abeille.db"));
  const config = loadConfig();
  const settings = loadPublishSettings(config);
  const signing = publishSigning(config);
  refreshInput = () => ({
    db,
    config,
    settings,
    now: new Date(),
    // Far enough that no snapshot is due for renewal between two runs of this test.
    nextRunAt: new Date(Date.now() + 3600_000),
    snapshotIssuer: signing.snapshotIssuer,
    keySet: signing.keySet,
    codeKey: "test-code",
    batchSize: 40,
  });
});
afterAll(async () => {
  db?.$client.close();
  await server?.close();
});

const publishDir = () => path.join(server.dataDir, "publish");
const first = (name: string) => {
  const id = server.roster.cases[name]?.[0];
  if (!id) throw new Error(`the demo roster has no ${name} merchant`);
  return id;
};
const urlOf: Record<string, (abId: string) => string> = {
  jsonld: (abId) => `/api/merchants/${abId}/jsonld`,
  "ai-digest": (abId) => `/api/merchants/${abId}/ai-digest`,
  "ai-md": (abId) => `/m/${abId}/ai.md`,
};

/**
 * Every published document and file of the publish folder (outside the job's state): a
 * document's place in the packs (a document written again moves), a file's inode and mtime.
 */
function snapshotTree(): Map<string, string> {
  const files = publishedDocuments(publishDir());
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== ".abeille") walk(full);
      } else {
        const stat = statSync(full);
        files.set(path.relative(publishDir(), full), `${stat.ino}:${stat.mtimeMs}`);
      }
    }
  };
  walk(publishDir());
  return files;
}

/** A published document's bytes as the server serves them. */
function publishedBody(relative: string): Buffer {
  const body = readPublished(publishDir(), relative);
  if (!body) throw new Error(`${relative} is not published`);
  return body;
}

function changedFiles(before: Map<string, string>, after: Map<string, string>): string[] {
  const changed = new Set<string>();
  for (const [file, stamp] of after) if (before.get(file) !== stamp) changed.add(file);
  for (const file of before.keys()) if (!after.has(file)) changed.add(file);
  return [...changed].sort();
}

function touch(abId: string, changes: Record<string, string>): void {
  const assignments = Object.keys(changes).map((column) => `${column} = @${column}`);
  db.$client
    .prepare(`UPDATE merchants SET ${assignments.join(", ")} WHERE ab_id = @ab_id`)
    .run({ ...changes, ab_id: abId });
}

describe("the refresh job and the published files", () => {
  const onDemand = new Map<string, { body: Buffer; etag: string; link: string | null }>();
  let firstRun: RefreshSummary;

  it("loads profiles in bulk exactly as the repository does one by one", async () => {
    const ids = (await createPublishSource(db).stampsAfter("", 1000)).map((stamp) => stamp.abId);
    const loaded = createProfileLoader(db).load(ids);
    const repository = createMerchantRepository(db);
    for (const abId of ids) {
      const expected = await repository.findProfile(abId);
      expected?.signals.sort((a, b) => (a.key < b.key ? -1 : 1));
      expect(loaded.get(abId)).toEqual(expected);
    }
  });

  it("records what the endpoints answer before anything is published", async () => {
    for (const abId of [first("active_contactable"), first("contact_disabled"), first("paused")]) {
      for (const [kind, url] of Object.entries(urlOf)) {
        const response = await server.get(url(abId));
        expect(response.status).toBe(200);
        expect(response.headers.get("x-served-from")).toBeNull();
        onDemand.set(`${kind}:${abId}`, {
          body: Buffer.from(await response.arrayBuffer()),
          link: response.headers.get("link"),
          etag: response.headers.get("etag") ?? "",
        });
      }
    }
  });

  it("publishes every published merchant, byte-identical to the endpoints' answers", async () => {
    firstRun = await runRefresh(refreshInput());
    const published = new Set(["ACTIVE", "PROBATION", "PAUSED"]);
    const expected = (await createPublishSource(db).stampsAfter("", 1000)).filter((stamp) =>
      published.has(stamp.status),
    ).length;
    expect(firstRun.merchants).toBe(expected);
    expect(firstRun.rendered).toBe(expected);
    expect(firstRun.snapshotsSigned).toBe(expected);
    expect(firstRun.failed).toBe(0);
    for (const [key, answer] of onDemand) {
      const [kind, abId] = key.split(":") as [string, string];
      const file = publishedBody(publishedPath(kind as "jsonld", abId));
      expect(file.equals(answer.body), `${key} differs between the endpoint and the job`).toBe(true);
    }
    const keys = JSON.parse(readFileSync(path.join(publishDir(), ".well-known/ab-public-keys.json"), "utf8"));
    expect(keys.keys.length).toBeGreaterThan(0);
    expect(readFileSync(path.join(publishDir(), "_headers"), "utf8")).toContain("Content-Type");
    expect(new PublishFolder(publishDir()).temporaryFiles()).toEqual([]);
    // Packs, not a file a document: five documents of each merchant in two packs a batch of 40.
    const packs = readdirSync(path.join(publishDir(), ".abeille", "packs"));
    expect(packs.length).toBeLessThanOrEqual(2 * Math.ceil(expected / 40));
    expect(existsSync(path.join(publishDir(), "api", "merchants"))).toBe(false);
  });

  it("withdraws nothing but never publishes suspended or archived merchants", () => {
    for (const abId of [first("suspended"), first("archived")]) {
      for (const kind of ["jsonld", "ai-digest", "decision-card", "ai-md", "snapshot"] as const) {
        expect(readPublished(publishDir(), publishedPath(kind, abId))).toBeNull();
      }
    }
  });

  it("then serves the published files, same bytes and ETag, with 304 on If-None-Match", async () => {
    // The server looks at the serve index at most once a second.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    for (const [key, answer] of onDemand) {
      const [kind, abId] = key.split(":") as [string, string];
      const url = urlOf[kind]?.(abId) ?? "";
      const response = await server.get(url);
      expect(response.status).toBe(200);
      expect(response.headers.get("x-served-from")).toBe("publish-folder");
      expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      expect(response.headers.get("etag")).toBe(answer.etag);
      // The same Link header (describedby, alternate) as the route that renders the document.
      expect(response.headers.get("link")).toBe(answer.link);
      expect(Buffer.from(await response.arrayBuffer()).equals(answer.body)).toBe(true);
      const cached = await server.get(url, { headers: { "if-none-match": answer.etag } });
      expect(cached.status).toBe(304);
      expect(cached.headers.get("x-served-from")).toBe("publish-folder");
      expect(await cached.text()).toBe("");
    }
    const abId = first("active_contactable");
    const jsonld = await server.get(`/api/merchants/${abId}/jsonld`);
    expect(jsonld.headers.get("content-type")).toBe("application/ld+json; charset=utf-8");
    // Compressed from the decoded frame, as any answer: br and gzip give back the same bytes.
    const identity = Buffer.from(await jsonld.arrayBuffer());
    for (const coding of ["br", "gzip"] as const) {
      const compressed = await new Promise<{ headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const request = httpGet(`${server.url}/api/merchants/${abId}/jsonld`, {
          headers: { "accept-encoding": coding },
        });
        request.on("response", (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
        });
        request.on("error", reject);
      });
      expect(compressed.headers["x-served-from"]).toBe("publish-folder");
      expect(compressed.headers["content-encoding"]).toBe(coding);
      const decoded = coding === "br" ? brotliDecompressSync(compressed.body) : gunzipSync(compressed.body);
      expect(decoded.equals(identity)).toBe(true);
    }
    const markdown = await server.get(`/m/${abId}/ai.md`, { method: "HEAD" });
    expect(markdown.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
  });

  it("leaves API keys and the kill switch to the route's guard", async () => {
    const url = `/api/merchants/${first("active_contactable")}/jsonld`;
    const withBadKey = await server.getJson(url, {
      headers: { authorization: "Bearer abk_not_a_real_key_0000000000000000" },
    });
    expect(withBadKey.status).toBe(401);
    expect(withBadKey.headers.get("x-served-from")).toBeNull();
    const setting = db.$client.prepare(
      "INSERT INTO settings (key, value, updated_at) VALUES ('agent_access_suspended', 'on', '2026-11-01T00:00:00.000Z')",
    );
    setting.run();
    try {
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const suspended = await server.getJson(url);
      expect(suspended.status).toBe(503);
      expect(suspended.body.error.code).toBe("SERVICE_SUSPENDED");
    } finally {
      db.$client.prepare("DELETE FROM settings WHERE key = 'agent_access_suspended'").run();
      await new Promise((resolve) => setTimeout(resolve, 1100));
    }
    const again = await server.get(url);
    expect(again.headers.get("x-served-from")).toBe("publish-folder");
    await again.arrayBuffer();
  });

  it("serves the daily snapshot manifest from the folder with a cache lifetime within its expiry", async () => {
    const abId = first("active_contactable");
    const response = await server.get(`/api/registry/verify/${abId}?snapshot=1`);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-served-from")).toBe("publish-folder");
    const maxAge = Number(/max-age=(\d+)/.exec(response.headers.get("cache-control") ?? "")?.[1]);
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge).toBeLessThanOrEqual(300);
    const body = await response.json();
    expect(body.data.manifest).toMatchObject({ ab_id: abId, kind: "snapshot" });
    expect(Date.parse(body.data.manifest.expires_at) - Date.parse(body.data.manifest.issued_at)).toBe(86_400_000);
    expect(body.data.jws.split(".")).toHaveLength(3);
    // Stored in its pack without its JWS payload, served with it: jose verifies it against the key set.
    const keySet = JSON.parse(readFileSync(path.join(publishDir(), ".well-known/ab-public-keys.json"), "utf8"));
    const verified = await compactVerify(body.data.jws, createLocalJWKSet(keySet));
    expect(JSON.parse(new TextDecoder().decode(verified.payload))).toEqual(body.data.manifest);
    const card = JSON.parse(publishedBody(publishedPath("decision-card", abId)).toString("utf8"));
    expect(body.data.manifest.content_hash).toBe(card.data.decision_card.content_hash);
    // The folder's own path answers the same file; without a fresh file it goes to the live route.
    const folderPath = await server.get(`/api/registry/verify/${abId}/snapshot`);
    expect(folderPath.headers.get("x-served-from")).toBe("publish-folder");
    expect((await folderPath.json()).data.jws).toBe(body.data.jws);
    const unknown = await server.getJson("/api/registry/verify/ab_zzzzzzzz/snapshot");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("MERCHANT_NOT_FOUND");
  });

  it("a second run renders nothing and rewrites nothing", async () => {
    const before = snapshotTree();
    const second = await runRefresh(refreshInput());
    expect(second).toMatchObject({ rendered: 0, written: 0, snapshotsSigned: 0, withdrawn: 0, deleted: 0 });
    expect(second.skipped).toBe(firstRun.merchants);
    expect(changedFiles(before, snapshotTree())).toEqual([]);
  });

  it("after one merchant changes, rewrites exactly its files, and the server stops serving the stale ones", async () => {
    const abId = first("active_contactable");
    const stale = await server.get(`/api/merchants/${abId}/jsonld`);
    const staleEtag = stale.headers.get("etag") ?? "";
    await stale.arrayBuffer();
    touch(abId, { updated_at: new Date().toISOString(), phone: "+33 1 99 00 12 34" });

    // Until the next run, the route renders the new content on demand.
    const fresh = await server.get(`/api/merchants/${abId}/jsonld`);
    expect(fresh.headers.get("x-served-from")).toBeNull();
    expect(matchesIfNoneMatch(staleEtag, fresh.headers.get("etag") ?? "")).toBe(false);
    expect((await fresh.json()).telephone).toBe("+33 1 99 00 12 34");

    const before = snapshotTree();
    const notified: string[][] = [];
    const third = await runRefresh({ ...refreshInput(), onMerchantsChanged: (abIds) => void notified.push(abIds) });
    expect(third).toMatchObject({ rendered: 1, written: 5, snapshotsSigned: 1, withdrawn: 0, changed: 1 });
    expect(notified).toEqual([[abId]]);
    expect(changedFiles(before, snapshotTree())).toEqual(
      ["jsonld", "ai-digest", "decision-card", "ai-md", "snapshot"]
        .map((kind) => publishedPath(kind as "jsonld", abId))
        .sort(),
    );
    // The server looks at the serve index at most once a second.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const served = await server.get(`/api/merchants/${abId}/jsonld`);
    expect(served.headers.get("x-served-from")).toBe("publish-folder");
    expect(served.headers.get("etag")).toBe(fresh.headers.get("etag"));
  });

  it("with nothing written since the last run and nothing due, writes nothing, not even its own state", async () => {
    const packIndex = path.join(publishDir(), ".abeille", "packs.db");
    const before = statSync(packIndex).mtimeMs;
    const index = new PublishFolder(publishDir()).readIndex();
    const run = await runRefresh(refreshInput());
    expect(run).toMatchObject({ rendered: 0, written: 0, changed: 0, skipped: firstRun.merchants });
    expect(statSync(packIndex).mtimeMs).toBe(before);
    expect(new PublishFolder(publishDir()).readIndex()).toEqual(index);
  });

  it("takes over the JSON index of an earlier version instead of rendering everything again", async () => {
    const folder = new PublishFolder(publishDir());
    const current = folder.readIndex();
    if (!current) throw new Error("no index after the first runs");
    const state = path.join(publishDir(), ".abeille");
    for (const name of ["index.db", "index.db-wal", "index.db-shm"]) rmSync(path.join(state, name), { force: true });
    writeFileSync(path.join(state, "index.json"), JSON.stringify(current));
    const run = await runRefresh(refreshInput());
    expect(run).toMatchObject({ rendered: 0, written: 0, merchants: firstRun.merchants });
    expect(existsSync(path.join(state, "index.json"))).toBe(false);
    expect(folder.readIndex()).toEqual(current);
  });

  it("renders only the merchant a write touched, whichever table the write went to", async () => {
    const withClusters = first("with_clusters");
    const withSignals = server.roster.cases.active_contactable?.find((abId) => abId !== withClusters) as string;
    db.$client
      .prepare(
        "UPDATE signals SET recorded_at = ? WHERE ab_id = ? AND key = (SELECT min(key) FROM signals WHERE ab_id = ?)",
      )
      .run(new Date().toISOString(), withSignals, withSignals);
    db.$client
      .prepare(
        "UPDATE qa_nodes SET human_verified_at = ? WHERE node_id = (SELECT min(n.node_id) FROM qa_nodes n JOIN qa_clusters c ON c.cluster_id = n.cluster_id WHERE c.ab_id = ?)",
      )
      .run(new Date().toISOString(), withClusters);
    const notified: string[][] = [];
    const run = await runRefresh({ ...refreshInput(), onMerchantsChanged: (abIds) => void notified.push(abIds) });
    expect(run.rendered).toBe(2);
    expect(run.skipped).toBe(firstRun.merchants - 2);
    expect(run.merchants).toBe(firstRun.merchants);
    const index = new PublishFolder(publishDir()).readIndex();
    expect(Object.keys(index?.merchants ?? {})).toHaveLength(firstRun.merchants);
  });

  it("shares an incremental run between this thread and a worker thread, with the bytes this thread renders", async () => {
    const config = loadConfig();
    const touchedIds = (server.roster.cases.active_contactable ?? []).slice(0, 4);
    expect(touchedIds).toHaveLength(4);
    for (const abId of touchedIds) touch(abId, { updated_at: new Date().toISOString() });
    // Each worker's exit code: 0 when it closed its store and exited on its own, 1 when terminated
    // (which can abort the process while better-sqlite3 is loaded in the thread: worker-runner.ts).
    const exitCodes: Promise<number>[] = [];
    const onWorker = (worker: Worker) => exitCodes.push(new Promise((resolve) => worker.once("exit", resolve)));
    process.on("worker", onWorker);
    const run = await runRefresh({
      ...refreshInput(),
      batchSize: 1,
      runner: workerRunner(config, loadPublishSettings(config), 2),
    }).finally(() => process.off("worker", onWorker));
    expect(run).toMatchObject({ rendered: 4, failed: 0, merchants: firstRun.merchants });
    // One worker: this thread renders too (the runner spares it a core).
    expect(await Promise.all(exitCodes)).toEqual([0]);
    // Rendered again here (another code key renders everyone): not one byte differs.
    const again = await runRefresh({ ...refreshInput(), codeKey: "test-code-inline" });
    expect(again).toMatchObject({ rendered: firstRun.merchants, written: 0, failed: 0 });
    await runRefresh(refreshInput());
  });

  it("renders a merchant whose content period ended although nothing of it was written", async () => {
    const index = new PublishFolder(publishDir()).readIndex();
    const untils = Object.values(index?.merchants ?? {})
      .map((entry) => entry.until)
      .filter((until): until is string => until !== null)
      .sort();
    const earliest = untils[0] as string;
    const now = new Date(Date.parse(earliest) + 1000);
    const ended = untils.filter((until) => Date.parse(until) <= now.getTime()).length;
    const run = await runRefresh({ ...refreshInput(), now, nextRunAt: new Date(Date.now() + 3600_000) });
    expect(run.rendered + run.skipped).toBe(firstRun.merchants);
    expect(run.rendered).toBe(ended);
    // The next run at the real time is due again for them: put the folder back as it was.
    const back = await runRefresh({ ...refreshInput(), codeKey: "test-code-again" });
    expect(back.merchants).toBe(firstRun.merchants);
  });

  it("withdraws a merchant that is archived or suspended: its files go, the routes answer 404", async () => {
    const archived = first("contact_disabled");
    const suspended = first("paused");
    touch(archived, { status: "ARCHIVED", updated_at: new Date().toISOString() });
    touch(suspended, { status: "SUSPENDED", updated_at: new Date().toISOString() });
    const before = snapshotTree();
    const notified: string[][] = [];
    const run = await runRefresh({ ...refreshInput(), onMerchantsChanged: (abIds) => void notified.push(abIds) });
    expect(run.withdrawn).toBe(2);
    expect(notified.flat().sort()).toEqual([archived, suspended].sort());
    expect(run.deleted).toBe(10);
    const removed = changedFiles(before, snapshotTree());
    expect(removed.every((file) => file.includes(archived) || file.includes(suspended))).toBe(true);
    expect(removed).toHaveLength(10);
    for (const abId of [archived, suspended]) {
      expect([...publishedDocuments(publishDir()).keys()].some((relative) => relative.includes(abId))).toBe(false);
      expect((await server.get(`/api/merchants/${abId}/jsonld`)).status).toBe(404);
      expect((await server.get(`/m/${abId}/ai.md`)).status).toBe(404);
    }
    expect(new PublishFolder(publishDir()).temporaryFiles()).toEqual([]);
  });

  it("a change of code re-renders every merchant but rewrites only files whose bytes changed", async () => {
    const before = snapshotTree();
    const run = await runRefresh({ ...refreshInput(), codeKey: "another-version" });
    expect(run.rendered).toBe(run.merchants);
    expect(run.written).toBe(0);
    expect(changedFiles(before, snapshotTree())).toEqual([]);
  });

  it("the daily run re-signs every snapshot manifest due before the next run, and touches nothing else", async () => {
    const before = snapshotTree();
    const run = await runRefresh({
      ...refreshInput(),
      codeKey: "another-version",
      nextRunAt: new Date(Date.now() + 2 * 86_400_000),
    });
    expect(run).toMatchObject({ rendered: 0, snapshotsSigned: run.merchants, written: run.merchants });
    const changed = changedFiles(before, snapshotTree());
    expect(changed).toHaveLength(run.merchants);
    expect(changed.every((file) => file.endsWith("/snapshot"))).toBe(true);
  });

  it("renders everyone on --full, rewrites no file whose bytes stayed, and is incremental again on the next run", async () => {
    const full = await runRefresh({ ...refreshInput(), codeKey: "another-version", full: true });
    expect(full).toMatchObject({ rendered: full.merchants, written: 0, failed: 0 });
    const next = await runRefresh({ ...refreshInput(), codeKey: "another-version" });
    expect(next).toMatchObject({ rendered: 0, written: 0, skipped: full.merchants });
  });

  it("exports the publication as the tree of files a static server takes, byte for byte what the server serves", async () => {
    const target = path.join(server.dataDir, "static-export");
    const exported = await runJob(jobArgv("jobs/export-publication.ts", target, "--json"), {
      dataDir: server.dataDir,
      baseUrl: loadConfig().baseUrl,
    });
    expect([exported.code, exported.stderr]).toEqual([0, ""]);
    const summary = JSON.parse(exported.stdout.trim()) as { documents: number; files: number };
    const served = publishedDocuments(publishDir());
    expect(summary.documents).toBe(served.size);
    for (const relative of served.keys()) {
      expect(readFileSync(path.join(target, relative)).equals(publishedBody(relative)), relative).toBe(true);
    }
    for (const file of [".well-known/ab-public-keys.json", "_headers", "_nginx.conf"]) {
      expect(readFileSync(path.join(target, file)).equals(readFileSync(path.join(publishDir(), file)))).toBe(true);
    }
    // Exported again over itself: replaced whole; a folder holding anything else is refused.
    expect(exportPublication(publishDir(), target).documents).toBe(served.size);
    const foreign = path.join(server.dataDir, "not-an-export");
    mkdirSync(foreign);
    writeFileSync(path.join(foreign, "index.html"), "<p>mine</p>");
    expect(() => exportPublication(publishDir(), foreign)).toThrow(ExportRefused);
    expect(readdirSync(foreign)).toEqual(["index.html"]);
  });
});
