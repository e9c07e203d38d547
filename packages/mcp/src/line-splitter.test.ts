import { describe, expect, it } from 'vitest';
import { LineSplitter } from './line-splitter.js';

describe('LineSplitter', () => {
  it('joins lines split across chunks', () => {
    const splitter = new LineSplitter(100);
    expect(splitter.push(Buffer.from('{"a":'))).toEqual([]);
    expect(splitter.push(Buffer.from('1}\r\n{"b":2}\n{'))).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('fails once a line exceeds the cap, without buffering past it', () => {
    const splitter = new LineSplitter(10);
    expect(splitter.push(Buffer.from('12345'))).toEqual([]);
    expect(splitter.push(Buffer.from('678901'))).toBeUndefined();
    expect(splitter.push(Buffer.from('\n{}\n'))).toBeUndefined();
  });
});
