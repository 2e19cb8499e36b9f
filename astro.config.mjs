// @ts-check
import node from "@astrojs/node";
import { defineConfig } from "astro/config";

// Standalone mode gives us a handler that serves both static files and routes; jobs/serve.ts
// wraps it in our own node:http server (ASTRO_NODE_AUTOSTART=disabled) so that start-up,
// shutdown and the published-artifact fast path stay under our control.
export default defineConfig({
  output: "server",
  adapter: node({ mode: "standalone" }),
  server: { port: 4321, host: "127.0.0.1" },
  security: { checkOrigin: false },
  devToolbar: { enabled: false },
  vite: {
    build: { sourcemap: false },
    ssr: { external: ["better-sqlite3"] },
  },
});
