/**
 * The zstd dictionary a publication's frames share (zstd-frames.ts): raw content, the documents of
 * a few merchants one after the other. A merchant's five documents repeat the same envelope,
 * keys, labels and French sentences as every other merchant's; a frame then stores mostly what
 * differs. zstd takes any bytes as a raw-content dictionary (Node exposes no training): measured
 * on 400 merchants of a demo registry (71 KB of documents each), 21.5 KB a merchant without one,
 * 14.3 KB with 32 KB of samples, 11.7 KB with 64 KB, 9.4 KB with 200 KB; with a kept context
 * (zstd-frames.ts) a larger dictionary costs nothing per document, so 128 KB.
 */
export const DICTIONARY_BYTES = 128 * 1024;

/**
 * A dictionary from sample documents (several merchants' documents, in the order given): their
 * last DICTIONARY_BYTES, so the most recent samples, closest to the frames, are whole. Empty
 * samples give a one-byte dictionary (zstd refuses an empty one).
 */
export function buildDictionary(samples: readonly Uint8Array[]): Buffer {
  const joined = Buffer.concat(samples);
  if (joined.length === 0) return Buffer.from("{");
  return Buffer.from(joined.subarray(Math.max(0, joined.length - DICTIONARY_BYTES)));
}
