/**
 * DATA_DIR is made readable by the service's user only (src/store/connection.ts
 * makePrivateDirectory), except a shared directory such as /tmp (sticky bit), which the rest of
 * the machine needs as it is.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makePrivateDirectory } from "../../src/store/connection.ts";

const root = mkdtempSync(path.join(os.tmpdir(), "abeille-private-dir-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const mode = (dir: string) => statSync(dir).mode & 0o7777;

describe("makePrivateDirectory", () => {
  it("makes a new or an open directory 0700, and leaves a shared (sticky) one as it is", () => {
    const fresh = path.join(root, "fresh", "data");
    makePrivateDirectory(fresh);
    const open = path.join(root, "open");
    mkdirSync(open);
    chmodSync(open, 0o755);
    makePrivateDirectory(open);
    const shared = path.join(root, "shared");
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    makePrivateDirectory(shared);
    expect([mode(fresh), mode(open), mode(shared)]).toEqual([0o700, 0o700, 0o1777]);
  });
});
