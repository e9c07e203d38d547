import { describe, expect, it } from 'vitest';
import { parseToolArguments } from './tool-arguments.js';

describe('parseToolArguments', () => {
  it('parses a JSON object', () => {
    expect(parseToolArguments('{"a":1}')).toEqual({ input: { a: 1 } });
  });

  it('reads empty or blank text as no arguments', () => {
    expect(parseToolArguments('')).toEqual({ input: {} });
    expect(parseToolArguments('  \n')).toEqual({ input: {} });
  });

  it('keeps truncated JSON as rawInput with input {}', () => {
    expect(parseToolArguments('{"a": "b')).toEqual({ input: {}, rawInput: '{"a": "b' });
  });

  it('keeps JSON that is not an object as rawInput', () => {
    expect(parseToolArguments('[1,2]')).toEqual({ input: {}, rawInput: '[1,2]' });
    expect(parseToolArguments('null')).toEqual({ input: {}, rawInput: 'null' });
    expect(parseToolArguments('"text"')).toEqual({ input: {}, rawInput: '"text"' });
  });
});
