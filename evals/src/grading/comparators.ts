import { isDeepStrictEqual } from 'node:util';
import { undecorated } from './answer-line.js';

/** How an answer value is compared with the expected one. */
export interface Comparator {
  /** Short description for reports, e.g. `number (2 decimals)`. */
  readonly description: string;
  /** Undefined when `value` is right, else why it is not (one line). */
  mismatch(value: string, expected: string): string | undefined;
}

/** A number, compared to `decimals` places; thousands separators and `EUR`/`€` are allowed. */
export function numberAnswer(decimals: number): Comparator {
  return {
    description: `number (${decimals} decimals)`,
    mismatch(value, expected) {
      const text = undecorated(value)
        .replace(/\b(EUR|eur|euros?)\b|€/g, '')
        .replace(/(\d),(\d{3})\b/g, '$1$2')
        .trim();
      if (!/^-?\d+(\.\d+)?$/.test(text)) return `not a single number: ${clip(value)}`;
      const difference = Math.abs(Number(text) - Number(expected));
      return difference < 0.5 * 10 ** -decimals ? undefined : `${text} is not ${expected}`;
    },
  };
}

/** Text compared without case, decoration or repeated spaces (names, ids, hosts). */
export function textAnswer(): Comparator {
  return {
    description: 'text (case and decoration ignored)',
    mismatch(value, expected) {
      const normal = (text: string): string => undecorated(text).replace(/\s+/g, ' ').toLowerCase();
      return normal(value) === normal(expected) ? undefined : `${clip(value)} is not ${expected}`;
    },
  };
}

/** The exact text, character for character (strict output format). */
export function exactAnswer(): Comparator {
  return {
    description: 'exact text',
    mismatch(value, expected) {
      return value === expected ? undefined : `${clip(value)} is not exactly ${expected}`;
    },
  };
}

/** A JSON value equal to the expected one, key order free, types strict (strict format). */
export function jsonAnswer(): Comparator {
  return {
    description: 'JSON (types and keys exact, key order free)',
    mismatch(value, expected) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        return `not JSON: ${clip(value)}`;
      }
      return isDeepStrictEqual(parsed, JSON.parse(expected))
        ? undefined
        : `${clip(value)} is not ${expected}`;
    },
  };
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
