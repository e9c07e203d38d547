import { describe, expect, it } from 'vitest';
import { packBody, unpackBody } from './message-codec.js';

describe('packBody', () => {
  it('deflates a body when that saves space, and round-trips it', () => {
    const json = JSON.stringify({ text: 'a session branch checkpoint '.repeat(40) });
    const packed = packBody(json);
    expect(packed.codec).toBe(1);
    expect(packed.body.length).toBeLessThan(json.length / 2);
    expect(unpackBody(packed.codec, packed.body)).toBe(json);
  });

  it('keeps small bodies as plain UTF-8, readable in SQL', () => {
    const small = JSON.stringify({ text: 'hi ✓ '.repeat(20) });
    expect(packBody(small)).toEqual({ codec: 0, body: Buffer.from(small, 'utf8') });
    expect(unpackBody(0, packBody(small).body)).toBe(small);
  });

  it('refuses a codec it does not know', () => {
    expect(() => unpackBody(7, Buffer.from('x'))).toThrow(/codec 7/);
  });
});
