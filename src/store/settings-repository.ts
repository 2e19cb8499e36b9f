import type { Db } from "./db.ts";
import { eq, sql } from "./drizzle.ts";
import { settings } from "./schema.ts";

export interface Setting {
  key: string;
  value: string;
  updatedAt: string;
}

/** Operator settings changed at run time (the kill switch, ...), shared by every process on DATA_DIR. */
export interface SettingsRepository {
  get(key: string): string | null;
  find(key: string): Setting | null;
  set(key: string, value: string, now: Date): void;
}

export function createSettingsRepository(db: Db): SettingsRepository {
  const byKey = db
    .select()
    .from(settings)
    .where(eq(settings.key, sql.placeholder("key") as unknown as string))
    .prepare();
  return {
    get(key) {
      return byKey.get({ key })?.value ?? null;
    },
    find(key) {
      return byKey.get({ key }) ?? null;
    },
    set(key, value, now) {
      const updatedAt = now.toISOString();
      db.insert(settings)
        .values({ key, value, updatedAt })
        .onConflictDoUpdate({ target: settings.key, set: { value, updatedAt } })
        .run();
    },
  };
}
