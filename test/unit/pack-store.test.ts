import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { bodyHash } from "../../src/publish/document.ts";
import { PackReader, packFileOf, packFilesOnDisk } from "../../src/publish/pack-files.ts";
import { openPackStore, type PackStore, StageWriter } from "../../src/publish/pack-store.ts";
import { createFrameDecoder, createFrameEncoder } from "../../src/publish/zstd-frames.ts";
import { openPackIndexReader } from "../../src/store/pack-index.ts";

const dirs: string[] = [];
const stores: PackStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function stateDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "abeille-packs-"));
  dirs.push(dir);
  return path.join(dir, ".abeille");
}
function open(dir: string): PackStore {
  const store = openPackStore(dir);
  stores.push(store);
  return store;
}

const document = (abId: string, n: number) =>
  Buffer.from(
    JSON.stringify({
      success: true,
      data: { ab_id: abId, name: `Boulangerie n°${n}`, description: "Pain au levain, viennoiseries — œufs frais" },
      _links: { self: `https://abeille.example/api/merchants/${abId}/jsonld` },
    }),
  );

/** Publishes documents in one generation, as a writer of the folder does. */
function publish(store: PackStore, documents: [string, Buffer][], removes: string[] = [], commit = true) {
  const stage = store.begin();
  const writer = new StageWriter(
    stage,
    store.stateDir,
    stage.dictionary("key", () => documents.map(([, body]) => body)),
  );
  for (const [relative, body] of documents) writer.put(relative, body);
  for (const relative of removes) writer.remove(relative);
  writer.flush();
  writer.close();
  if (commit) stage.commit({ publishKey: "key", run: new Date().toISOString() });
  return stage;
}

/** What a server reading the folder now sees of a document. */
function served(dir: string, relative: string): Buffer | null {
  const index = openPackIndexReader(dir);
  if (!index) return null;
  const reader = new PackReader(dir, (id) => index.dictionary(id));
  try {
    const location = index.document(relative);
    return location ? reader.read(location) : null;
  } finally {
    reader.close();
    index.close();
  }
}

describe("zstd frames with a shared dictionary", () => {
  it("encodes each document as a frame any zstd decodes alone with the dictionary", () => {
    const dictionary = Buffer.concat([document("ab_00000000", 0), document("ab_00000001", 1)]);
    const encoder = createFrameEncoder(dictionary);
    const decoder = createFrameDecoder(dictionary);
    const bodies = Array.from({ length: 50 }, (_, n) => document(`ab_${String(n).padStart(8, "0")}`, n));
    const frames = bodies.map((body) => encoder.encode(body));
    // Out of order, through the public API and through the kept context.
    for (const index of [49, 0, 17, 3]) {
      const body = bodies[index] as Buffer;
      const frame = frames[index] as Buffer;
      expect(zlib.zstdDecompressSync(frame, { dictionary }).equals(body)).toBe(true);
      expect(decoder.decode(frame, body.length).equals(body)).toBe(true);
    }
    // The dictionary does its work: a frame is a fraction of its document.
    expect((frames[20] as Buffer).length).toBeLessThan((bodies[20] as Buffer).length / 3);
    expect(() => decoder.decode(frames[5] as Buffer, (bodies[5] as Buffer).length + 1)).toThrow();
    encoder.close();
    decoder.close();
  });
});

describe("the packs of a publish folder", () => {
  it("serves a run's documents only once it commits; a run abandoned before is dropped by the next", () => {
    const dir = stateDir();
    const store = open(dir);
    const first = document("ab_aaaaaaaa", 1);
    publish(store, [["api/merchants/ab_aaaaaaaa/jsonld", first]]);
    expect(served(dir, "api/merchants/ab_aaaaaaaa/jsonld")?.equals(first)).toBe(true);

    // A second run writes its pack and rows, and dies before its commit.
    const second = document("ab_aaaaaaaa", 2);
    publish(
      store,
      [
        ["api/merchants/ab_aaaaaaaa/jsonld", second],
        ["m/ab_bbbbbbbb/ai.md", second],
      ],
      [],
      false,
    );
    expect(served(dir, "api/merchants/ab_aaaaaaaa/jsonld")?.equals(first)).toBe(true);
    expect(served(dir, "m/ab_bbbbbbbb/ai.md")).toBeNull();
    expect(packFilesOnDisk(dir).ids).toHaveLength(2);

    // The next run drops what the dead one left (rows and pack), then commits its own.
    const third = document("ab_aaaaaaaa", 3);
    publish(store, [["api/merchants/ab_aaaaaaaa/jsonld", third]]);
    expect(served(dir, "api/merchants/ab_aaaaaaaa/jsonld")?.equals(third)).toBe(true);
    expect(served(dir, "m/ab_bbbbbbbb/ai.md")).toBeNull();
    // The first pack lost its only frame: gone at the commit; the dead run's pack swept.
    expect(packFilesOnDisk(dir).ids).toHaveLength(1);
    expect(store.index.packs().map((pack) => pack.id)).toEqual(packFilesOnDisk(dir).ids);
  });

  it("removes a document with a tombstone, and forgets superseded rows", () => {
    const dir = stateDir();
    const store = open(dir);
    publish(store, [
      ["api/merchants/ab_aaaaaaaa/jsonld", document("ab_aaaaaaaa", 1)],
      ["api/merchants/ab_bbbbbbbb/jsonld", document("ab_bbbbbbbb", 1)],
    ]);
    publish(store, [], ["api/merchants/ab_aaaaaaaa/jsonld"]);
    expect(served(dir, "api/merchants/ab_aaaaaaaa/jsonld")).toBeNull();
    expect(served(dir, "api/merchants/ab_bbbbbbbb/jsonld")).not.toBeNull();
    expect(store.index.counts().documents).toBe(1);
    expect(store.index.paths("", 10).map(([relative]) => relative)).toEqual(["api/merchants/ab_bbbbbbbb/jsonld"]);
  });

  it("says it is damaged when a pack it names is gone, and withdraws that pack's documents", () => {
    const dir = stateDir();
    const store = open(dir);
    publish(store, [["api/merchants/ab_aaaaaaaa/jsonld", document("ab_aaaaaaaa", 1)]]);
    const [lost] = packFilesOnDisk(dir).ids;
    rmSync(packFileOf(dir, lost as number));
    const stage = store.begin();
    expect(stage.damaged).toBe(true);
    stage.commit({ publishKey: "key", run: "after-loss" });
    expect(served(dir, "api/merchants/ab_aaaaaaaa/jsonld")).toBeNull();
    expect(store.index.packs()).toEqual([]);
  });

  it("compacts a pack mostly dead: its live frames copied as they are, still served", () => {
    const dir = stateDir();
    const store = open(dir);
    const bodies = Array.from({ length: 10 }, (_, n) => document(`ab_0000000${n}`, n));
    publish(
      store,
      bodies.map((body, n) => [`api/merchants/ab_0000000${n}/jsonld`, body]),
    );
    const [first] = packFilesOnDisk(dir).ids;
    // Eight of ten documents written again elsewhere: the first pack is a fifth live.
    publish(
      store,
      bodies
        .slice(0, 8)
        .map((_body, n) => [`api/merchants/ab_0000000${n}/jsonld`, document(`ab_0000000${n}`, n + 100)]),
    );
    // The next commit moves the two live frames out, and the first pack goes.
    publish(store, []);
    expect(packFilesOnDisk(dir).ids).not.toContain(first);
    expect(existsSync(packFileOf(dir, first as number))).toBe(false);
    for (const n of [8, 9]) {
      const body = served(dir, `api/merchants/ab_0000000${n}/jsonld`);
      expect(body?.equals(bodies[n] as Buffer)).toBe(true);
      expect(bodyHash(body as Buffer)).toBe(store.index.document(`api/merchants/ab_0000000${n}/jsonld`)?.sha256);
    }
    // A temporary file a killed writer left is swept by the next run.
    writeFileSync(path.join(dir, "packs", ".99.tmp-1234"), "half");
    publish(store, []);
    expect(packFilesOnDisk(dir).temporary).toEqual([]);
  });
});
