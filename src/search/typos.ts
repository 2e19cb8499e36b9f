/*
 * One typo: the distance both engines forgive in a word of five letters or more (Meilisearch's
 * own typo tolerance; the embedded index's fuzzy fallback, see embedded/index.ts).
 */

/** Shortest word a typo is forgiven in. */
export const MIN_TYPO_WORD_LENGTH = 5;

/**
 * True when `b` is `a` with at most one edit: a letter replaced, added or removed, or two
 * neighbouring letters swapped ("boulangeire" -> "boulangerie").
 */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > 1) return false;
  let i = 0;
  while (i < la && i < lb && a[i] === b[i]) i += 1;
  if (la === lb) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true; // replaced
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2); // swapped
  }
  return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1); // removed, added
}

/**
 * The beginnings a word one edit away from `word` starts with, whatever the edit: its first two
 * letters (edit further on), the first and third (second letter removed or replaced), the first two
 * swapped, the second and third (first letter removed). A dictionary sorted by word can look up
 * the candidates of each with a range.
 */
export function typoProbes(word: string): string[] {
  const [a = "", b = "", c = ""] = word;
  return [...new Set([a + b, a + c, b + a, b + c])].filter((probe) => probe.length === 2);
}
