import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * How a stored body is encoded: 0 = the canonical JSON as UTF-8, 1 = that, raw-deflated with a
 * 4 KiB window (`windowBits` 12: nearly the ratio of 32 KiB on message-sized bodies, and a much
 * cheaper stream set-up, which dominates when a load inflates thousands of small bodies).
 */
export const BODY_CODECS = ['json', 'deflate-json'] as const;

/** A body as stored: its codec (an index into `BODY_CODECS`) and its bytes. */
export interface PackedBody {
  /** Index into `BODY_CODECS`. */
  readonly codec: number;
  /** The encoded bytes. */
  readonly body: Buffer;
}

const ZLIB_OPTIONS = { windowBits: 12, memLevel: 6 };
// Below this size deflate rarely pays for its own framing.
const MIN_PACKED_BYTES = 256;
// Keep the plain form unless deflate saves at least a tenth: plain bodies stay readable in SQL.
const MAX_PACKED_RATIO = 0.9;

/**
 * Encodes canonical JSON for storage, deflated when that saves space. Message text and tool
 * output of a few hundred bytes typically shrink to 55-70 %, which is what keeps the file within
 * ~1.5x of the raw JSON despite per-row keys and page slack. The hash is always of the plain JSON.
 */
export function packBody(json: string): PackedBody {
  const plain = Buffer.from(json, 'utf8');
  if (plain.length < MIN_PACKED_BYTES) return { codec: 0, body: plain };
  const packed = deflateRawSync(plain, ZLIB_OPTIONS);
  return packed.length <= plain.length * MAX_PACKED_RATIO
    ? { codec: 1, body: packed }
    : { codec: 0, body: plain };
}

/** Decodes a stored body back to its canonical JSON. */
export function unpackBody(codec: number, bytes: Uint8Array): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (codec === 0) return buffer.toString('utf8');
  if (codec === 1) return inflateRawSync(buffer, ZLIB_OPTIONS).toString('utf8');
  throw new Error(`unknown body codec ${codec}: written by a newer version`);
}
