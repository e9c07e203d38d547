import type { Message } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { vendorSerializers } from './vendor-serializers.js';

const prompt: Message = { id: 'u1', role: 'user', content: [{ type: 'text', text: 'hi' }] };
const call: Message = {
  id: 'a1',
  role: 'assistant',
  content: [{ type: 'tool_use', id: 'c1', name: 'read_note', input: {} }],
};
const answer: Message = {
  id: 'u2',
  role: 'user',
  content: [
    {
      type: 'tool_result',
      toolUseId: 'c1',
      content: [{ type: 'text', text: 'ok' }],
      isError: false,
    },
  ],
};

describe('the conformance suite vendor serializers', () => {
  it('build a paired history through each real serialiser', async () => {
    for (const serializer of vendorSerializers())
      await expect(
        Promise.resolve(serializer.build([prompt, call, answer])),
      ).resolves.not.toThrow();
  });

  it('refuse a call left without its result, as the APIs do', async () => {
    const [messages, chat] = vendorSerializers();
    await expect(Promise.resolve(messages?.build([prompt, call]))).rejects.toThrow(/unanswered/);
    await expect(Promise.resolve(chat?.build([prompt, call]))).rejects.toThrow(/unanswered/);
  });

  it('refuse a thinking block in a user turn (Anthropic)', async () => {
    const [messages] = vendorSerializers();
    const thinking: Message = {
      id: 'u3',
      role: 'user',
      content: [{ type: 'thinking', thinking: 'x', signature: 's' }],
    };
    await expect(Promise.resolve(messages?.build([thinking]))).rejects.toThrow(/thinking block/);
  });
});
