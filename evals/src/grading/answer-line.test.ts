import { describe, expect, it } from 'vitest';
import { finalAnswerLine, undecorated } from './answer-line.js';

describe('finalAnswerLine', () => {
  it('reads the last ANSWER line when the model corrected itself', () => {
    expect(finalAnswerLine('ANSWER: 6\nWait, no.\nANSWER: 7')?.value).toBe('7');
  });

  it('tolerates markdown bold around the label', () => {
    expect(finalAnswerLine('Done.\n**ANSWER:** 42')?.value).toBe('42');
    expect(finalAnswerLine('**ANSWER**: 42')?.value).toBe('42');
  });

  it('keeps the line as written, for strict format checks', () => {
    expect(finalAnswerLine('ANSWER: a, b  ')).toEqual({ line: 'ANSWER: a, b', value: 'a, b' });
  });

  it('finds no answer when the label is not at the start of a line', () => {
    expect(finalAnswerLine('The ANSWER: is 6')).toBeUndefined();
    expect(finalAnswerLine('')).toBeUndefined();
  });
});

describe('undecorated', () => {
  it('strips emphasis, code spans, quotes and a final full stop', () => {
    expect(undecorated('**`Ada Okafor`**.')).toBe('Ada Okafor');
    expect(undecorated('"db-x.internal"')).toBe('db-x.internal');
    expect(undecorated('“KESTREL”')).toBe('KESTREL');
  });

  it('leaves inner punctuation alone', () => {
    expect(undecorated('3.50')).toBe('3.50');
    expect(undecorated('a,b')).toBe('a,b');
  });
});
