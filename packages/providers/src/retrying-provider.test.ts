import {
  CancelledError,
  type ModelRequest,
  type Provider,
  ProviderError,
  type ProviderErrorKind,
  type RunResult,
  type StreamEvent,
  type Usage,
  userMessage,
} from '@mh/core';
import { collectSettled, ManualClock, type Settled } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import { attemptsOf } from './retry-attempts.js';
import type { RetryInfo, WithRetryOptions } from './retry-options.js';
import { withRetry } from './retrying-provider.js';
import { ScriptedProvider, type ScriptStep } from './scripted-provider.js';

const macrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Runs `promise` to the end, moving the clock whenever nothing else can make progress. */
async function drive<T>(clock: ManualClock, promise: Promise<T>): Promise<T> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  for (let turn = 0; turn < 200 && !settled; turn++) {
    await macrotask();
    if (!settled) clock.advanceToNext();
  }
  return promise;
}

const request: ModelRequest = { model: 'test-model', messages: [userMessage('hi')], tools: [] };

interface Call {
  readonly at: number;
  readonly request: ModelRequest;
  readonly signal: AbortSignal | undefined;
}

/** A scripted provider behind a spy that records when each attempt started, and its signal. */
function spied(steps: readonly ScriptStep[], clock: ManualClock) {
  const inner = new ScriptedProvider(steps, { chunkChars: 5 });
  const calls: Call[] = [];
  const provider: Provider = {
    name: inner.name,
    stream: (request, options) => {
      calls.push({ at: clock.now(), request, signal: options?.signal });
      return inner.stream(request, options);
    },
  };
  return { provider, calls };
}

/** A provider that plays `play(attempt, signal)` for attempt 1, 2, … */
function custom(
  play: (attempt: number, signal: AbortSignal | undefined) => AsyncIterable<StreamEvent>,
): Provider & { readonly attempts: number } {
  let attempts = 0;
  return {
    name: 'custom',
    get attempts() {
      return attempts;
    },
    stream: (_request, options) => play(++attempts, options?.signal),
  };
}

function messageEnd(text: string, usage: Usage): StreamEvent {
  return {
    type: 'message-end',
    stopReason: 'end',
    message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text }] },
    usage,
  };
}

const usageOf = (inputTokens: number, outputTokens: number): Usage => ({
  inputTokens,
  outputTokens,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
});

const serverError = (message = 'server error'): ProviderError =>
  new ProviderError(message, { kind: 'server', status: 500 });

function setup(steps: readonly ScriptStep[], options: WithRetryOptions = {}) {
  const clock = new ManualClock(0);
  const { provider: inner, calls } = spied(steps, clock);
  const retries: RetryInfo[] = [];
  const provider = withRetry(inner, {
    clock,
    random: () => 0.5,
    onRetry: (info) => retries.push(info),
    ...options,
  });
  const run = (signal?: AbortSignal): Promise<Settled<StreamEvent>> =>
    drive(clock, collectSettled(provider.stream(request, { signal })));
  return { clock, calls, retries, provider, run };
}

const textOf = (events: readonly StreamEvent[]): string =>
  events.map((event) => (event.type === 'text-delta' ? event.text : '')).join('');

const resets = (events: readonly StreamEvent[]) =>
  events.filter((event) => event.type === 'stream-reset');

describe('withRetry', () => {
  it('takes the inner provider name and passes a clean stream through unchanged', async () => {
    const { provider, run, calls } = setup([{ text: 'Hello there' }]);
    const { items: events, error } = await run();
    expect(provider.name).toBe('scripted');
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe('Hello there');
    expect(events.at(-1)?.type).toBe('message-end');
    expect(calls).toHaveLength(1);
  });

  it('retries a 429 after at least its retryAfterMs and then succeeds', async () => {
    const limited = new ProviderError('slow down', {
      kind: 'rate-limit',
      status: 429,
      retryAfterMs: 2000,
    });
    const { run, calls, retries } = setup([{ error: limited }, { text: 'ok' }]);
    const { items: events, error } = await run();
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe('ok');
    expect(calls).toHaveLength(2);
    expect((calls[1]?.at ?? 0) - (calls[0]?.at ?? 0)).toBeGreaterThanOrEqual(2000);
    expect(retries).toEqual([{ attempt: 1, error: limited, delayMs: 2000 }]);
  });

  it('sends the very same request object on every attempt', async () => {
    const { run, calls } = setup([{ error: serverError() }, { error: serverError() }, {}]);
    await run();
    expect(calls.map((call) => call.request)).toEqual([request, request, request]);
    expect(calls.every((call) => call.request === request)).toBe(true);
  });

  it.each<ProviderErrorKind>(['quota', 'auth', 'bad-request', 'context-overflow'])(
    'never retries a %s error, even one marked retryable',
    async (kind) => {
      const failure = new ProviderError(`${kind} failure`, { kind, status: 429, retryable: true });
      const { run, calls, retries } = setup([{ error: failure }, { text: 'never reached' }]);
      const { error } = await run();
      expect(error).toBe(failure);
      expect(calls).toHaveLength(1);
      expect(retries).toEqual([]);
      expect(attemptsOf(error)).toBe(1);
    },
  );

  it('does not retry a ProviderError marked not retryable', async () => {
    const failure = new ProviderError('x-should-retry: false', {
      kind: 'server',
      status: 503,
      retryable: false,
    });
    const { run, calls } = setup([{ error: failure }, { text: 'never reached' }]);
    expect((await run()).error).toBe(failure);
    expect(calls).toHaveLength(1);
  });

  it('does not retry an error that is not a ProviderError', async () => {
    const bug = new TypeError('adapter bug');
    const { run, calls } = setup([{ error: bug }, { text: 'never reached' }]);
    const { error } = await run();
    expect(error).toBe(bug);
    expect(calls).toHaveLength(1);
    expect(attemptsOf(bug)).toBe(1);
  });

  it('rethrows at once, retryAfterMs intact, when retry-after exceeds maxRetryAfterMs', async () => {
    const tomorrow = new ProviderError('come back tomorrow', {
      kind: 'rate-limit',
      status: 429,
      retryAfterMs: 86_400_000,
    });
    const { run, calls, clock, retries } = setup([{ error: tomorrow }, { text: 'later' }], {
      maxRetryAfterMs: 10_000,
    });
    const { error } = await run();
    expect(error).toBe(tomorrow);
    expect((error as ProviderError).retryAfterMs).toBe(86_400_000);
    expect(calls).toHaveLength(1);
    expect(retries).toEqual([]);
    expect(clock.now()).toBe(0);
  });

  it('retries a 500 up to maxAttempts, then throws the last error with the attempts made', async () => {
    const errors = [1, 2, 3, 4].map((n) => serverError(`failure ${n}`));
    const { run, calls, retries } = setup(
      errors.map((error) => ({ error })),
      { maxAttempts: 4 },
    );
    const { error } = await run();
    expect(error).toBe(errors[3]);
    expect(calls).toHaveLength(4);
    expect(attemptsOf(error)).toBe(4);
    expect(retries.map((info) => info.attempt)).toEqual([1, 2, 3]);
  });

  it('waits a full-jitter backoff that doubles per retry up to maxDelayMs', async () => {
    const steps = [1, 2, 3].map(() => ({ error: serverError() }));
    const { run, retries } = setup([...steps, { text: 'ok' }], {
      maxAttempts: 4,
      baseDelayMs: 100,
      maxDelayMs: 150,
    });
    await run();
    expect(retries.map((info) => info.delayMs)).toEqual([50, 75, 75]);
  });

  it('counts attempts per model call', async () => {
    const { provider, clock, calls } = setup([
      { error: serverError() },
      { error: serverError() },
      { text: 'first' },
      { error: serverError() },
      { error: serverError() },
      { text: 'second' },
    ]);
    const first = await drive(clock, collectSettled(provider.stream(request)));
    const second = await drive(clock, collectSettled(provider.stream(request)));
    expect([textOf(first.items), textOf(second.items)]).toEqual(['first', 'second']);
    expect(calls).toHaveLength(6);
  });
});

describe('withRetry on a stream broken midway', () => {
  const text = 'The answer is forty-two.';

  it('retracts the partial output with one stream-reset, then replays the call in full', async () => {
    const { run, calls } = setup([
      { text, failAfterEvents: 3, error: serverError('overloaded mid-stream') },
      { text },
    ]);
    const { items: events, error } = await run();
    expect(error).toBeUndefined();
    expect(calls).toHaveLength(2);
    const reset = resets(events);
    expect(reset).toEqual([
      { type: 'stream-reset', attempt: 2, reason: 'server: overloaded mid-stream' },
    ]);
    const after = events.slice(events.indexOf(reset[0] as StreamEvent) + 1);
    expect(textOf(events.slice(0, events.indexOf(reset[0] as StreamEvent)))).toBe('The answer');
    expect(textOf(after)).toBe(text);
    expect(after[0]?.type).toBe('message-start');
  });

  it('puts the failed attempt usage on the stream-reset when it reported one', async () => {
    // Events: message-start, 5 text deltas, usage, message-end: fail just before message-end.
    const { run } = setup([
      { text, usage: usageOf(120, 9), failAfterEvents: 7 },
      { text, usage: usageOf(120, 10) },
    ]);
    const { items: events } = await run();
    expect(resets(events)).toEqual([
      {
        type: 'stream-reset',
        attempt: 2,
        reason: 'network: Stream broke',
        usage: usageOf(120, 9),
      },
    ]);
  });

  it('keeps the largest value of each usage field across running usage events', async () => {
    const provider = custom(async function* (attempt) {
      yield { type: 'message-start' };
      yield { type: 'usage', usage: usageOf(300, 1) };
      yield { type: 'text-delta', text: 'partial' };
      yield { type: 'usage', usage: usageOf(0, 25) };
      if (attempt === 1) throw serverError();
      yield messageEnd('partial', usageOf(300, 25));
    });
    const clock = new ManualClock(0);
    const retrying = withRetry(provider, { clock });
    const { items: events } = await drive(clock, collectSettled(retrying.stream(request)));
    expect(resets(events)).toMatchObject([{ usage: usageOf(300, 25) }]);
  });

  it('sends no stream-reset when the attempt failed before its first event', async () => {
    const { run } = setup([{ error: serverError() }, { text }]);
    const { items: events } = await run();
    expect(resets(events)).toEqual([]);
    expect(textOf(events)).toBe(text);
  });

  it('retracts once per broken attempt, not for a later attempt that failed before any event', async () => {
    const { run } = setup([{ text, failAfterEvents: 2 }, { error: serverError() }, { text }]);
    const { items: events, error } = await run();
    expect(error).toBeUndefined();
    expect(resets(events).map((event) => event.type === 'stream-reset' && event.attempt)).toEqual([
      2,
    ]);
    const last = events.lastIndexOf(resets(events)[0] as StreamEvent);
    expect(textOf(events.slice(last + 1))).toBe(text);
  });

  it('retries a stream that ends without message-end as a network error', async () => {
    const provider = custom(async function* (attempt) {
      yield { type: 'message-start' };
      yield { type: 'text-delta', text: 'half' };
      if (attempt === 2) yield messageEnd('half', usageOf(1, 1));
    });
    const clock = new ManualClock(0);
    const { items: events, error } = await drive(
      clock,
      collectSettled(withRetry(provider, { clock }).stream(request)),
    );
    expect(error).toBeUndefined();
    expect(provider.attempts).toBe(2);
    expect(resets(events)).toMatchObject([
      { attempt: 2, reason: expect.stringMatching(/^network/) },
    ]);
  });

  it('stops reading after message-end, so a complete message is never retried', async () => {
    const provider = custom(async function* () {
      yield { type: 'message-start' };
      yield messageEnd('done', usageOf(1, 1));
      throw serverError('after the end');
    });
    const clock = new ManualClock(0);
    const { items: events, error } = await drive(
      clock,
      collectSettled(withRetry(provider, { clock }).stream(request)),
    );
    expect(error).toBeUndefined();
    expect(events.map((event) => event.type)).toEqual(['message-start', 'message-end']);
    expect(provider.attempts).toBe(1);
  });
});

describe('withRetry idle timeout', () => {
  it('aborts a silent attempt after idleTimeoutMs and retries it', async () => {
    const { run, calls, retries } = setup(
      [{ text: 'Hello', hangAfterEvents: 2 }, { text: 'Hello' }],
      { idleTimeoutMs: 5000 },
    );
    const { items: events, error } = await run();
    expect(error).toBeUndefined();
    expect(calls[0]?.signal?.aborted).toBe(true);
    expect(retries[0]?.error).toMatchObject({ kind: 'timeout', retryable: true });
    // Aborted exactly at the limit (the backoff of the retry follows).
    expect((calls[1]?.at ?? 0) - (retries[0]?.delayMs ?? 0)).toBe(5000);
    expect(resets(events)).toMatchObject([
      { attempt: 2, reason: expect.stringMatching(/^timeout/) },
    ]);
    expect(textOf(events.slice(events.findIndex((event) => event.type === 'stream-reset')))).toBe(
      'Hello',
    );
  });

  it('fails with a retryable timeout ProviderError when maxAttempts is 1', async () => {
    const { run, calls } = setup([{ text: 'Hello', hangAfterEvents: 1 }], {
      idleTimeoutMs: 5000,
      maxAttempts: 1,
    });
    const { error } = await run();
    expect(ProviderError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'timeout', retryable: true, provider: 'scripted' });
    expect(attemptsOf(error)).toBe(1);
    expect(calls[0]?.signal?.aborted).toBe(true);
  });

  it('restarts the timer at every event, so a slow but steady stream is not cut', async () => {
    const clock = new ManualClock(0);
    const provider = custom(async function* (_attempt, signal) {
      yield { type: 'message-start' };
      for (const part of ['a', 'b', 'c']) {
        await clock.sleep(4000, signal);
        yield { type: 'text-delta', text: part };
      }
      yield messageEnd('abc', usageOf(1, 3));
    });
    const retrying = withRetry(provider, { clock, idleTimeoutMs: 5000 });
    const { items: events, error } = await drive(clock, collectSettled(retrying.stream(request)));
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe('abc');
    expect(clock.now()).toBe(12_000);
    expect(provider.attempts).toBe(1);
  });

  it('arms no idle timer when idleTimeoutMs is 0', async () => {
    const { provider, clock, calls } = setup([{ text: 'Hello', hangAfterEvents: 2 }], {
      idleTimeoutMs: 0,
    });
    const controller = new AbortController();
    const outcome = collectSettled(provider.stream(request, { signal: controller.signal }));
    for (let turn = 0; turn < 5; turn++) await macrotask();
    expect(clock.pendingTimers).toBe(0);
    controller.abort();
    const { error } = await outcome;
    expect(CancelledError.isInstance(error)).toBe(true);
    expect(calls).toHaveLength(1);
  });
});

describe('withRetry cancellation', () => {
  it('stops at once with CancelledError when aborted during a backoff sleep', async () => {
    const { provider, clock, calls } = setup([{ error: serverError() }, { text: 'never' }]);
    const controller = new AbortController();
    const outcome = collectSettled(provider.stream(request, { signal: controller.signal }));
    while (clock.pendingTimers === 0) await macrotask();
    controller.abort();
    const { error } = await outcome;
    expect(CancelledError.isInstance(error)).toBe(true);
    expect(calls).toHaveLength(1);
    expect(clock.pendingTimers).toBe(0);
    expect(clock.now()).toBe(0);
  });

  it('stops at once mid-stream even when the inner stream ignores its signal', async () => {
    const provider = custom(async function* () {
      yield { type: 'message-start' };
      await new Promise<never>(() => {});
    });
    const clock = new ManualClock(0);
    const controller = new AbortController();
    const retrying = withRetry(provider, { clock, idleTimeoutMs: 0 });
    const events: StreamEvent[] = [];
    const outcome = collectSettled(retrying.stream(request, { signal: controller.signal }), events);
    while (events.length === 0) await macrotask();
    controller.abort();
    const { error } = await outcome;
    expect(CancelledError.isInstance(error)).toBe(true);
    expect(provider.attempts).toBe(1);
  });

  it('aborts the attempt signal handed to the inner provider when the caller aborts', async () => {
    const { provider, calls } = setup([{ text: 'Hello', hangAfterEvents: 2 }], {
      idleTimeoutMs: 0,
    });
    const controller = new AbortController();
    const outcome = collectSettled(provider.stream(request, { signal: controller.signal }));
    while (calls.length === 0) await macrotask();
    expect(calls[0]?.signal).not.toBe(controller.signal);
    expect(calls[0]?.signal?.aborted).toBe(false);
    controller.abort();
    await outcome;
    expect(calls[0]?.signal?.aborted).toBe(true);
  });

  it('makes no attempt when the signal is already aborted', async () => {
    const { run, calls } = setup([{ text: 'never' }]);
    const { error } = await run(AbortSignal.abort());
    expect(CancelledError.isInstance(error)).toBe(true);
    expect(calls).toHaveLength(0);
  });

  it('surfaces CancelledError, not the inner error, when the abort broke the stream', async () => {
    const { provider, calls } = setup([{ text: 'Hello', hangAfterEvents: 2 }, { text: 'no' }], {
      idleTimeoutMs: 0,
    });
    const controller = new AbortController();
    const events: StreamEvent[] = [];
    const outcome = collectSettled(provider.stream(request, { signal: controller.signal }), events);
    while (events.length < 2) await macrotask();
    controller.abort();
    const { error } = await outcome;
    expect(CancelledError.isInstance(error)).toBe(true);
    expect(calls).toHaveLength(1);
  });
});

describe('withRetry and Provider.settle', () => {
  const result = { status: 'guard', guard: 'max-turns' } as unknown as RunResult;

  it('hands a run’s result to the inner provider’s settle and returns what it gives', () => {
    const inner = new ScriptedProvider([{ text: 'hi' }]) as ScriptedProvider & {
      settle?: (result: RunResult) => RunResult;
    };
    const settled = { ...result, status: 'error' } as RunResult;
    const seen: RunResult[] = [];
    inner.settle = (given) => {
      seen.push(given);
      return settled;
    };
    expect(withRetry(inner).settle?.(result)).toBe(settled);
    expect(seen).toEqual([result]);
  });

  it('returns the result as it is when the inner provider has no settle', () => {
    expect(withRetry(new ScriptedProvider([{ text: 'hi' }])).settle?.(result)).toBe(result);
  });
});
