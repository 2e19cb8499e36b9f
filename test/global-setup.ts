/**
 * Builds the server bundle once before the suite when its sources changed, so the integration
 * tests always run against what `npm start` would serve.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const stampFile = path.join(root, "dist", ".source-hash");

function sourceHash(): string {
  const hash = createHash("sha256");
  const visit = (entry: string) => {
    const full = path.join(root, entry);
    if (!existsSync(full)) return;
    if (statSync(full).isDirectory()) {
      for (const child of readdirSync(full).sort()) visit(path.join(entry, child));
      return;
    }
    hash.update(entry).update(readFileSync(full));
  };
  for (const entry of ["src", "public", "astro.config.mjs", "package-lock.json"]) visit(entry);
  return hash.digest("hex");
}

export default function setup(): void {
  const expected = sourceHash();
  const built = existsSync(stampFile) ? readFileSync(stampFile, "utf8") : "";
  if (built === expected && existsSync(path.join(root, "dist/server/entry.mjs"))) return;
  execFileSync(process.execPath, [path.join(root, "node_modules/astro/bin/astro.mjs"), "build"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, ASTRO_TELEMETRY_DISABLED: "1" },
  });
  writeFileSync(stampFile, expected);
}
