/**
 * Preloaded by every npm script (`node --import ./jobs/compile-cache.ts jobs/<job>.ts`): turns on
 * Node's compile cache, which keeps the type-stripped and compiled modules between runs. A job
 * then starts in about 0.7 s instead of 1.1 s here (stripping the types of the whole module graph
 * on each start was a third of it), which is most of a refresh that has nothing to do. Worker
 * threads inherit the flag; child processes get it from `jobArgv`.
 */
import module from "node:module";
import { fileURLToPath } from "node:url";

module.enableCompileCache?.();

/** The arguments that start a job script the way the npm scripts do. */
export function jobArgv(script: string, ...args: string[]): string[] {
  return ["--import", fileURLToPath(import.meta.url), script, ...args];
}
