import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config/config.ts";

const EXAMPLE = "e.g. postgres://abeille:password@127.0.0.1:5432/abeille";

describe("DATABASE_URL", () => {
  it("is unset by default: the store stays the embedded SQLite file in DATA_DIR", () => {
    const config = loadConfig({ DATA_DIR: "/srv/abeille" });
    expect(config.postgres).toBeNull();
    expect(config.databaseFile).toBe("/srv/abeille/abeille.db");
    expect(loadConfig({ DATABASE_URL: "" }).postgres).toBeNull();
  });

  it("takes a postgres:// or postgresql:// URL, with the pool's size and wait", () => {
    expect(loadConfig({ DATABASE_URL: "postgres://abeille:s%40cret@db.internal:5433/abeille" }).postgres).toEqual({
      url: "postgres://abeille:s%40cret@db.internal:5433/abeille",
      poolMax: 10,
      poolTimeoutMs: 2_000,
      leaderRetryMs: 5_000,
    });
    expect(
      loadConfig({
        DATABASE_URL: "postgresql:///abeille?host=/var/run/postgresql",
        DATABASE_POOL_MAX: "40",
        DATABASE_POOL_TIMEOUT_MS: "500",
        LEADER_RETRY_MS: "250",
      }).postgres,
    ).toEqual({
      url: "postgresql:///abeille?host=/var/run/postgresql",
      poolMax: 40,
      poolTimeoutMs: 500,
      leaderRetryMs: 250,
    });
    expect(loadConfig({ DATABASE_URL: "postgres://db.internal/abeille?sslmode=verify-full" }).postgres?.url).toBe(
      "postgres://db.internal/abeille?sslmode=verify-full",
    );
  });

  it("stops the start saying what to fix, without repeating the URL and its password", () => {
    const cases: [string, string][] = [
      ["abeille.db", `is not a URL: write it as ${EXAMPLE} (characters such as @ : / in the password percent-encoded)`],
      [
        "mysql://abeille:hunter2@db/abeille",
        `must start with postgres:// or postgresql:// (${EXAMPLE}); leave it unset to keep the embedded SQLite store in DATA_DIR`,
      ],
      [
        "postgres:///abeille",
        `names no host: put it after the // (${EXAMPLE}), or a unix socket folder in ?host=/var/run/postgresql`,
      ],
      ["postgres://abeille:hunter2@db:5432", `names no database: add its name after the host and port (${EXAMPLE})`],
      ["postgres://abeille:hunter2@db:5432/", `names no database: add its name after the host and port (${EXAMPLE})`],
      ["postgres://db/abeille/main", `names the database with a path: one name after the host and port (${EXAMPLE})`],
      [
        "postgres://db/abeille?sslmode=always",
        "has an unknown sslmode: use one of disable, prefer, require, verify-ca, verify-full, no-verify",
      ],
      ["postgres://abeille:hunter2@db:99999/abeille", `is not a URL: write it as ${EXAMPLE}`],
    ];
    for (const [value, message] of cases) {
      let error: unknown;
      try {
        loadConfig({ DATABASE_URL: value });
      } catch (caught) {
        error = caught;
      }
      expect(error, value).toBeInstanceOf(ConfigError);
      expect((error as Error).message, value).toContain(`Invalid configuration: DATABASE_URL: ${message}`);
      expect((error as Error).message, value).not.toContain("hunter2");
    }
  });

  it("bounds the pool's settings", () => {
    expect(() => loadConfig({ DATABASE_POOL_MAX: "0" })).toThrow(/^Invalid configuration: DATABASE_POOL_MAX: /);
    expect(() => loadConfig({ DATABASE_POOL_TIMEOUT_MS: "5" })).toThrow(
      /^Invalid configuration: DATABASE_POOL_TIMEOUT_MS: /,
    );
  });
});
