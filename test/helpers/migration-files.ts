/**
 * The SQL migrations drizzle-kit wrote in a folder, split as jobs/embed-migrations.ts embeds them:
 * what the store-schema tests compare the embedded modules with.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

export function migrationFiles(folder: string): { id: string; statements: string[] }[] {
  return readdirSync(folder)
    .filter((name) => name.endsWith(".sql"))
    .sort()
    .map((name) => ({
      id: name.replace(/\.sql$/, ""),
      statements: readFileSync(path.join(folder, name), "utf8")
        .split("--> statement-breakpoint")
        .map((statement) => statement.trim())
        .filter(Boolean),
    }));
}

/**
 * Tables only the PostgreSQL store has: the limits' (migration 0003_rate_limits; on SQLite a file
 * of its own, DATA_DIR/limits.db, never migrated) and the published documents' and the refresh's
 * index (migration 0005_published_documents; on one machine the publish folder and its own
 * index.db). The deployment's file fingerprints (0004 by hand) are in the one schema since issue 36.
 */
export const POSTGRES_ONLY_TABLES = [
  "publish_index_entries",
  "publish_index_meta",
  "published_documents",
  "published_state",
  "rate_limits",
];
