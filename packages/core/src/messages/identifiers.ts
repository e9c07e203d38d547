/**
 * Exact identifiers in free text: what a compaction must never paraphrase away. Order numbers
 * (`ORD-10442`), paths (`src/billing/invoice.ts`), file names, UUIDs, hashes, emails, URLs,
 * issue references (`#1234`), dates and timestamps, dotted versions and addresses, and long
 * numbers and amounts. Deliberately generous: keeping a word that was not an identifier costs a few
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
  // Issue and pull-request references: #1234, #A-12.
  /^#[\w-]*\d[\w-]*$/,
  // Dates and ISO timestamps: 2024-07-01, 2024-07-01T10:00:00Z, 2024-07-01T10:00+02:00.
  /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/,
  // Dotted numbers: versions and addresses (1.2.3, 10.0.0.1).
  /^\d+(?:\.\d+){2,}$/,
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
  if (/^\d+(?:\.\d+){2,}$/.test(candidate)) return true;
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
      // Leading currency signs too: `$1,299.00` is the amount 1,299.00, not `$1` and `299.00`.
      const word = raw.replace(/^[.,:!?$€£¥]+|[.,:!?]+$/g, '');
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

/** Whether `char` continues a name: a word character, or `.`/`-` with a word character beyond. */
function continues(char: string | undefined, beyond: string | undefined): boolean {
  if (char === undefined) return false;
  if (/\w/.test(char)) return true;
  return (char === '.' || char === '-') && beyond !== undefined && /\w/.test(beyond);
}

/** Spans of more pieces than this are indexed only as prefixes and suffixes. */
const MAX_INDEXED_PIECES = 16;

/**
 * Every part of `word` that stands alone at separators: the file name and the sub-paths of a
 * path, the domain of an email, `1,299.00`'s `299.00` — but not `ORD-1234` in `ORD-12345` nor
 * `v1.2` in `v1.2.3`, which continue past the part. Linear in the pieces for long words.
 */
function standaloneParts(word: string): string[] {
  const starts: number[] = [];
  const ends: number[] = [];
  let inside = false;
  for (let index = 0; index <= word.length; index++) {
    // Separators (`/`, `@`, `,`, `:` …) end a piece; `.` and `-` between word characters do not.
    const isPiece = index < word.length && continues(word[index], word[index + 1]);
    if (isPiece && !inside) starts.push(index);
    if (!isPiece && inside) ends.push(index);
    inside = isPiece;
  }
  const parts: string[] = [];
  const count = starts.length;
  for (let first = 0; first < count; first++) {
    for (let last = first; last < count; last++) {
      if (count > MAX_INDEXED_PIECES && first !== 0 && last !== count - 1) continue;
      parts.push(word.slice(starts[first], ends[last]));
    }
  }
  return parts;
}

/**
 * The distinct identifiers in `text`, in order of first appearance, at most `limit` of them.
 * A candidate standing alone inside a longer one already kept (a file name inside its path) is
 * not repeated; one that merely starts a longer one (`PR-1` after `PR-12`) is kept.
 */
export function extractIdentifiers(
  text: string,
  limit: number = Number.POSITIVE_INFINITY,
): string[] {
  const kept: string[] = [];
  const seen = new Set<string>();
  const covered = new Set<string>();
  for (const word of words(text)) {
    if (seen.has(word) || !keep(word)) continue;
    seen.add(word);
    if (covered.has(word)) continue;
    kept.push(word);
    for (const part of standaloneParts(word)) covered.add(part);
    if (kept.length >= limit) break;
  }
  return kept;
}

/**
 * The identifiers of `ids` that `text` does not mention as such: `ORD-1234` is not mentioned by
 * `ORD-12345`, while `batch-7.csv` is by `data/batch-7.csv`.
 */
export function identifiersNotIn(text: string, ids: readonly string[]): string[] {
  const mentioned = new Set<string>();
  for (const word of words(text)) {
    mentioned.add(word);
    for (const part of standaloneParts(word)) mentioned.add(part);
  }
  return ids.filter((id) => !mentioned.has(id));
}
