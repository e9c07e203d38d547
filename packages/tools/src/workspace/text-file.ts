import type { OpenedEntry } from './verified-open.js';

/** Bytes sniffed for a NUL byte, the mark of a binary file (as git and grep do). */
const SNIFF_BYTES = 8_192;

/** Why a file could not be read as text. */
export type TextFileRefusal = 'binary' | 'too-large' | 'not-a-file';

/** A file read as text, or the reason it was not. */
export type TextFileResult =
  | { readonly ok: true; readonly text: string; readonly bytes: number }
  | { readonly ok: false; readonly reason: TextFileRefusal; readonly bytes: number };

/**
 * Reads an opened file as UTF-8 text of at most `maxBytes`, from its descriptor (never by name,
 * which could lead elsewhere by now). Refuses (without throwing) directories, files over the cap,
 * and binary files: a NUL byte in the first 8 KiB or bytes that are not UTF-8. The caller still
 * owns and closes the descriptor.
 */
export async function readTextFile(file: OpenedEntry, maxBytes: number): Promise<TextFileResult> {
  if (file.kind !== 'file') return { ok: false, reason: 'not-a-file', bytes: 0 };
  if (file.stats.size > maxBytes) return { ok: false, reason: 'too-large', bytes: file.stats.size };
  const buffer = await file.handle.readFile();
  // Grown since the fstat above.
  if (buffer.length > maxBytes) return { ok: false, reason: 'too-large', bytes: buffer.length };
  if (buffer.subarray(0, SNIFF_BYTES).includes(0)) {
    return { ok: false, reason: 'binary', bytes: buffer.length };
  }
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(buffer);
    return { ok: true, text, bytes: buffer.length };
  } catch {
    return { ok: false, reason: 'binary', bytes: buffer.length };
  }
}

/** `1.5 MB`-style size for messages. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
