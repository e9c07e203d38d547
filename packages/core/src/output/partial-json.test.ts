import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PartialJsonError, parsePartialJson } from './partial-json.js';

/**
 * Whether `partial` is what a prefix of `whole` may hold: keys and elements only added, every
 * one whole but at most one (the one being written), and a string being written a prefix of its
 * final text.
 */
function extendsTo(partial: unknown, whole: unknown): boolean {
  if (partial === undefined) return true;
  if (typeof whole === 'string') return typeof partial === 'string' && whole.startsWith(partial);
  if (Array.isArray(whole)) {
    if (!Array.isArray(partial) || partial.length > whole.length) return false;
    return partial.every((element, index) =>
      index === partial.length - 1
        ? extendsTo(element, whole[index])
        : JSON.stringify(element) === JSON.stringify(whole[index]),
    );
  }
  if (whole !== null && typeof whole === 'object') {
    if (partial === null || typeof partial !== 'object' || Array.isArray(partial)) return false;
    const record = whole as Record<string, unknown>;
    let growing = 0;
    for (const [key, value] of Object.entries(partial)) {
      if (!Object.hasOwn(record, key) || !extendsTo(value, record[key])) return false;
      if (JSON.stringify(value) !== JSON.stringify(record[key])) growing++;
    }
    return growing <= 1;
  }
  return Object.is(partial, whole) || partial === whole;
}

/** Every prefix of `text` (cut between any two UTF-16 code units) parses and extends the last. */
function checkEveryPrefix(text: string): void {
  const whole = JSON.parse(text) as unknown;
  let last: unknown;
  for (let cut = 0; cut <= text.length; cut++) {
    const { value, complete } = parsePartialJson(text.slice(0, cut));
    expect(extendsTo(value, whole), `prefix ${JSON.stringify(text.slice(0, cut))}`).toBe(true);
    expect(extendsTo(last, value) || last === undefined, `after ${cut}`).toBe(true);
    last = value;
    if (cut === text.length && typeof whole !== 'number') {
      expect(complete).toBe(true);
      expect(value).toEqual(whole);
    }
  }
}

const json = fc.jsonValue({ maxDepth: 4, stringUnit: 'binary' });

describe('parsePartialJson', () => {
  it('parses every prefix of any JSON document into a value the document extends', () => {
    fc.assert(
      fc.property(json, fc.constantFrom(0, 2), (value, indent) => {
        checkEveryPrefix(JSON.stringify(value, null, indent));
      }),
      { numRuns: 300 },
    );
  });

  it('parses every prefix cut at any UTF-8 byte, as a streaming decoder delivers it', () => {
    fc.assert(
      fc.property(json, (value) => {
        const text = JSON.stringify({ output: value, note: 'é😀 "quoted" \\ end' });
        const whole = JSON.parse(text) as unknown;
        const bytes = new TextEncoder().encode(text);
        for (let cut = 0; cut <= bytes.length; cut++) {
          const decoder = new TextDecoder('utf-8', { fatal: true });
          const first = decoder.decode(bytes.subarray(0, cut), { stream: true });
          expect(extendsTo(parsePartialJson(first).value, whole)).toBe(true);
          const all = first + decoder.decode(bytes.subarray(cut));
          expect(parsePartialJson(all)).toEqual({ value: whole, complete: true });
        }
      }),
      { numRuns: 60 },
    );
  });

  it('shows a member once its value has started, and a string as it grows', () => {
    const steps = ['{"answer": "4', '{"answer": "42", "sure": tr', '{"answer": "42", "sure": true'];
    expect(steps.map((text) => parsePartialJson(text).value)).toEqual([
      { answer: '4' },
      { answer: '42' },
      { answer: '42', sure: true },
    ]);
  });

  it('waits for a number to end, a key to close and an escape or surrogate pair to be whole', () => {
    expect(parsePartialJson('{"n": 12').value).toEqual({});
    expect(parsePartialJson('{"n": 12,').value).toEqual({ n: 12 });
    expect(parsePartialJson('{"ke').value).toEqual({});
    expect(parsePartialJson('{"k": "a\\u00').value).toEqual({ k: 'a' });
    expect(parsePartialJson('{"k": "a\\').value).toEqual({ k: 'a' });
    expect(parsePartialJson('{"k": "a\\ud83d').value).toEqual({ k: 'a' });
    expect(parsePartialJson('{"k": "a\\ud83d\\ude00').value).toEqual({ k: 'a😀' });
    expect(parsePartialJson('["x", -').value).toEqual(['x']);
    expect(parsePartialJson('').value).toBeUndefined();
    expect(parsePartialJson('  ')).toEqual({ value: undefined, complete: false });
  });

  it('keeps a __proto__ member as data, as JSON.parse does', () => {
    const { value } = parsePartialJson('{"__proto__": {"polluted": true}}');
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value as object, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses, with the offset, a prefix no continuation can make JSON', () => {
    const cases: [string, number][] = [
      ['{"a" 1}', 5],
      ['{a: 1}', 1],
      ['[1 2]', 3],
      ['{"a": tru e}', 6],
      ['{"a": 01}', 7],
      ['{"a": 1.e5}', 7],
      ['{"a": -x}', 6],
      ['"\u0001"', 1],
      ['"\\x"', 1],
      ['{} {}', 3],
      ['nul!', 0],
    ];
    for (const [text, offset] of cases) {
      let thrown: unknown;
      try {
        parsePartialJson(text);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, text).toBeInstanceOf(PartialJsonError);
      expect((thrown as PartialJsonError).offset, text).toBe(offset);
    }
  });

  it('shows a number standing alone only once something follows it: it may still grow', () => {
    expect(parsePartialJson('12')).toEqual({ value: undefined, complete: false });
    expect(parsePartialJson('12 ')).toEqual({ value: 12, complete: true });
  });

  it('refuses what is not a string with a TypeError', () => {
    expect(() => parsePartialJson(42 as unknown as string)).toThrow(TypeError);
  });
});
