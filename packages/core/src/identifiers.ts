/**
 * Exact identifiers in free text: what a compaction must never paraphrase away. Order numbers
 * (`ORD-10442`), paths (`src/billing/invoice.ts`), file names, UUIDs, hashes, emails, URLs and
 * long numbers. Deliberately generous: keeping a word that was not an identifier costs a few
 * tokens; losing one that was costs the task. Linear in the text: it splits the text into
 * words first and tests each word (at most `MAX_WORD` characters) against anchored patterns, so
 * megabytes of tool output cannot make it backtrack.
 */
const CLASSES: readonly RegExp[] = [
  /^https?:\/\/\S+$/,
  /^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$/,
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  // Paths with at least one separator, optionally rooted or relative.
  /^(?:~|\.{1,2})?\/?(?:[\w@.-]+\/)+[\w@.-]*[\w@-]$/,
  // File names with a short extension.
  /^[\w-]+(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,5}$/,
  // Letter-digit codes: ORD-10442, INV_2024_07, ab12cd, v2.3.1-rc1.
  /^[A-Za-z]+[-_.]?[A-Za-z0-9.]*\d[\w.-]*$/,
  // Hex hashes (git shas and the like) and long numbers (amounts, ids, timestamps).
  /^[0-9a-f]{7,64}$/i,
  /^\d[\d,]*\d(?:\.\d+)?$/,
];

/** Words longer than this are blobs (base64, minified code), not identifiers. */
const MAX_WORD = 256;
/** Identifier candidates shorter than this are noise (`a1`, `v2`). */
const MIN_IDENTIFIER_LENGTH = 4;
/** Pure numbers need this many digits to count (years and small counts are not identifiers). */
const MIN_NUMBER_DIGITS = 4;

function keep(candidate: string): boolean {
  if (candidate.length < MIN_IDENTIFIER_LENGTH || candidate.length > MAX_WORD) return false;
  if (!CLASSES.some((pattern) => pattern.test(candidate))) return false;
  if (/^[\d,.]+$/.test(candidate)) return candidate.replace(/\D/g, '').length >= MIN_NUMBER_DIGITS;
  if (/^[0-9a-f]+$/i.test(candidate) && !/\d/.test(candidate)) return false; // "deadbeef"-like words
  return /[\d/@_-]|\.[A-Za-z]/.test(candidate);
}

function* words(text: string): Generator<string> {
  for (const chunk of text.split(/[\s"'`<>()[\]{}|;*]+/)) {
    if (chunk.length === 0 || chunk.length > MAX_WORD) continue;
    const url = chunk.replace(/[.,:!?]+$/, '');
    if (/^https?:\/\//.test(url)) {
      yield url;
      continue;
    }
    for (const raw of chunk.split('=')) {
      const word = raw.replace(/^[.,:!?]+|[.,:!?]+$/g, '');
      if (word.length === 0) continue;
      // `key:value` and `a,b` runs: the whole, then each part.
      yield word;
      if (/[:,]/.test(word)) {
        for (const part of word.split(/[:,]+/)) {
          const trimmed = part.replace(/^[.!?]+|[.!?]+$/g, '');
          if (trimmed !== word && trimmed.length > 0) yield trimmed;
        }
      }
    }
  }
}

/**
 * The distinct identifiers in `text`, in order of first appearance, at most `limit` of them.
 * A candidate contained in a longer one already kept (a file name inside its path) is not repeated.
 */
export function extractIdentifiers(
  text: string,
  limit: number = Number.POSITIVE_INFINITY,
): string[] {
  const kept: string[] = [];
  const seen = new Set<string>();
  for (const word of words(text)) {
    if (seen.has(word) || !keep(word)) continue;
    seen.add(word);
    if (kept.some((longer) => longer.length > word.length && longer.includes(word))) continue;
    kept.push(word);
    if (kept.length >= limit) break;
  }
  return kept;
}
