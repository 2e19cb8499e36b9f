/**
 * `npm install` on a fresh clone leaves package-lock.json as it is. The lock records, for each
 * package, whether it has an install script (`hasInstallScript`); npm writes it from what it finds
 * once the package is unpacked: a preinstall, install or postinstall script, or a `binding.gyp`
 * without an install or preinstall script (npm then runs `node-gyp rebuild` itself). It reads that
 * from the lock's entry, which never records a package's `gypfile: false`: so better-sqlite3 13,
 * whose package says `gypfile: false` beside its binding.gyp, is rebuilt by `npm install` and
 * `npm ci` (its binding.gyp does nothing when a prebuilt binary fits) and gets
 * `hasInstallScript: true` in the lock, which a lock written without unpacking (`npm install
 * --package-lock-only`) leaves out. Every installed package's entry must say what npm will write.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

interface LockEntry {
  hasInstallScript?: boolean;
}

describe("package-lock.json", () => {
  it("says of every installed package whether npm install will find an install script, as npm will write it", () => {
    const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as {
      packages: Record<string, LockEntry>;
    };
    const disagreements: string[] = [];
    let installed = 0;
    for (const [location, entry] of Object.entries(lock.packages)) {
      if (location === "") continue; // the project itself
      const manifest = path.join(root, location, "package.json");
      // Packages for other platforms (optional) are in the lock, not on this disk.
      if (!existsSync(manifest)) continue;
      installed += 1;
      const scripts =
        (JSON.parse(readFileSync(manifest, "utf8")) as { scripts?: Record<string, string> }).scripts ?? {};
      const gyp = !scripts.install && !scripts.preinstall && existsSync(path.join(root, location, "binding.gyp"));
      const found = Boolean(scripts.preinstall || scripts.install || scripts.postinstall || gyp);
      if (found !== (entry.hasInstallScript === true)) {
        disagreements.push(`${location}: npm install finds ${found ? "an" : "no"} install script`);
      }
    }
    expect(installed).toBeGreaterThan(100);
    expect(disagreements).toEqual([]);
  });
});
