import zlib from "node:zlib";

/**
 * zstd frames with a shared dictionary, one frame a document, each decodable alone (by any zstd
 * given the dictionary: `zlib.zstdDecompressSync(frame, { dictionary })`).
 *
 * Why not `zlib.zstdCompressSync` per document: each call makes a new zstd context, clears its
 * tables and digests the dictionary again: 74 µs for a five-byte input at level 3, 174 µs with a
 * 64 KB dictionary (this machine, Node 24), so 0.4-0.9 ms a merchant of five documents before any
 * byte is compressed. One context kept for a whole batch, each document ended as a frame of its
 * own (ZSTD_e_end, after which the context starts the next frame with the same dictionary), costs
 * the compression alone. Node exposes no synchronous call on a kept context, so this drives the
 * stream's native handle with the arguments Node's own synchronous path passes it
 * (`processChunkSync` in lib/zlib.js); should a Node release change that handle, the public
 * per-call functions take over (slower, the same bytes out of the decoder).
 */

/** A stream's native handle as lib/zlib.js drives it synchronously. */
interface NativeHandle {
  writeSync(
    flush: number,
    input: Uint8Array,
    inputOffset: number,
    inputLength: number,
    output: Uint8Array,
    outputOffset: number,
    outputLength: number,
  ): void;
  close(): void;
}

interface StreamInternals {
  _handle?: NativeHandle | null;
  _writeState?: Uint32Array;
}

const { ZSTD_e_end, ZSTD_c_compressionLevel, ZSTD_c_checksumFlag } = zlib.constants;

/** Level 3 (zstd's default): levels 1 to 3 cost about the same here, higher ones twice as much for 4 % fewer bytes. */
const LEVEL = 3;

function internalsOf(stream: object): { handle: NativeHandle; state: Uint32Array } | null {
  const internals = stream as StreamInternals;
  const handle = internals._handle;
  const state = internals._writeState;
  if (!handle || typeof handle.writeSync !== "function" || !(state instanceof Uint32Array)) return null;
  return { handle, state };
}

export interface FrameEncoder {
  encode(body: Uint8Array): Buffer;
  /**
   * Encodes a frame into `target` from `offset` on, growing it when the frame may not fit (the
   * caller keeps the buffer answered); answers that buffer and the frame's length. A pack's frames
   * go straight into its one buffer: no buffer a frame for the collector to follow.
   */
  encodeInto(body: Uint8Array, target: Buffer, offset: number): { target: Buffer; length: number };
  close(): void;
}

/** zstd's bound on a frame's length (ZSTD_compressBound, with room to spare). */
function frameBound(length: number): number {
  return length + (length >> 7) + 1024;
}

/** `target`, or a larger copy of its first `used` bytes when `needed` more would not fit. */
export function withRoom(target: Buffer, used: number, needed: number): Buffer {
  if (target.length - used >= needed) return target;
  const grown = Buffer.allocUnsafeSlow(Math.max(2 * target.length, used + needed));
  target.copy(grown, 0, 0, used);
  return grown;
}

export interface FrameDecoder {
  /** The document of a frame, `size` bytes long (a frame that does not decode to it throws). */
  decode(frame: Uint8Array, size: number): Buffer;
  close(): void;
}

export function createFrameEncoder(dictionary: Buffer): FrameEncoder {
  const params = { [ZSTD_c_compressionLevel]: LEVEL, [ZSTD_c_checksumFlag]: 0 };
  const stream = zlib.createZstdCompress({ params, dictionary });
  const internals = internalsOf(stream);
  if (!internals) {
    stream.destroy();
    const encode = (body: Uint8Array) => zlib.zstdCompressSync(body, { params, dictionary });
    return {
      encode,
      encodeInto(body, target, offset) {
        const frame = encode(body);
        const room = withRoom(target, offset, frame.length);
        frame.copy(room, offset);
        return { target: room, length: frame.length };
      },
      close: () => undefined,
    };
  }
  const { handle, state } = internals;
  /** Ends `body` as one frame into `target` at `offset` (room for zstd's bound checked by the caller). */
  const frameInto = (body: Uint8Array, target: Buffer, offset: number): number => {
    const room = target.length - offset;
    handle.writeSync(ZSTD_e_end, body, 0, body.length, target, offset, room);
    const [availableOut = 0, availableIn = 0] = state;
    if (availableIn !== 0 || availableOut === 0) throw new Error("zstd: a frame did not end in one call");
    return room - availableOut;
  };
  let output = Buffer.allocUnsafe(256 * 1024);
  return {
    encode(body) {
      // A frame is at most a little larger than its input (zstd's bound): one output buffer that
      // size takes the whole frame in one call.
      const bound = frameBound(body.length);
      if (output.length < bound) output = Buffer.allocUnsafe(bound * 2);
      return Buffer.from(output.subarray(0, frameInto(body, output, 0)));
    },
    encodeInto(body, target, offset) {
      const room = withRoom(target, offset, frameBound(body.length));
      return { target: room, length: frameInto(body, room, offset) };
    },
    close: () => stream.destroy(),
  };
}

export function createFrameDecoder(dictionary: Buffer): FrameDecoder {
  const stream = zlib.createZstdDecompress({ dictionary });
  const internals = internalsOf(stream);
  const viaPublicApi = (frame: Uint8Array, size: number): Buffer => {
    const body = zlib.zstdDecompressSync(frame, { dictionary });
    if (body.length !== size) throw new Error("zstd: a frame decoded to another length than recorded");
    return body;
  };
  if (!internals) {
    stream.destroy();
    return { decode: viaPublicApi, close: () => undefined };
  }
  const { handle, state } = internals;
  let broken = false;
  return {
    decode(frame, size) {
      if (broken) return viaPublicApi(frame, size);
      const body = Buffer.allocUnsafe(size);
      try {
        handle.writeSync(ZSTD_e_end, frame, 0, frame.length, body, 0, size);
      } catch (error) {
        // A corrupt frame leaves the context mid-frame: the next ones go through fresh contexts.
        broken = true;
        throw error;
      }
      const [availableOut = 0, availableIn = 0] = state;
      if (availableOut !== 0 || availableIn !== 0) {
        broken = true;
        throw new Error("zstd: a frame did not decode to the length recorded");
      }
      return body;
    },
    close: () => stream.destroy(),
  };
}
