/**
 * A snapshot manifest's envelope holds its manifest twice: once as JSON (`data.manifest`, printed
 * byte for byte as the JWS payload, snapshot.ts) and once base64url-encoded inside the compact
 * JWS (`data.jws`, header.payload.signature). The encoded copy is half the document (8.8 of 17 KB
 * on the demo registry) and, being base64, what zstd compresses worst; it is also exactly
 * derivable from the other copy. So a pack stores the document without it, and reading puts it
 * back: the bytes served are the bytes signed, which any JOSE library verifies.
 *
 * Packed form: a 0x00 byte (no JSON document starts with it), the manifest's offset and length
 * and the payload's offset (three unsigned 32-bit integers), then the document without the
 * payload. A document that is not of this shape, or would not come back byte for byte, is
 * stored as it is.
 */
const MARK = 0x00;
const HEADER = 13;
const JWS_KEY = Buffer.from('"jws":"');
const QUOTE = 0x22;
const DOT = 0x2e;

/** The form a document is packed in: without its JWS payload when it carries one that its manifest gives back. */
export function packedForm(body: Buffer): Buffer {
  if (body.length === 0 || body[0] === MARK) return body;
  const key = body.indexOf(JWS_KEY);
  if (key < 0) return body;
  const jwsStart = key + JWS_KEY.length;
  const jwsEnd = body.indexOf(QUOTE, jwsStart);
  const firstDot = body.indexOf(DOT, jwsStart);
  const secondDot = firstDot < 0 ? -1 : body.indexOf(DOT, firstDot + 1);
  if (jwsEnd < 0 || firstDot < 0 || secondDot < 0 || secondDot > jwsEnd) return body;
  const payloadStart = firstDot + 1;
  const payload = body.subarray(payloadStart, secondDot);
  const payloadText = payload.toString("latin1");
  const manifest = Buffer.from(payloadText, "base64url");
  // Only a payload that is exactly its manifest's base64url gives the same bytes back (not one
  // with padding, or another encoding): then putting the manifest's encoding back is the document.
  if (manifest.length === 0 || manifest.toString("base64url") !== payloadText) return body;
  const manifestStart = manifestOffset(body, manifest, payloadStart);
  // The manifest must lie before the payload (its offset then holds in the packed form).
  if (manifestStart < 0) return body;
  const packed = Buffer.allocUnsafe(HEADER + body.length - payload.length);
  packed[0] = MARK;
  packed.writeUInt32BE(manifestStart, 1);
  packed.writeUInt32BE(manifest.length, 5);
  packed.writeUInt32BE(payloadStart, 9);
  body.copy(packed, HEADER, 0, payloadStart);
  body.copy(packed, HEADER + payloadStart, secondDot);
  return packed;
}

/** Bytes of the manifest looked for first: enough to be found once, a cheaper search than the whole. */
const PROBE = 64;

/**
 * Where the manifest's bytes lie in the document wholly before `end`, or -1: its first bytes
 * looked for, each place they are found compared whole (searching for all of it cost a snapshot
 * more than its compression).
 */
function manifestOffset(body: Buffer, manifest: Buffer, end: number): number {
  const probe = manifest.subarray(0, PROBE);
  for (let at = body.indexOf(probe); at >= 0 && at + manifest.length <= end; at = body.indexOf(probe, at + 1)) {
    if (body.compare(manifest, 0, manifest.length, at, at + manifest.length) === 0) return at;
  }
  return -1;
}

/** The document a packed form stands for (the payload put back), or the bytes as they are. */
export function documentForm(packed: Buffer): Buffer {
  if (packed.length < HEADER || packed[0] !== MARK) return packed;
  const manifestStart = packed.readUInt32BE(1);
  const manifestLength = packed.readUInt32BE(5);
  const payloadStart = packed.readUInt32BE(9);
  const rest = packed.subarray(HEADER);
  const payload = Buffer.from(rest.subarray(manifestStart, manifestStart + manifestLength).toString("base64url"));
  return Buffer.concat([rest.subarray(0, payloadStart), payload, rest.subarray(payloadStart)]);
}
