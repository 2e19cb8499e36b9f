/**
 * An in-memory LRU of values derived from merchant data, valid for one store revision
 * (MerchantRepository.revision: every write to merchants, signals, products or territorial proofs
 * moves it, from any process). A new revision empties it at once; a value may also carry its own
 * end of validity (an ISO instant; `validUntilOf`), past which it is not served.
 */
export interface RevisionCache<Value> {
  read(key: string, revision: number, nowIso?: string): Value | undefined;
  write(key: string, revision: number, value: Value): void;
  /** The value of this key: the cached one when current, else what `build` returns (cached). */
  readOrBuild(key: string, revision: number, nowIso: string | undefined, build: () => Value): Value;
  /**
   * The values of these keys: the cached ones, and what `load` builds for the others (called once
   * with all of them, and cached). A key `load` leaves out has no value.
   */
  readThrough(
    keys: readonly string[],
    revision: number,
    nowIso: string | undefined,
    load: (missing: string[]) => Map<string, Value>,
  ): Map<string, Value>;
  /** readOrBuild with a build that reads the store (its ports are asynchronous). */
  readOrLoad(key: string, revision: number, nowIso: string | undefined, load: () => Promise<Value>): Promise<Value>;
  /** readThrough with a load that reads the store (called at most once, after the cached values are taken). */
  readThroughLoading(
    keys: readonly string[],
    revision: number,
    nowIso: string | undefined,
    load: (missing: string[]) => Promise<Map<string, Value>>,
  ): Promise<Map<string, Value>>;
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
  const cache: RevisionCache<Value> = {
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
      // A value loaded while a write moved the revision (another request followed it meanwhile) is
      // not kept: it would empty the entries of the newer revision for a value nobody asks again.
      if (revision < cachedRevision) return;
      follow(revision);
      if (options.maxEntries <= 0) return;
      entries.delete(key);
      entries.set(key, value);
      if (entries.size > options.maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
    },
    readOrBuild(key, revision, nowIso, build) {
      const cached = cache.read(key, revision, nowIso);
      if (cached !== undefined) return cached;
      const built = build();
      cache.write(key, revision, built);
      return built;
    },
    readThrough(keys, revision, nowIso, load) {
      const values = new Map<string, Value>();
      const missing: string[] = [];
      for (const key of keys) {
        const value = cache.read(key, revision, nowIso);
        if (value === undefined) missing.push(key);
        else values.set(key, value);
      }
      if (missing.length === 0) return values;
      for (const [key, value] of load(missing)) {
        cache.write(key, revision, value);
        values.set(key, value);
      }
      return values;
    },
    async readOrLoad(key, revision, nowIso, load) {
      const cached = cache.read(key, revision, nowIso);
      if (cached !== undefined) return cached;
      const loaded = await load();
      cache.write(key, revision, loaded);
      return loaded;
    },
    async readThroughLoading(keys, revision, nowIso, load) {
      const values = new Map<string, Value>();
      const missing: string[] = [];
      for (const key of keys) {
        const value = cache.read(key, revision, nowIso);
        if (value === undefined) missing.push(key);
        else values.set(key, value);
      }
      if (missing.length === 0) return values;
      for (const [key, value] of await load(missing)) {
        cache.write(key, revision, value);
        values.set(key, value);
      }
      return values;
    },
    get size() {
      return entries.size;
    },
  };
  return cache;
}
