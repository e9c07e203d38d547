import { describe, expect, it } from 'vitest';
import { parseToolInput } from './tool-input.js';

describe('parseToolInput', () => {
  it('parses a JSON object', () => {
    expect(parseToolInput('{"location": "Paris"}')).toEqual({ input: { location: 'Paris' } });
  });

  it('gives {} for empty text and for the literal ""', () => {
    expect(parseToolInput('')).toEqual({ input: {} });
    expect(parseToolInput('  ')).toEqual({ input: {} });
    expect(parseToolInput('""')).toEqual({ input: {} });
  });

  it('keeps JSON cut off mid-way as rawInput with input {}', () => {
    const raw = '{"filename": "taxes.txt", "lines_of_text": ["# GUIDE",';
    expect(parseToolInput(raw)).toEqual({ input: {}, rawInput: raw });
  });

  it('keeps valid JSON that is not an object as rawInput', () => {
    expect(parseToolInput('[1, 2]')).toEqual({ input: {}, rawInput: '[1, 2]' });
    expect(parseToolInput('"Paris"')).toEqual({ input: {}, rawInput: '"Paris"' });
    expect(parseToolInput('null')).toEqual({ input: {}, rawInput: 'null' });
  });
});
