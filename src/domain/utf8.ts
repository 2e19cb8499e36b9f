import { transcode } from "node:buffer";

/** Below this many characters Buffer.from is as fast: the conversion's fixed cost dominates. */
const TRANSCODE_FROM_LENGTH = 1_024;

/**
 * The UTF-8 bytes of a string. V8 encodes a string holding any character past U+00FF (— € œ,
 * found in nearly every French document) one character at a time: about 37 µs for 14,000
 * characters, where copying its UTF-16 code units and converting them with ICU takes about 8.
 * A string with a lone surrogate, which ICU refuses, takes Buffer.from (U+FFFD in its place).
 * For bytes sent or written at once: bytes kept for long take Buffer.from (kept resolve answers
 * encoded here left each server process 35-50 MB larger, src/http/envelope.ts).
 */
export function utf8Bytes(text: string): Buffer {
  if (text.length < TRANSCODE_FROM_LENGTH) return Buffer.from(text, "utf8");
  try {
    return transcode(Buffer.from(text, "utf16le"), "utf16le", "utf8");
  } catch {
    return Buffer.from(text, "utf8");
  }
}
