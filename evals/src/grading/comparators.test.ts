import { describe, expect, it } from 'vitest';
import { exactAnswer, jsonAnswer, numberAnswer, textAnswer } from './comparators.js';

describe('numberAnswer', () => {
  const money = numberAnswer(2);

  it('accepts the number with separators, currency and decoration', () => {
    for (const value of ['1234.50', '1,234.50', '1234.5 EUR', '€1234.50', '**1234.50**'])
      expect(money.mismatch(value, '1234.50'), value).toBeUndefined();
  });

  it('rejects a cent off, and several numbers at once', () => {
    expect(money.mismatch('1234.51', '1234.50')).toContain('is not');
    expect(money.mismatch('6 dtk_abc123', '6')).toContain('not a single number');
    expect(numberAnswer(0).mismatch('7', '6')).toBe('7 is not 6');
  });
});

describe('textAnswer', () => {
  it('ignores case, decoration and repeated spaces', () => {
    expect(textAnswer().mismatch('`ada   okafor`', 'Ada Okafor')).toBeUndefined();
  });

  it('rejects another text', () => {
    expect(textAnswer().mismatch('Ada Moreau', 'Ada Okafor')).toBeDefined();
  });
});

describe('exactAnswer', () => {
  it('accepts only the same characters', () => {
    expect(exactAnswer().mismatch('a,b', 'a,b')).toBeUndefined();
    expect(exactAnswer().mismatch('a, b', 'a,b')).toBeDefined();
    expect(exactAnswer().mismatch('`a,b`', 'a,b')).toBeDefined();
  });
});

describe('jsonAnswer', () => {
  const json = jsonAnswer();

  it('accepts equal JSON in any key order and spacing', () => {
    expect(json.mismatch('{"qty": 3, "sku": "S-1"}', '{"sku":"S-1","qty":3}')).toBeUndefined();
  });

  it('rejects a string for a number, extra keys and text around the JSON', () => {
    expect(json.mismatch('{"sku":"S-1","qty":"3"}', '{"sku":"S-1","qty":3}')).toBeDefined();
    expect(json.mismatch('{"sku":"S-1","qty":3,"x":1}', '{"sku":"S-1","qty":3}')).toBeDefined();
    expect(json.mismatch('`{"sku":"S-1","qty":3}`', '{"sku":"S-1","qty":3}')).toContain('not JSON');
  });
});
