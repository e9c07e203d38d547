/** Replaces secrets with `[REDACTED:<kind>]`, in a cassette line or in plain text. */
export interface Scrubber {
  /** Scrubs JSON text (literals matched in their escaped form; the result stays valid JSON). */
  json(jsonText: string): string;
  /** Scrubs plain text (streamed deltas, joined). */
  text(text: string): string;
}

/**
 * Key shapes that must never reach a cassette. Each matches only characters that need no JSON
 * escaping, so masking the serialised line keeps it valid JSON.
 */
const KEY_PATTERNS: readonly (readonly [string, RegExp, (text: string) => boolean])[] = [
  [
    'anthropic-key',
    /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}/g,
    (text) => text.includes('sk-ant-'),
  ],
  ['openai-key', /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}/g, (text) => text.includes('sk-')],
  [
    'github-token',
    /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g,
    (text) => /gh[pousr]_|github_pat_/.test(text),
  ],
  [
    'aws-access-key',
    /(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])/g,
    (text) => text.includes('AKIA') || text.includes('ASIA'),
  ],
];
const BEARER = /(\bbearer\s+)[A-Za-z0-9._~+/=-]{16,}/gi;

/** Environment variables whose values are credentials. */
const SECRET_NAME = /(?:API_?KEY|TOKEN|SECRET|PASSWORD)$/i;
/** Shorter literals would mask ordinary words. */
const MIN_SECRET_LENGTH = 8;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Builds the scrubber of a cassette: API-key shapes (Anthropic, OpenAI, GitHub, AWS), bearer
 * tokens, the values of environment variables named `*_API_KEY`, `*_TOKEN`, `*_SECRET`,
 * `*_PASSWORD`, and the given literals (8 characters or more). Literals are matched in their
 * JSON-escaped form, as they appear in the line.
 */
export function createScrubber(
  secrets: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Scrubber {
  const literals = new Set<string>();
  for (const secret of secrets) if (secret.length >= MIN_SECRET_LENGTH) literals.add(secret);
  for (const [name, value] of Object.entries(env)) {
    if (SECRET_NAME.test(name) && value !== undefined && value.length >= MIN_SECRET_LENGTH)
      literals.add(value);
  }
  const literalPattern = (form: (literal: string) => string): RegExp | undefined => {
    const escaped = [...literals]
      .map(form)
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp);
    return escaped.length > 0 ? new RegExp(escaped.join('|'), 'g') : undefined;
  };
  const jsonLiterals = literalPattern((literal) => JSON.stringify(literal).slice(1, -1));
  const textLiterals = literalPattern((literal) => literal);
  const scrub = (text: string, literalsPattern: RegExp | undefined): string => {
    let out = literalsPattern ? text.replace(literalsPattern, '[REDACTED:secret]') : text;
    // Most lines hold no key: a substring test first spares a lookbehind regex tried at every
    // position of a long line.
    for (const [name, pattern, mayMatch] of KEY_PATTERNS) {
      if (mayMatch(out)) out = out.replace(pattern, `[REDACTED:${name}]`);
    }
    if (/bearer/i.test(out)) out = out.replace(BEARER, '$1[REDACTED:bearer]');
    return out;
  };
  return {
    json: (text: string): string => scrub(text, jsonLiterals),
    text: (text: string): string => scrub(text, textLiterals),
  };
}
