/**
 * What a prefix of a JSON document holds so far (see `parsePartialJson`).
 * - `value`: the partial value, `undefined` while not even its start is known.
 * - `complete`: the prefix is one whole JSON value (trailing white space allowed).
 */
export interface PartialJson {
  readonly value: unknown;
  readonly complete: boolean;
}

/** A prefix that can never become JSON: the text is not JSON, whatever follows. */
export class PartialJsonError extends Error {
  override readonly name = 'PartialJsonError';
  /** Where in the text the parser gave up (UTF-16 index). */
  readonly offset: number;

  constructor(message: string, offset: number) {
    super(`${message} at offset ${offset}`);
    this.offset = offset;
  }
}

/** Thrown inside the parser when the text ends before the value being read does. */
const END = Symbol('end');

const WHITE_SPACE = new Set([' ', '\t', '\n', '\r']);
const ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/;
/** The texts a number can start with: a sign, an integer, then a fraction or exponent begun. */
const NUMBER_PREFIX = /^-?(?:(?:0|[1-9]\d*)(?:\.\d*|(?:\.\d+)?[eE][+-]?\d*)?)?$/;

/**
 * Parses a prefix of a JSON document, as a model streams it, into the value it holds so far:
 * - objects hold the members whose value has started; a member whose key is still being written
 *   is left out, so every key present is final;
 * - arrays hold the elements that have started;
 * - a string being written holds the text so far (an escape or surrogate pair cut in the middle
 *   is left out until it is whole);
 * - a number, `true`, `false` or `null` appears only once it is whole (a number only once
 *   something follows it, since `1` may still become `12`).
 * A number standing alone (the whole document) is shown once white space follows it.
 * So each result of a longer prefix extends the last: keys and elements are only added, and only
 * the last string can grow. Throws `PartialJsonError` when no continuation could make the text
 * JSON. O(length of the text).
 */
export function parsePartialJson(text: string): PartialJson {
  if (typeof text !== 'string') throw new TypeError('parsePartialJson: expected a string');
  const parser = new PrefixParser(text);
  parser.skipWhiteSpace();
  if (parser.atEnd) return { value: undefined, complete: false };
  const read = parser.value();
  if (!read.complete) return { value: read.value, complete: false };
  parser.skipWhiteSpace();
  if (!parser.atEnd) parser.fail('unexpected text after the JSON value');
  return { value: read.value, complete: true };
}

/** One value read from the prefix: whole, or cut by the end of the text. */
interface Read {
  readonly value: unknown;
  readonly complete: boolean;
}

class PrefixParser {
  readonly #text: string;
  #at = 0;

  constructor(text: string) {
    this.#text = text;
  }

  get atEnd(): boolean {
    return this.#at >= this.#text.length;
  }

  fail(message: string): never {
    throw new PartialJsonError(message, this.#at);
  }

  skipWhiteSpace(): void {
    while (this.#at < this.#text.length && WHITE_SPACE.has(this.#text[this.#at] as string))
      this.#at++;
  }

  /** Reads a value that starts here (the text does not end here). */
  value(): Read {
    const char = this.#text[this.#at];
    if (char === '{') return this.#object();
    if (char === '[') return this.#array();
    if (char === '"') return this.#string();
    if (char === 't') return this.#literal('true', true);
    if (char === 'f') return this.#literal('false', false);
    if (char === 'n') return this.#literal('null', null);
    if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) return this.#number();
    return this.fail(`unexpected ${JSON.stringify(char)}`);
  }

  #object(): Read {
    const object: Record<string, unknown> = {};
    this.#at++; // {
    this.skipWhiteSpace();
    if (this.atEnd) return { value: object, complete: false };
    if (this.#text[this.#at] === '}') {
      this.#at++;
      return { value: object, complete: true };
    }
    for (;;) {
      if (this.#text[this.#at] !== '"') this.fail('expected a member name');
      const key = this.#string();
      // A key still being written could end up another key: leave the member out.
      if (!key.complete) return { value: object, complete: false };
      this.skipWhiteSpace();
      if (this.atEnd) return { value: object, complete: false };
      if (this.#text[this.#at] !== ':') this.fail("expected ':' after a member name");
      this.#at++;
      this.skipWhiteSpace();
      if (this.atEnd) return { value: object, complete: false };
      const member = this.value();
      // A number or literal that has not ended yet is not shown: the member waits for it.
      if (member.value !== undefined) define(object, key.value as string, member.value);
      if (!member.complete) return { value: object, complete: false };
      this.skipWhiteSpace();
      if (this.atEnd) return { value: object, complete: false };
      const next = this.#text[this.#at];
      if (next !== '}' && next !== ',') this.fail("expected ',' or '}' in an object");
      this.#at++;
      if (next === '}') return { value: object, complete: true };
      this.skipWhiteSpace();
      if (this.atEnd) return { value: object, complete: false };
    }
  }

  #array(): Read {
    const array: unknown[] = [];
    this.#at++; // [
    this.skipWhiteSpace();
    if (this.atEnd) return { value: array, complete: false };
    if (this.#text[this.#at] === ']') {
      this.#at++;
      return { value: array, complete: true };
    }
    for (;;) {
      const element = this.value();
      if (element.value !== undefined) array.push(element.value);
      if (!element.complete) return { value: array, complete: false };
      this.skipWhiteSpace();
      if (this.atEnd) return { value: array, complete: false };
      const next = this.#text[this.#at];
      if (next !== ']' && next !== ',') this.fail("expected ',' or ']' in an array");
      this.#at++;
      if (next === ']') return { value: array, complete: true };
      this.skipWhiteSpace();
      if (this.atEnd) return { value: array, complete: false };
    }
  }

  #string(): Read {
    const text = this.#text;
    this.#at++; // "
    let value = '';
    let runStart = this.#at;
    while (this.#at < text.length) {
      const code = text.charCodeAt(this.#at);
      if (code === 0x22) {
        value += text.slice(runStart, this.#at);
        this.#at++;
        return { value, complete: true };
      }
      if (code < 0x20) this.fail('a control character in a string');
      if (code === 0x5c) {
        value += text.slice(runStart, this.#at);
        const escaped = this.#escape();
        if (escaped === END) return { value: withoutLoneHighSurrogate(value), complete: false };
        value += escaped;
        runStart = this.#at;
        continue;
      }
      this.#at++;
    }
    value += text.slice(runStart);
    return { value: withoutLoneHighSurrogate(value), complete: false };
  }

  /** Reads the escape at `\`; END when the text ends inside it. */
  #escape(): string | typeof END {
    const text = this.#text;
    const kind = text[this.#at + 1];
    if (kind === undefined) return END;
    if (kind !== 'u') {
      const plain = ESCAPES[kind];
      if (plain === undefined) this.fail(`an invalid escape \\${kind}`);
      this.#at += 2;
      return plain;
    }
    const hex = text.slice(this.#at + 2, this.#at + 6);
    if (!/^[0-9a-fA-F]*$/.test(hex)) this.fail('an invalid \\u escape');
    if (hex.length < 4) return END;
    this.#at += 6;
    return String.fromCharCode(Number.parseInt(hex, 16));
  }

  #literal(word: string, value: unknown): Read {
    const available = this.#text.slice(this.#at, this.#at + word.length);
    if (!word.startsWith(available)) this.fail(`expected ${word}`);
    if (available.length < word.length) {
      this.#at = this.#text.length;
      return { value: undefined, complete: false };
    }
    this.#at += word.length;
    return { value, complete: true };
  }

  #number(): Read {
    const rest = this.#text.slice(this.#at);
    // The text ends in the number (or in its sign, fraction or exponent): it may go on.
    if (NUMBER_PREFIX.test(rest)) {
      this.#at = this.#text.length;
      return { value: undefined, complete: false };
    }
    const match = NUMBER.exec(rest);
    if (!match) this.fail('an invalid number');
    this.#at += match[0].length;
    return { value: Number(match[0]), complete: true };
  }
}

/** Sets a member, `__proto__` included, as JSON.parse does (an own property, not the prototype). */
function define(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/** A string cut between the two halves of a surrogate pair shows neither half yet. */
function withoutLoneHighSurrogate(value: string): string {
  const last = value.charCodeAt(value.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? value.slice(0, -1) : value;
}
