import type { SettingsRepository } from "../domain/settings-store.ts";
import { eq, sql } from "./drizzle.ts";
import { settings } from "./schema.ts";
import type { StoreDb } from "./store-db.ts";

/** Operator settings (the kill switch, ...): one row each, shared by every process and machine, on both engines. */
export function createSettingsRepository(db: StoreDb): SettingsRepository {
  const byKey = db
    .select()
    .from(settings)
    .where(eq(settings.key, sql.placeholder("key")))
    .prepare();
  return {
    async get(key) {
      return (await byKey.get({ key }))?.value ?? null;
    },
    async find(key) {
      return (await byKey.get({ key })) ?? null;
    },
    async set(key, value, now) {
      const updatedAt = now.toISOString();
      await db
        .insert(settings)
        .values({ key, value, updatedAt })
        .onConflictDoUpdate({ target: settings.key, set: { value, updatedAt } });
    },
  };
}
