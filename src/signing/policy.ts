/**
 * The numbers behind signing, in one place (DESIGN.md, "Trust and signing").
 *
 * Why the key set may be cached for 300 s: `rotate` publishes the next key at once and lets it sign
 * only after DEFAULT_ACTIVATION_DELAY_SECONDS (1 hour). A verifier's cached key set is at most
 * JWKS_MAX_AGE_SECONDS old, so it holds the new key long before the first manifest signed with it
 * exists. Retired keys stay in the set until every manifest they signed has expired, so a cached
 * manifest always finds its key. Only an emergency rotation (`--activate-after 0`) can reach a
 * verifier whose cached set predates the key; standard JOSE clients refetch the set on an unknown
 * `kid`.
 */

export const MANIFEST_LIFETIME_SECONDS = { live: 3600, snapshot: 86_400 } as const;
export const MAX_MANIFEST_LIFETIME_SECONDS = Math.max(...Object.values(MANIFEST_LIFETIME_SECONDS));

/** A manifest answer may sit in a public cache this long at most, and never past its expiry. */
export const MANIFEST_CACHE_MAX_SECONDS = 300;

/** Cache lifetime of the key set and of the legacy public-key answer. */
export const JWKS_MAX_AGE_SECONDS = 300;

/** How long `rotate` publishes the next key before it signs, unless told otherwise. */
export const DEFAULT_ACTIVATION_DELAY_SECONDS = 3600;

/**
 * When a key is about to sign a manifest expiring after its recorded `not_after`, the key store
 * first pushes `not_after` to `now + KEY_RESERVATION_SECONDS` (the longest lifetime plus one hour)
 * and only then signs. The recorded value is therefore always at or past the expiry of everything
 * the key signed, even after a crash, and the index is written at most once an hour per signing
 * key. The cost: a retired key may stay published up to about a day longer than strictly needed.
 */
export const KEY_RESERVATION_SECONDS = MAX_MANIFEST_LIFETIME_SECONDS + 3600;

/** How often a running process looks at the key index for changes made by another process. */
export const KEY_INDEX_RELOAD_INTERVAL_MS = 1000;
