/**
 * An in-memory LRU of values derived from merchant data, valid for one store revision
 * (MerchantRepository.revision: every write to merchants, signals, products or territorial proofs
 * moves it, from any process). A new revision empties it at once; a value may also carry its own
 * end of validity (an ISO instant; `validUntilOf`), past which it is not served.
 */
export interface RevisionCache<Value> {
  read(key: string, revision: number, nowIso?: string): Value | undefined;
  write(key: string, revision: number, value: Value): void;
  readonly size: number;
}

export function createRevisionCache<Value>(options: {
  maxEntries: number;
  validUntilOf?: (value: Value) => string | null;
}): RevisionCache<Value> {
  const entries = new Map<string, Value>();
  let cachedRevision = -1;
  const follow = (revision: number): void => {
    if (revision === cachedRevision) return;
    entries.clear();
    cachedRevision = revision;
  };
  return {
    read(key, revision, nowIso) {
      follow(revision);
      const value = entries.get(key);
      if (value === undefined) return undefined;
      entries.delete(key);
      const validUntil = options.validUntilOf?.(value) ?? null;
      if (validUntil !== null && nowIso !== undefined && validUntil <= nowIso) return undefined;
      entries.set(key, value); // most recently used last
      return value;
    },
    write(key, revision, value) {
      follow(revision);
      if (options.maxEntries <= 0) return;
      entries.delete(key);
      entries.set(key, value);
      if (entries.size > options.maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
    },
    get size() {
      return entries.size;
    },
  };
}
