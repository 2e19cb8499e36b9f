/**
 * Operator settings changed at run time (the kill switch, an import's checkpoint), shared by every
 * process on the store (a port): src/store/settings-repository.ts implements it.
 */

export interface Setting {
  key: string;
  value: string;
  updatedAt: string;
}

export interface SettingsRepository {
  get(key: string): Promise<string | null>;
  find(key: string): Promise<Setting | null>;
  set(key: string, value: string, now: Date): Promise<void>;
}
