import type { SettingsRepository } from "../domain/settings-store.ts";
import { settings } from "./schema.ts";
import { byKey, type StoreDb } from "./store-db.ts";

/** Operator settings (the kill switch, ...): one row each, shared by every process and machine, on both engines. */
export function createSettingsRepository(db: StoreDb): SettingsRepository {
  const byName = byKey(db, settings, settings.key, "key");
  return {
    async get(key) {
      return (await byName.get({ key }))?.value ?? null;
    },
    async find(key) {
      return (await byName.get({ key })) ?? null;
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
