/**
 * The Debian programs the suite starts itself, which `npm install` does not bring (.ci/run
 * installs them; the README says so beside `npm test`): a suite that needs one that is missing
 * fails once, saying what to install. Never skipped.
 */
import { accessSync, constants } from "node:fs";
import path from "node:path";

/** The program's path; an error saying which Debian package to install when it is not there. */
export function requireProgram(program: string, debianPackage: string): string {
  const candidates = program.includes("/")
    ? [program]
    : (process.env.PATH ?? "").split(":").map((dir) => path.join(dir, program));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new Error(
    `${program} is missing: these tests need Debian's ${debianPackage} (sudo apt-get install ${debianPackage}; .ci/run installs it)`,
  );
}

/** Debian's Chromium, driven by playwright-core (never a browser a test tool downloads). */
export const chromiumPath = () => requireProgram("chromium", "chromium");
