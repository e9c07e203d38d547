import type { ImageBlock, TextBlock } from '@mh/core';

/** The marker put where text was cut out. */
export function truncationMarker(omitted: number): string {
  return `\n…[truncated ${omitted} characters]…\n`;
}

/**
 * Keeps the head and the tail of `text` so the result, marker included, fits in `maxChars`
 * (unless the marker alone is longer). The head and the tail often both matter: a log's first
 * error and its summary line. Never splits a surrogate pair.
 */
export function truncateMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  // The marker's own length depends on the count it shows; two passes settle it.
  let keep = Math.max(0, maxChars - truncationMarker(text.length).length);
  keep = Math.max(0, maxChars - truncationMarker(text.length - keep).length);
  let headEnd = Math.ceil(keep / 2);
  let tailStart = text.length - (keep - headEnd);
  if (isHighSurrogate(text.charCodeAt(headEnd - 1))) headEnd -= 1;
  if (isLowSurrogate(text.charCodeAt(tailStart))) tailStart += 1;
  const marker = truncationMarker(tailStart - headEnd);
  const result = `${text.slice(0, headEnd)}${marker}${text.slice(tailStart)}`;
  // Keeping a surrogate pair whole can push the count over a power of ten: retry a little shorter.
  return result.length > maxChars && keep > 0 ? truncateMiddle(text, maxChars - 1) : result;
}

/**
 * Caps the text of a tool result at `maxChars` in total. Adjacent text blocks are joined first
 * (a result's text reads as their concatenation); each remaining text block gets a share of the
 * budget proportional to its length. Images pass through.
 */
export function truncateContent(
  content: readonly (TextBlock | ImageBlock)[],
  maxChars: number,
): (TextBlock | ImageBlock)[] {
  const merged: (TextBlock | ImageBlock)[] = [];
  for (const block of content) {
    const last = merged.at(-1);
    if (block.type === 'text' && last?.type === 'text') {
      merged[merged.length - 1] = { type: 'text', text: last.text + block.text };
    } else {
      merged.push(block);
    }
  }
  const total = merged.reduce(
    (sum, block) => sum + (block.type === 'text' ? block.text.length : 0),
    0,
  );
  if (total <= maxChars) return merged;
  return merged.map((block) =>
    block.type === 'text'
      ? {
          type: 'text',
          text: truncateMiddle(block.text, Math.floor((maxChars * block.text.length) / total)),
        }
      : block,
  );
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
