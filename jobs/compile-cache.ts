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

/**
 * V8 settings of the jobs that need their own, as package.json's scripts pass them. The import
 * streams millions of rows: with V8's default young generation its heap grew to three times what
 * it used (peak RSS 300 MB for 1,000,000 rows); 8 MB semi-spaces keep it near 230 MB. At its end
 * it catches the search index up, a full build into an empty registry: --expose-gc lets it collect
 * between batches (jobs/search-catch-up.ts), which kept the peak at 240 MB instead of 350 MB.
 */
const NODE_FLAGS: Record<string, string[]> = {
  "jobs/import.ts": ["--max-semi-space-size=8", "--expose-gc"],
  // The refresh's main thread renders too (an incremental run): 4 MB semi-spaces kept a full run
  // on this thread alone at 380 MB of RSS instead of 580 MB, no slower (src/publish/worker-runner.ts
  // holds its workers to the same); --expose-gc lets it collect every 10,000 merchants
  // (src/publish/publisher.ts), as the import does.
  "jobs/refresh.ts": ["--max-semi-space-size=4", "--expose-gc"],
};

/** The arguments that start a job script the way the npm scripts do. */
export function jobArgv(script: string, ...args: string[]): string[] {
  const flags = NODE_FLAGS[script.replace(/^.*?(jobs\/[^/]+)$/, "$1")] ?? [];
  return [...flags, "--import", fileURLToPath(import.meta.url), script, ...args];
}
