import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { etagOf, matchesIfNoneMatch } from "../../src/publish/document.ts";
import { matchPublishedPath, publishedPath } from "../../src/publish/documents.ts";
import { nodePackWrites, packFilesOnDisk, packWriters, usePackWrites } from "../../src/publish/pack-files.ts";
import { type IndexEntry, PublishFolder } from "../../src/publish/publish-folder.ts";
import { profileFingerprint, renderBatch } from "../../src/publish/render-batch.ts";
import { formatServeIndex, parseServeIndex, publishKeyOf } from "../../src/publish/serve-index.ts";
import { loadPublishSettings } from "../../src/publish/settings.ts";
import { headersFile, nginxSnippet } from "../../src/publish/static-config.ts";
import { BASE, NOW, tourismProfile } from "./publish-fixtures.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "abeille-folder-"));
  dirs.push(dir);
  return dir;
}

describe("publish folder layout", () => {
  it("puts each document at its public URL path and recognises those paths", () => {
    expect(publishedPath("jsonld", "ab_12345678")).toBe("api/merchants/ab_12345678/jsonld");
    expect(publishedPath("ai-md", "ab_12345678")).toBe("m/ab_12345678/ai.md");
    expect(publishedPath("snapshot", "ab_12345678")).toBe("api/registry/verify/ab_12345678/snapshot");
    expect(matchPublishedPath("/api/merchants/ab_12345678/ai-digest", "")).toEqual({
      kind: "ai-digest",
      abId: "ab_12345678",
    });
    expect(matchPublishedPath("/m/ab_12345678/ai.md", "?utm_source=x")).toEqual({ kind: "ai-md", abId: "ab_12345678" });
    expect(matchPublishedPath("/api/registry/verify/ab_12345678", "?snapshot=1")).toEqual({
      kind: "snapshot",
      abId: "ab_12345678",
    });
    expect(matchPublishedPath("/api/registry/verify/ab_12345678", "")).toBeNull();
    expect(matchPublishedPath("/api/registry/verify/ab_12345678", "?snapshot=0")).toBeNull();
    expect(matchPublishedPath("/api/merchants/AB_12345678/jsonld", "")).toBeNull();
    expect(matchPublishedPath("/api/merchants/ab_12345678/resolve", "")).toBeNull();
    expect(matchPublishedPath("/m/ab_12345678/", "")).toBeNull();
  });

  it("writes atomically through hidden temporary siblings and leaves none behind", () => {
    const folder = new PublishFolder(tempDir());
    folder.open();
    folder.write("api/merchants/ab_12345678/jsonld", "{}");
    folder.write("api/merchants/ab_12345678/jsonld", '{"a":1}');
    expect(readFileSync(folder.full("api/merchants/ab_12345678/jsonld"), "utf8")).toBe('{"a":1}');
    expect(folder.temporaryFiles()).toEqual([]);
    expect(folder.merchantsOnDisk()).toEqual(new Set(["ab_12345678"]));
    expect(folder.removeMerchant("ab_12345678")).toBe(1);
    expect(folder.exists("api/merchants/ab_12345678/jsonld")).toBe(false);
    folder.close(true);
  });

  it("writes whatever the caller believes of the directory: missing, present, gone since, or unknown", () => {
    const folder = new PublishFolder(tempDir());
    folder.open();
    // Believed missing: made without asking; also when it exists after all.
    folder.write("api/merchants/ab_aaaaaaaa/jsonld", "new", false);
    mkdirSync(folder.full("m/ab_aaaaaaaa"), { recursive: true });
    folder.write("m/ab_aaaaaaaa/ai.md", "there already", false);
    // Believed present, but removed by hand since the last run: made when the write finds it gone.
    folder.write("api/merchants/ab_bbbbbbbb/jsonld", "gone since", true);
    // Unknown: asked first.
    folder.write("api/registry/verify/ab_cccccccc/snapshot", "asked");
    expect(readFileSync(folder.full("api/merchants/ab_aaaaaaaa/jsonld"), "utf8")).toBe("new");
    expect(readFileSync(folder.full("m/ab_aaaaaaaa/ai.md"), "utf8")).toBe("there already");
    expect(readFileSync(folder.full("api/merchants/ab_bbbbbbbb/jsonld"), "utf8")).toBe("gone since");
    expect(readFileSync(folder.full("api/registry/verify/ab_cccccccc/snapshot"), "utf8")).toBe("asked");
    expect(folder.temporaryFiles()).toEqual([]);
    folder.close(true);
  });

  it("leaves no temporary file behind when a write fails", () => {
    const folder = new PublishFolder(tempDir());
    folder.open();
    // The target is a directory: the rename over it fails after the temporary file was written.
    mkdirSync(folder.full("api/merchants/ab_aaaaaaaa/jsonld"), { recursive: true });
    writeFileSync(path.join(folder.full("api/merchants/ab_aaaaaaaa/jsonld"), "keep"), "x");
    expect(() => folder.write("api/merchants/ab_aaaaaaaa/jsonld", "body", true)).toThrow();
    expect(folder.temporaryFiles()).toEqual([]);
    folder.close(false);
  });

  it("fingerprints equal profiles alike and any change of a profile's content differently", () => {
    const fingerprint = profileFingerprint(tourismProfile());
    expect(profileFingerprint(tourismProfile())).toBe(fingerprint);
    expect(fingerprint).toMatch(/^[A-Za-z0-9_-]{27}$/);
    const changes: ((profile: ReturnType<typeof tourismProfile>) => void)[] = [
      (profile) => {
        profile.merchant.businessName = `${profile.merchant.businessName} `;
      },
      (profile) => {
        (profile.products[0] as { priceCents: number | null }).priceCents = 1;
      },
      (profile) => {
        profile.products.reverse();
      },
      (profile) => {
        profile.signals.pop();
      },
      (profile) => {
        const node = profile.clusters[0]?.nodes[0] as { answer: string };
        node.answer = node.answer.replace("é", "e");
      },
    ];
    const seen = new Set([fingerprint]);
    for (const change of changes) {
      const profile = tourismProfile();
      change(profile);
      seen.add(profileFingerprint(profile));
    }
    expect(seen.size).toBe(changes.length + 1);
  });

  it("sweeps the temporary files of an interrupted run before the next one", () => {
    const root = tempDir();
    const crashed = new PublishFolder(root);
    crashed.open();
    crashed.write("m/ab_12345678/ai.md", "# x\n");
    writeFileSync(path.join(root, "m/ab_12345678/.ai.md.tmp-dead-0"), "partial");
    // no close(true): the run died
    const next = new PublishFolder(root);
    expect(next.temporaryFiles()).toHaveLength(1);
    next.open();
    expect(next.temporaryFiles()).toEqual([]);
    expect(next.exists("m/ab_12345678/ai.md")).toBe(true);
    next.close(true);
  });
});

describe("serve index, ETags and settings", () => {
  it("round-trips the serve index and keys it to BASE_URL and the order rail", () => {
    const key = publishKeyOf({ baseUrl: "https://a.example", publicOrderRailEnabled: false });
    expect(key).not.toBe(publishKeyOf({ baseUrl: "https://b.example", publicOrderRailEnabled: false }));
    expect(key).not.toBe(publishKeyOf({ baseUrl: "https://a.example", publicOrderRailEnabled: true }));
    const text = formatServeIndex(key, [
      ["ab_12345678", "stampA", "2027-01-01T00:00:00.000Z", "2026-11-23T03:17:00.000Z"],
      ["ab_87654321", "stampB", null, null],
    ]);
    const index = parseServeIndex(text);
    expect(index?.publishKey).toBe(key);
    expect(index?.entries.get("ab_12345678")).toEqual({
      stamp: "stampA",
      until: "2027-01-01T00:00:00.000Z",
      untilMs: Date.parse("2027-01-01T00:00:00.000Z"),
      snapshotExpiresMs: Date.parse("2026-11-23T03:17:00.000Z"),
      snapshotExpiresAt: "2026-11-23T03:17:00.000Z",
    });
    expect(index?.entries.get("ab_87654321")?.untilMs).toBe(Number.POSITIVE_INFINITY);
    expect(parseServeIndex("garbage")).toBeNull();
  });

  it("matches If-None-Match as RFC 9110 asks for GET", () => {
    const etag = etagOf("abc=");
    expect(etag).toBe('"sha256-abc="');
    expect(matchesIfNoneMatch('"sha256-abc="', etag)).toBe(true);
    expect(matchesIfNoneMatch('W/"sha256-abc="', etag)).toBe(true);
    expect(matchesIfNoneMatch('"x", "sha256-abc="', etag)).toBe(true);
    expect(matchesIfNoneMatch("*", etag)).toBe(true);
    expect(matchesIfNoneMatch('"sha256-other="', etag)).toBe(false);
    expect(matchesIfNoneMatch(null, etag)).toBe(false);
  });

  it("reads the publication settings with defaults and refuses a bad cron expression", () => {
    const settings = loadPublishSettings({ dataDir: "/srv/data" }, {});
    expect(settings).toEqual({
      publishDir: "/srv/data/publish",
      refreshCron: "17 3 * * *",
      refreshTimezone: null,
      refreshOnStart: true,
      snapshotRenewMarginSeconds: 600,
      fastPath: true,
      refreshWorkers: null,
    });
    expect(loadPublishSettings({ dataDir: "/d" }, { REFRESH_CRON: "off", PUBLISH_FAST_PATH: "false" })).toMatchObject({
      refreshCron: null,
      fastPath: false,
    });
    expect(() => loadPublishSettings({ dataDir: "/d" }, { REFRESH_CRON: "every day" })).toThrow(/REFRESH_CRON/);
  });

  it("generates static server configuration giving every published path its content type", () => {
    const headers = headersFile();
    expect(headers).toContain("/api/merchants/*/jsonld\n  Content-Type: application/ld+json; charset=utf-8");
    expect(headers).toContain("/m/*/ai.md\n  Content-Type: text/markdown; charset=utf-8");
    const nginx = nginxSnippet();
    expect(nginx).toContain('default_type "text/markdown; charset=utf-8";');
    expect(nginx).toContain("rewrite ^ /api/registry/verify/$abeille_ab_id/snapshot last;");
  });
});

describe("writes of the refresh job's renderers", () => {
  it("make a missing directory, replace a file whole and leave no temporary file", () => {
    const folder = new PublishFolder(tempDir());
    folder.open();
    for (let index = 0; index < 40; index++)
      folder.write(`api/merchants/ab_1234567${index % 4}/jsonld`, `{"n":${index}}`);
    expect(readFileSync(folder.full("api/merchants/ab_12345673/jsonld"), "utf8")).toBe('{"n":39}');
    expect(readFileSync(folder.full("api/merchants/ab_12345670/jsonld"), "utf8")).toBe('{"n":36}');
    expect(folder.temporaryFiles()).toEqual([]);
    folder.close(true);
  });

  it("throw on a failed write and leave no temporary file behind", () => {
    const root = tempDir();
    const folder = new PublishFolder(root);
    folder.open();
    // A non-empty directory where the file should go: the rename over it fails.
    mkdirSync(path.join(root, "m/ab_12345678/ai.md/inside"), { recursive: true });
    expect(() => folder.write("m/ab_12345678/ai.md", "# x\n")).toThrow(/ENOTEMPTY|EISDIR/);
    expect(folder.temporaryFiles()).toEqual([]);
    folder.close(true);
  });

  it("count a merchant whose pack could not be written (a full disk) as failed, keeping what was published", async () => {
    const root = tempDir();
    const stateDir = path.join(root, ".abeille");
    const profile = tourismProfile();
    const abId = profile.merchant.abId;
    const old: IndexEntry = {
      status: "ACTIVE",
      stamp: "old-stamp",
      fingerprint: "old",
      since: NOW.toISOString(),
      until: null,
      hashes: { jsonld: "old-hash" },
      cardHash: null,
      snapshotExpiresAt: null,
    };
    const full = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    const previous = usePackWrites({
      ...nodePackWrites,
      write: () => {
        throw full;
      },
    });
    try {
      const result = await renderBatch(
        {
          loadProfiles: () => new Map([[abId, profile]]),
          packWriter: packWriters(stateDir, { id: 1, body: Buffer.from("{}") }),
          baseUrl: BASE,
          orderRailEnabled: false,
          now: NOW,
          skipAllowed: true,
          renewBeforeMs: NOW.getTime(),
          issueSnapshot: null,
        },
        [{ abId, stamp: "new-stamp", status: "ACTIVE", old }],
        { documents: 1, snapshots: 2 },
      );
      expect(result.failed).toBe(1);
      expect(result.failures[0]?.abId).toBe(abId);
      expect(result.failures[0]?.message).toMatch(/ENOSPC/);
      expect(result.entries).toEqual([[abId, old]]);
      expect(result.changed).toEqual([]);
      expect(result.documents).toEqual([]);
      expect(result.packs).toEqual([]);
      // Neither the pack nor its temporary file is left.
      expect(packFilesOnDisk(stateDir)).toEqual({ ids: [], temporary: [] });
    } finally {
      usePackWrites(previous);
    }
  });
});
