import { Anthropic } from '@anthropic-ai/sdk';
import { ConfigError, type Provider, ProviderError, userMessage } from '@mh/core';
import { MAX_TIMEOUT_MS } from '@mh/core/internal';
import { describe, expect, it } from 'vitest';
import { resolveAnthropicOptions } from './anthropic/anthropic-options.js';
import { FakeProvider } from './fake-provider.js';
import { resolveOpenAIOptions } from './openai/openai-options.js';
import { withRetry } from './retrying-provider.js';
import { ScriptedProvider } from './scripted-provider.js';

/** Node arms a timer longer than 2^31 - 1 ms as a 1 ms timer: every such duration is refused. */
const TOO_LONG = 2 ** 31;

const inner: Provider = { name: 'inner', stream: async function* () {} };

/** The field named by the ConfigError `fn` throws; fails the test when it throws none. */
function rejectedField(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (ConfigError.isInstance(error)) {
      expect(error.message).toMatch(/at most 2147483647 ms/);
      return error.field;
    }
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('user-given durations longer than a Node timer can wait', () => {
  it.each(['idleTimeoutMs', 'baseDelayMs', 'maxDelayMs', 'maxRetryAfterMs'] as const)(
    'withRetry rejects %s: 2^31 naming the field',
    (field) => {
      expect(rejectedField(() => withRetry(inner, { [field]: TOO_LONG }))).toBe(field);
    },
  );

  it('withRetry accepts the longest timer Node can arm, and Infinity for maxRetryAfterMs', () => {
    expect(() =>
      withRetry(inner, {
        idleTimeoutMs: MAX_TIMEOUT_MS,
        maxDelayMs: MAX_TIMEOUT_MS,
        maxRetryAfterMs: Number.POSITIVE_INFINITY,
      }),
    ).not.toThrow();
  });

  it('anthropic and openai reject a request timeoutMs of 2^31 naming timeoutMs', () => {
    expect(
      rejectedField(() => resolveAnthropicOptions({ apiKey: 'k', timeoutMs: TOO_LONG }, {})),
    ).toBe('timeoutMs');
    expect(
      rejectedField(() => resolveOpenAIOptions({ apiKey: 'k', timeoutMs: TOO_LONG }, 'chat', {})),
    ).toBe('timeoutMs');
    expect(
      resolveAnthropicOptions(
        { client: new Anthropic({ apiKey: 'k' }), timeoutMs: MAX_TIMEOUT_MS },
        {},
      ).timeoutMs,
    ).toBe(MAX_TIMEOUT_MS);
  });

  it('the fake and scripted providers reject a delayMs of 2^31 naming it', () => {
    expect(rejectedField(() => new FakeProvider({ delayMs: TOO_LONG }))).toBe('delayMs');
    expect(rejectedField(() => new ScriptedProvider([{ text: 'hi', delayMs: TOO_LONG }]))).toBe(
      'turns[0].delayMs',
    );
  });

  it('with maxRetryAfterMs: Infinity, waits for a server retry-after and retries', async () => {
    const soon = new ProviderError('slow down', {
      kind: 'rate-limit',
      status: 429,
      retryAfterMs: 5,
    });
    const scripted = new ScriptedProvider([{ error: soon }, { text: 'ok' }]);
    const provider = withRetry(scripted, { maxRetryAfterMs: Number.POSITIVE_INFINITY });
    const request = { model: 'm', messages: [userMessage('hi')], tools: [] };
    const types: string[] = [];
    for await (const event of provider.stream(request)) types.push(event.type);
    expect(types.at(-1)).toBe('message-end');
    expect(scripted.requests).toHaveLength(2);
  });

  it('does not retry after 1 ms when a server asks to wait longer than a timer can', async () => {
    const far = new ProviderError('come back in a month', {
      kind: 'rate-limit',
      status: 429,
      retryAfterMs: TOO_LONG,
    });
    const scripted = new ScriptedProvider([{ error: far }, { text: 'too soon' }]);
    const provider = withRetry(scripted, { maxRetryAfterMs: Number.POSITIVE_INFINITY });
    const request = { model: 'm', messages: [userMessage('hi')], tools: [] };
    await expect(
      (async () => {
        for await (const _event of provider.stream(request)) {
          // drained
        }
      })(),
    ).rejects.toBe(far);
    expect(scripted.requests).toHaveLength(1);
  });
});
