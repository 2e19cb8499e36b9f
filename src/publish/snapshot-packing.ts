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
  const manifest = Buffer.from(payload.toString("latin1"), "base64url");
  const manifestStart = manifest.length > 0 ? body.indexOf(manifest) : -1;
  // The manifest must lie before the payload (its offset then holds in the packed form).
  if (manifestStart < 0 || manifestStart + manifest.length > payloadStart) return body;
  const packed = Buffer.allocUnsafe(HEADER + body.length - payload.length);
  packed[0] = MARK;
  packed.writeUInt32BE(manifestStart, 1);
  packed.writeUInt32BE(manifest.length, 5);
  packed.writeUInt32BE(payloadStart, 9);
  body.copy(packed, HEADER, 0, payloadStart);
  body.copy(packed, HEADER + payloadStart, secondDot);
  // Only a form that gives the same bytes back is kept (a payload with padding, another encoding).
  return documentForm(packed).equals(body) ? packed : body;
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
