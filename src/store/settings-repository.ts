import type { SettingsRepository } from "../domain/settings-store.ts";
import type { Db } from "./db.ts";
import { eq, sql } from "./drizzle.ts";
import { settings } from "./schema.ts";

/** Operator settings on SQLite, shared by every process on DATA_DIR. */
export function createSettingsRepository(db: Db): SettingsRepository {
  const byKey = db
    .select()
    .from(settings)
    .where(eq(settings.key, sql.placeholder("key") as unknown as string))
    .prepare();
  return {
    async get(key) {
      return byKey.get({ key })?.value ?? null;
    },
    async find(key) {
      return byKey.get({ key }) ?? null;
    },
    async set(key, value, now) {
      const updatedAt = now.toISOString();
      db.insert(settings)
        .values({ key, value, updatedAt })
        .onConflictDoUpdate({ target: settings.key, set: { value, updatedAt } })
        .run();
    },
  };
}
