/** Operator settings (the kill switch, ...) on PostgreSQL: one row each, shared by every machine. */
import type { SettingsRepository } from "../settings-repository.ts";
import type { Asynchronous } from "./asynchronous.ts";
import { eq } from "./drizzle.ts";
import { settings } from "./schema.ts";
import type { PostgresStore } from "./store.ts";

export function createPostgresSettingsRepository({ db }: PostgresStore): Asynchronous<SettingsRepository> {
  const find = async (key: string) => (await db.select().from(settings).where(eq(settings.key, key)))[0] ?? null;
  return {
    get: async (key) => (await find(key))?.value ?? null,
    find,
    async set(key, value, now) {
      const updatedAt = now.toISOString();
      await db
        .insert(settings)
        .values({ key, value, updatedAt })
        .onConflictDoUpdate({ target: settings.key, set: { value, updatedAt } });
    },
  };
}
