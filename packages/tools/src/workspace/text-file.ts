import { open } from 'node:fs/promises';

/** Bytes sniffed for a NUL byte, the mark of a binary file (as git and grep do). */
const SNIFF_BYTES = 8_192;

/** Why a file could not be read as text. */
export type TextFileRefusal = 'binary' | 'too-large' | 'not-a-file';

/** A file read as text, or the reason it was not. */
export type TextFileResult =
  | { readonly ok: true; readonly text: string; readonly bytes: number }
  | { readonly ok: false; readonly reason: TextFileRefusal; readonly bytes: number };

/**
 * Reads a UTF-8 text file of at most `maxBytes`. Refuses (without throwing) directories, files
 * over the cap, and binary files: a NUL byte in the first 8 KiB or bytes that are not UTF-8.
 */
export async function readTextFile(absolute: string, maxBytes: number): Promise<TextFileResult> {
  const handle = await open(absolute, 'r');
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { ok: false, reason: 'not-a-file', bytes: 0 };
    if (stats.size > maxBytes) return { ok: false, reason: 'too-large', bytes: stats.size };
    const buffer = await handle.readFile();
    if (buffer.subarray(0, SNIFF_BYTES).includes(0)) {
      return { ok: false, reason: 'binary', bytes: buffer.length };
    }
    try {
      const text = new TextDecoder('utf-8', { fatal: true }).decode(buffer);
      return { ok: true, text, bytes: buffer.length };
    } catch {
      return { ok: false, reason: 'binary', bytes: buffer.length };
    }
  } finally {
    await handle.close();
  }
}

/** `1.5 MB`-style size for messages. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
