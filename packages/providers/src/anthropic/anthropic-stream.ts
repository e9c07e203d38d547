import { CancelledError, ProviderError, type StreamEvent } from '@mh/core';
import { MessageAssembler } from './message-assembler.js';

/**
 * Maps the SDK's raw Messages stream events to unified `StreamEvent`s, ending with exactly one
 * `message-end`. A stream that ends before `message_stop` throws: `CancelledError` when `signal`
 * was aborted (the SDK ends its iterator silently on abort), else a retryable `network`
 * `ProviderError` that says how far it got. Anything after `message_stop`, errors included, is
 * ignored: the message is already complete.
 */
export async function* mapAnthropicStream(
  events: AsyncIterable<unknown>,
  signal?: AbortSignal,
): AsyncGenerator<StreamEvent> {
  const assembler = new MessageAssembler();
  let received = 0;
  let last = 'none';
  try {
    for await (const raw of events) {
      if (assembler.ended) continue;
      received++;
      const type = (raw as { type?: unknown } | null)?.type;
      last = typeof type === 'string' ? type : 'unknown';
      yield* assembler.accept(raw);
    }
  } catch (error) {
    if (!assembler.ended) throw error;
  }
  if (assembler.ended) return;
  if (signal?.aborted) throw new CancelledError('Anthropic stream cancelled');
  throw new ProviderError(
    `Anthropic stream ended before message_stop (${received} events, last: ${last})`,
    { kind: 'network', provider: 'anthropic' },
  );
}
