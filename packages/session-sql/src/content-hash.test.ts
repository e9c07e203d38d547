import type { Message } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { checkpointId, encodeMessage, encodeMeta, fromHex, toHex } from './content-hash.js';

const message: Message = { id: 'm1', role: 'user', content: [{ type: 'text', text: 'hi' }] };

describe('content hashing', () => {
  it('hashes the canonical JSON, so key order does not matter', () => {
    const reordered = {
      content: [{ text: 'hi', type: 'text' }],
      role: 'user',
      id: 'm1',
    } as Message;
    expect(encodeMessage(reordered).hash).toEqual(encodeMessage(message).hash);
    expect(encodeMessage(message).body).toBe(
      '{"content":[{"text":"hi","type":"text"}],"id":"m1","role":"user"}',
    );
  });

  it('derives checkpoint ids from session, parent, messages and meta', () => {
    const encoded = [encodeMessage(message)];
    const id = toHex(checkpointId('s', null, encoded, '{}'));
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    expect(toHex(checkpointId('s', null, encoded, '{}'))).toBe(id);
    expect(toHex(checkpointId('t', null, encoded, '{}'))).not.toBe(id);
    expect(toHex(checkpointId('s', id, encoded, '{}'))).not.toBe(id);
    expect(toHex(checkpointId('s', null, encoded, '{"model":"x"}'))).not.toBe(id);
  });

  it('rejects metadata that is not an object and ids that are not hex', () => {
    expect(() => encodeMeta([] as never)).toThrow(/meta/);
    expect(() => fromHex('xyz', 'checkpointId')).toThrow(/unknown checkpoint "xyz"/);
    expect(fromHex('ab'.repeat(32), 'checkpointId')).toHaveLength(32);
  });
});
