import { ConfigError } from '@mh/core';
import { SECRET_PATTERNS, type SecretPattern } from './secret-patterns.js';

/** Options of `Redactor`. */
export interface RedactorOptions {
  /** Patterns masked besides the built-in `SECRET_PATTERNS` (a bare RegExp is named `custom`). */
  readonly patterns?: readonly (RegExp | SecretPattern)[];
  /** Exact values masked wherever they appear: the provider API key, MCP server env values. */
  readonly secrets?: readonly string[];
}

/** Shortest exact secret accepted: shorter ones would mask ordinary text. */
const MIN_SECRET_LENGTH = 4;

function globalPattern(pattern: RegExp): RegExp {
  return pattern.flags.includes('g') ? pattern : new RegExp(pattern.source, `${pattern.flags}g`);
}

interface CompiledPattern {
  readonly pattern: RegExp;
  /** The replacement: the mask, after the `keep` group when the pattern has one. */
  readonly mask: string;
}

function compile({ name, pattern }: SecretPattern): CompiledPattern {
  const mask = `[REDACTED:${name.replaceAll('$', '$$$$')}]`;
  return { pattern, mask: pattern.source.includes('(?<keep>') ? `$<keep>${mask}` : mask };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Masks secrets in text: exact known values first, then the built-in and user patterns. Each
 * match becomes `[REDACTED:<name>]`. `@mh/observability` runs it over every string attribute,
 * event attribute and status message before any exporter sees a span.
 */
export class Redactor {
  /** Matches wherever a built-in pattern or exact secret might; text it misses skips them all. */
  readonly #gate: RegExp;
  readonly #gated: readonly CompiledPattern[];
  readonly #custom: readonly CompiledPattern[];

  constructor(options: RedactorOptions = {}) {
    const gated: SecretPattern[] = [];
    const secrets = options.secrets ?? [];
    secrets.forEach((secret, index) => {
      if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) {
        throw new ConfigError(
          `redact.secrets[${index}]`,
          `expected a string of at least ${MIN_SECRET_LENGTH} characters`,
        );
      }
    });
    if (secrets.length > 0) {
      // Longest first, so a secret that contains another is masked whole.
      const alternatives = [...secrets].sort((a, b) => b.length - a.length).map(escapeRegExp);
      gated.push({ name: 'secret', pattern: new RegExp(alternatives.join('|'), 'g') });
    }
    gated.push(...SECRET_PATTERNS);
    const custom = (options.patterns ?? []).map((entry, index) => {
      const named = entry instanceof RegExp ? { name: 'custom', pattern: entry } : entry;
      if (!(named?.pattern instanceof RegExp)) {
        throw new ConfigError(
          `redact.patterns[${index}]`,
          'expected a RegExp or { name, pattern }',
        );
      }
      return { name: named.name, pattern: globalPattern(named.pattern) };
    });
    // One case-insensitive union of our own patterns is at least as permissive as each of them,
    // so a miss proves none matches. User patterns (any flags) always run.
    const union = gated.map(({ pattern }) => `(?:${pattern.source.replaceAll('(?<keep>', '(?:')})`);
    this.#gate = new RegExp(union.join('|'), 'i');
    this.#gated = gated.map(compile);
    this.#custom = custom.map(compile);
  }

  /** `text` with every secret masked. */
  redact(text: string): string {
    let out = text;
    if (this.#gate.test(out))
      for (const { pattern, mask } of this.#gated) out = out.replace(pattern, mask);
    for (const { pattern, mask } of this.#custom) out = out.replace(pattern, mask);
    return out;
  }

  /** `value` with secrets masked if it is a string or holds strings; anything else as is. */
  redactValue<T>(value: T): T {
    if (typeof value === 'string') return this.redact(value) as T;
    if (Array.isArray(value))
      return value.map((item) => (typeof item === 'string' ? this.redact(item) : item)) as T;
    return value;
  }

  /** A copy of `attributes` with every string value (and string in an array) redacted. */
  redactAttributes<T extends Readonly<Record<string, unknown>>>(attributes: T): T {
    const out: Record<string, unknown> = {};
    for (const key in attributes) out[key] = this.redactValue(attributes[key]);
    return out as T;
  }
}
