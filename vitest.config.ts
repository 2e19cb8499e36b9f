import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    pool: "forks",
    // Modules loaded by the tests log warnings and errors, not their routine (a key created, a
    // lead accepted): a test that reads a server's logs sets its own level.
    env: { LOG_LEVEL: "warn" },
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
