/**
 * French-friendly text normalisation shared by indexing and querying, so that a document and a
 * query typed in any case, with or without accents, singular or plural, reduce to the same terms:
 * "Plombiers à Lyon", "plombier lyon" and "PLOMBIER LYON" all give ["plombier", "lyon"].
 *
 * Pure functions, no I/O. Any change to the rules changes the indexed terms: bump
 * NORMALIZATION_VERSION so that derived indexes know they must be rebuilt.
 */

export const NORMALIZATION_VERSION = 1;

/** Longest term kept; longer runs of letters are cut (they are never real words). */
export const MAX_TERM_LENGTH = 48;

/** How many terms of a query are kept; the rest of a very long query is ignored. */
export const MAX_QUERY_TERMS = 12;

/**
 * A small set of French (and a few English) function words that carry no meaning in a search for
 * merchants. Kept short on purpose: "sans" (sans gluten), "bio", "pres" stay searchable.
 */
const STOP_WORDS: ReadonlySet<string> = new Set([
  "a",
  "au",
  "aux",
  "avec",
  "c",
  "ce",
  "ces",
  "cet",
  "cette",
  "chez",
  "d",
  "dans",
  "de",
  "des",
  "du",
  "en",
  "est",
  "et",
  "il",
  "ils",
  "j",
  "je",
  "jusqu",
  "l",
  "la",
  "le",
  "les",
  "leur",
  "leurs",
  "lorsqu",
  "m",
  "ma",
  "mes",
  "mon",
  "n",
  "ne",
  "nos",
  "notre",
  "nous",
  "on",
  "ou",
  "par",
  "pas",
  "pour",
  "puisqu",
  "qu",
  "que",
  "qui",
  "s",
  "sa",
  "se",
  "ses",
  "son",
  "sont",
  "sur",
  "t",
  "ta",
  "tes",
  "ton",
  "tu",
  "un",
  "une",
  "vos",
  "votre",
  "vous",
  "y",
  "and",
  "of",
  "the",
]);

/** Elided articles and pronouns before an apostrophe: l'atelier, d'art, qu'il, jusqu'au. */
const ELISION = /(^|[^\p{L}\p{N}])(?:l|d|j|m|n|s|t|c|qu|jusqu|lorsqu|puisqu)['’ʼ‘`´]/gu;
const ASCII_ELISION = /(^|[^a-z0-9])(?:l|d|j|m|n|s|t|c|qu|jusqu|lorsqu|puisqu)['`]/g;
const ASCII_SEPARATORS = /[^a-z0-9]+/;
const COMBINING_MARKS = /\p{M}+/gu;
const SEPARATORS = /[^\p{L}\p{N}]+/u;
const LIGATURES = /[œæß]/g;
const LIGATURE_MAP: Record<string, string> = { œ: "oe", æ: "ae", ß: "ss" };
const HAS_DIGIT = /\p{N}/u;
/** Printable ASCII only (control characters take the slow path and become separators). */
const ASCII_ONLY = /^[ -~]*$/;

/** Words ending in s or x that are not plurals (or are the same in both numbers). */
const INVARIABLE: ReadonlySet<string> = new Set([
  "alors",
  "apres",
  "avis",
  "bois",
  "bras",
  "concours",
  "corps",
  "cours",
  "depuis",
  "dos",
  "fois",
  "gras",
  "jamais",
  "mois",
  "moins",
  "paris",
  "parcours",
  "plus",
  "poids",
  "pres",
  "propos",
  "puis",
  "repas",
  "sans",
  "secours",
  "souris",
  "tapis",
  "temps",
  "toujours",
  "tres",
  "vers",
]);

/** Irregular plurals whose singular the generic rules would not find. */
const IRREGULAR_PLURALS: Readonly<Record<string, string>> = {
  baux: "bail",
  boyaux: "boyau",
  coraux: "corail",
  emaux: "email",
  joyaux: "joyau",
  landaux: "landau",
  noyaux: "noyau",
  soupiraux: "soupirail",
  travaux: "travail",
  tuyaux: "tuyau",
  vitraux: "vitrail",
  yeux: "oeil",
};

/** Folded forms of the Latin-1 and Latin Extended letters (é -> e, œ -> oe), built once. */
const LATIN_FOLDS: ReadonlyMap<string, string> = (() => {
  const folds = new Map<string, string>();
  for (let code = 0xc0; code <= 0x24f; code += 1) {
    const char = String.fromCharCode(code);
    const folded = (LIGATURE_MAP[char] ?? char).normalize("NFD").replace(COMBINING_MARKS, "");
    if (folded !== char) folds.set(char, folded);
  }
  return folds;
})();
const NON_ASCII = /[^ -~]/g;
const APOSTROPHES: ReadonlySet<string> = new Set(["’", "ʼ", "‘", "´"]);
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const MARK = /\p{M}/u;

/** One non-ASCII character: a folded letter, an ASCII apostrophe, "" for a mark, " " for a separator. */
function foldChar(char: string): string {
  const folded = LATIN_FOLDS.get(char);
  if (folded !== undefined) return folded;
  if (APOSTROPHES.has(char)) return "'";
  if (MARK.test(char)) return "";
  return LETTER_OR_DIGIT.test(char) ? char : " ";
}

/** Lower-cases, removes accents and expands ligatures: "Pâtisserie Œuvre" -> "patisserie oeuvre". */
export function foldCase(text: string): string {
  const lower = text.toLowerCase();
  if (ASCII_ONLY.test(lower)) return lower;
  // Fast path for French letters; anything else left over goes through full decomposition.
  const latin = lower.replace(NON_ASCII, foldChar);
  if (ASCII_ONLY.test(latin)) return latin;
  return latin
    .normalize("NFD")
    .replace(COMBINING_MARKS, "")
    .replace(LIGATURES, (ligature) => LIGATURE_MAP[ligature] ?? ligature);
}

/**
 * Light plural-to-singular folding, applied the same way to documents and queries (so an
 * imperfect singular is harmless: both sides meet on the same stem). Words shorter than 4
 * characters and words holding digits are left alone.
 */
export function singularize(word: string): string {
  const last = word.charCodeAt(word.length - 1);
  if ((last !== 0x73 && last !== 0x78) || word.length < 4 || HAS_DIGIT.test(word)) return word; // s, x
  if (INVARIABLE.has(word)) return word;
  const irregular = IRREGULAR_PLURALS[word];
  if (irregular !== undefined) return irregular;
  if (word.endsWith("eaux")) return word.slice(0, -1); // gateaux -> gateau
  if (word.endsWith("aux")) return `${word.slice(0, -3)}al`; // chevaux -> cheval, commerciaux -> commercial
  if (word.endsWith("eux") || word.endsWith("oux")) return word.slice(0, -1); // jeux -> jeu, bijoux -> bijou
  if (last === 0x73 && !word.endsWith("ss")) return word.slice(0, -1); // plombiers -> plombier
  return word;
}

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

/** Words of a text after case and accent folding and elision removal, before any filtering. */
export function splitWords(text: string): string[] {
  const folded = foldCase(text);
  // Most folded French text is ASCII: plain regexes are several times faster than Unicode ones.
  let parts: string[];
  if (ASCII_ONLY.test(folded)) {
    const elisions = folded.includes("'") || folded.includes("`");
    parts = (elisions ? folded.replace(ASCII_ELISION, "$1") : folded).split(ASCII_SEPARATORS);
  } else {
    parts = folded.replace(ELISION, "$1").split(SEPARATORS);
  }
  const words: string[] = [];
  for (const word of parts) {
    if (word.length === 0) continue;
    words.push(word.length > MAX_TERM_LENGTH ? word.slice(0, MAX_TERM_LENGTH) : word);
  }
  return words;
}

/** A word worth indexing or searching: not a stop word, not a lone letter (a lone digit is kept). */
function isMeaningful(word: string): boolean {
  if (word.length === 1) return HAS_DIGIT.test(word);
  return !STOP_WORDS.has(word);
}

/** The terms a document contributes to the index, in order (duplicates kept for term frequency). */
export function indexTerms(text: string | null | undefined): string[] {
  if (!text) return [];
  const terms: string[] = [];
  for (const word of splitWords(text)) if (isMeaningful(word)) terms.push(singularize(word));
  return terms;
}

/** The indexed form of a document: its terms joined by single spaces. */
export function normalizeForIndex(text: string | null | undefined): string {
  return indexTerms(text).join(" ");
}

export interface QueryTerm {
  term: string;
  /** True for the last word typed (2 characters or more): it also matches as a prefix. */
  prefix: boolean;
  /** A word naming a trade (src/search/vocabulary.ts): it never matches through the town alone. */
  trade?: boolean;
  /** Indexed words one typo away, matched instead of the term (the embedded index's fuzzy fallback). */
  alternatives?: readonly string[];
}

/**
 * The terms of a user's query, deduplicated, at most MAX_QUERY_TERMS. The last word typed matches
 * as a prefix too ("boulan" finds "boulangerie") when it is at least 2 characters long and is not
 * a stop word. An empty array means nothing searchable was typed.
 */
export function queryTerms(text: string): QueryTerm[] {
  const words = splitWords(text);
  const lastWord = words.length > 0 ? words[words.length - 1] : undefined;
  const lastIsUsable = lastWord !== undefined && isMeaningful(lastWord);
  const terms: QueryTerm[] = [];
  const seen = new Map<string, QueryTerm>();
  words.forEach((word, position) => {
    if (!isMeaningful(word)) return;
    const term = singularize(word);
    const prefix = lastIsUsable && position === words.length - 1 && term.length >= 2;
    const existing = seen.get(term);
    if (existing) {
      existing.prefix ||= prefix;
      return;
    }
    if (terms.length >= MAX_QUERY_TERMS) return;
    const entry = { term, prefix };
    seen.set(term, entry);
    terms.push(entry);
  });
  return terms;
}

/**
 * The canonical form of a product tag, for exact tag filtering: folded words (stop words kept so a
 * tag never vanishes), singularised, joined by one space. "Sans Gluten" and "sans-gluten" -> "sans gluten".
 */
export function normalizeTag(tag: string): string {
  return splitWords(tag).map(singularize).join(" ");
}
