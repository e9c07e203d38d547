import { CancelledError, ProviderError } from '@mh/core';
import { collect } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import { mapAnthropicStream } from './anthropic-stream.js';

const START = { type: 'message_start', message: { id: 'msg_1', model: 'm', usage: {} } };
const TEXT = [
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
];
const STOP = [
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } },
  { type: 'message_stop' },
];

async function* source(events: readonly unknown[], failure?: Error): AsyncGenerator<unknown> {
  yield* events;
  if (failure) throw failure;
}

describe('mapAnthropicStream', () => {
  it('ends with the message when message_stop arrives', async () => {
    const events = await collect(mapAnthropicStream(source([START, ...TEXT, ...STOP])));
    expect(events.at(-1)).toMatchObject({ type: 'message-end', stopReason: 'end' });
  });

  it('throws a retryable network error when the stream ends before message_stop', async () => {
    const error = await collect(mapAnthropicStream(source([START, ...TEXT]))).catch((e) => e);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'network', retryable: true, provider: 'anthropic' });
    expect(error.message).toContain('before message_stop (3 events, last: content_block_delta)');
  });

  it('throws CancelledError when it ended because the signal was aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await collect(mapAnthropicStream(source([START]), controller.signal)).catch(
      (e) => e,
    );
    expect(CancelledError.isInstance(error)).toBe(true);
  });

  it('rethrows a failure before message_stop and ignores one after it', async () => {
    const reset = new TypeError('terminated');
    await expect(collect(mapAnthropicStream(source([START, ...TEXT], reset)))).rejects.toBe(reset);
    const events = await collect(mapAnthropicStream(source([START, ...TEXT, ...STOP], reset)));
    expect(events.filter((event) => event.type === 'message-end')).toHaveLength(1);
  });
});
