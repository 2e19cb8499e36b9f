import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

/**
 * Starts a worker thread on a TypeScript module. The thread registers tsx's loader itself (worker
 * threads do not inherit a process's `--import` hooks reliably across Node versions), so the same
 * sources run in the thread as in the process that started it.
 */
export function startTypeScriptWorker(entry: URL, workerData: unknown): Worker {
  const bootstrap = `import(${JSON.stringify(tsxEsmApi())}).then((api) => { api.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(bootstrap, { eval: true, workerData, execArgv: [] });
}

let located: string | undefined;

/** tsx's ESM API: import.meta.resolve where the runtime has it, else tsx's own exports map (test runners). */
function tsxEsmApi(): string {
  if (located) return located;
  try {
    located = import.meta.resolve("tsx/esm/api");
  } catch {
    const manifest = createRequire(import.meta.url).resolve("tsx/package.json");
    const { exports } = JSON.parse(readFileSync(manifest, "utf8")) as {
      exports: Record<string, { import: { default: string } }>;
    };
    const target = exports["./esm/api"]?.import.default ?? "./dist/esm/api/index.mjs";
    located = pathToFileURL(path.join(path.dirname(manifest), target)).href;
  }
  return located;
}
