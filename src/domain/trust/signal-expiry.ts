/**
 * Whether a signal's validity has run out: its expiry instant is reached. The one rule trust
 * scoring, the decision card, comparisons, certifications and evidence pages all apply.
 *
 * Instants are compared as text: every instant the registry stores is `Date.toISOString()`
 * (UTC, milliseconds, `Z`), which orders like time itself, and trust scoring runs this for every
 * signal of every search result, where parsing dates would cost.
 */
export function isSignalExpired(signal: { expiresAt?: string | null | undefined }, nowIso: string): boolean {
  return typeof signal.expiresAt === "string" && signal.expiresAt <= nowIso;
}
