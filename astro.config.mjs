// @ts-check
import node from "@astrojs/node";
import { defineConfig } from "astro/config";

/**
 * Astro's server entry loads each route's module with `() => import(...)` on every request, and so
 * the actions module. Under a module loader with hooks (tsx, which runs our jobs and server), each
 * such import() crosses to the loader thread and back: about a tenth of a lead's CPU time, and a
 * wait for that thread whenever the cores are busy. Loaded once, a module is the same module:
 * this keeps the first import's promise. The build fails if Astro's entry changes shape, rather
 * than silently losing this.
 */
/** @returns {import("vite").Plugin} */
function memoizeRouteImports() {
  return {
    name: "abeille:memoize-route-imports",
    renderChunk(code, chunk) {
      if (chunk.fileName !== "entry.mjs") return null;
      let rewritten = 0;
      const memoized = code
        .replace(/^(const _page\d+ = )\(\) => import\(([^)]+)\);$/gm, (_, head, specifier) => {
          rewritten += 1;
          return `${head}memoizeImport(() => import(${specifier}));`;
        })
        .replace(/actions: \(\) => import\(([^)]+)\)/, (_, specifier) => {
          rewritten += 1;
          return `actions: memoizeImport(() => import(${specifier}))`;
        });
      if (rewritten < 2) throw new Error("abeille:memoize-route-imports: Astro's server entry changed shape");
      return `const memoizeImport = (load) => { let loaded; return () => (loaded ??= load()); };\n${memoized}`;
    },
  };
}

// Middleware mode: the bundle exports a route handler and starts nothing; jobs/serve.ts wraps it
// in our own node:http server, which also serves the few static files from memory (the
// standalone handler's per-request disk check cost more than our routes) and the published
// artifacts.
export default defineConfig({
  output: "server",
  adapter: node({ mode: "middleware" }),
  server: { port: 4321, host: "127.0.0.1" },
  security: { checkOrigin: false },
  devToolbar: { enabled: false },
  vite: {
    build: { sourcemap: false },
    ssr: { external: ["better-sqlite3"] },
    plugins: [memoizeRouteImports()],
  },
});
