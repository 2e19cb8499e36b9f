import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { z } from "zod";
import { trades } from "../domain/sectors.ts";
import { indexTerms } from "./normalize.ts";

/*
 * The searchers' vocabulary, shared by every engine: the names a trade goes by (French and
 * English, data/naf-trades.json) are indexed with the trade, so "coiffeur", "hairdresser" and
 * "salon de coiffure" find a salon on the embedded index and on Meilisearch alike; trade words
 * never match through a town's name alone; filler words (data/search-vocabulary.json) are
 * dropped from queries.
 */

const vocabularySchema = z.object({
  format: z.literal(1),
  unlisted_trades: z.array(z.string()),
  filler: z.array(z.string()),
});

const vocabularyText = readFileSync(new URL("../../data/search-vocabulary.json", import.meta.url), "utf8");
const tradesText = readFileSync(new URL("../../data/naf-trades.json", import.meta.url), "utf8");
const vocabulary = vocabularySchema.parse(JSON.parse(vocabularyText));

/** Moves with any edit of the vocabulary or the trades' names: the indexes built with others are rebuilt. */
export const VOCABULARY_FINGERPRINT = createHash("sha256")
  .update(vocabularyText)
  .update(tradesText)
  .digest("hex")
  .slice(0, 12);

/** The normalised names of a trade (label, English name, keywords, names), as indexed with it; "" when unknown. */
const tradeNames = new Map<string, string>(
  trades.map((trade) => {
    const words = [trade.label, ...trade.keywords, ...trade.names, trade.nameEn];
    return [trade.key, [...new Set(words.flatMap((word) => indexTerms(word)))].join(" ")];
  }),
);

export function tradeVocabularyText(tradeKey: string): string {
  return tradeNames.get(tradeKey) ?? "";
}

/**
 * Single words that name a trade (one-word labels and vocabulary names of every trade, and trade
 * words with no trade here): such a word must match a merchant's name, trade, products, tags or
 * description, never its town alone ("maçon" is not a merchant of Mâcon).
 */
export const TRADE_WORDS: ReadonlySet<string> = new Set(
  [
    ...trades.flatMap((trade) => [trade.label, trade.nameEn, trade.key.replaceAll("_", " "), ...trade.names]),
    ...vocabulary.unlisted_trades,
  ]
    .map((word) => indexTerms(word))
    .filter((terms) => terms.length === 1)
    .map((terms) => terms[0] as string),
);

/** Words searchers add around what they look for ("près de", "near", "pas cher"): dropped from queries. */
export const FILLER_WORDS: ReadonlySet<string> = new Set(vocabulary.filler.flatMap((word) => indexTerms(word)));
