/**
 * The key set as bytes, for the route and for the static copy in the publish folder alike, so a
 * static server or CDN serving `DATA_DIR/publish/` answers exactly what the route answers.
 *
 * The static copy must gain a new key before that key signs: `npm run keys -- rotate` and `retire`
 * rewrite it at once (when the publish folder exists), and the refresh job rewrites it on every run.
 * A copy that keeps a dropped retired key a little longer is harmless.
 */
import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import path from "node:path";
import type { Jwks } from "../schemas/signing.ts";

/** Where the key set lives under the publish folder (its public URL path). */
export const JWKS_PUBLIC_PATH = ".well-known/ab-public-keys.json";
export const JWKS_CONTENT_TYPE = "application/jwk-set+json";

export function renderJwks(jwks: Jwks): string {
  return JSON.stringify(jwks);
}

/** Writes `publishDir/.well-known/ab-public-keys.json` atomically; false when it already held these bytes. */
export function writeJwksFile(publishDir: string, jwks: Jwks): boolean {
  const target = path.join(publishDir, JWKS_PUBLIC_PATH);
  const content = renderJwks(jwks);
  try {
    if (readFileSync(target, "utf8") === content) return false;
  } catch {
    // absent: write it
  }
  mkdirSync(path.dirname(target), { recursive: true });
  const temp = `${target}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  const fd = openSync(temp, "wx", 0o644);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, target);
  return true;
}
