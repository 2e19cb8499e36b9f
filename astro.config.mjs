// @ts-check
import node from "@astrojs/node";
import { defineConfig } from "astro/config";

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
  },
});
