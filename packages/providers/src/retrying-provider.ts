import {
  backoffDelay,
  CancelledError,
  ConfigError,
  type ModelRequest,
  type Provider,
  ProviderError,
  type ProviderErrorKind,
  type RunResult,
  type StreamEvent,
  type StreamOptions,
  type Usage,
} from '@mh/core';
import { MAX_TIMEOUT_MS } from '@mh/core/internal';
import { idleTimeoutError, pullWithin } from './idle-timeout.js';
import { recordAttempts } from './retry-attempts.js';
import { type RetrySettings, resolveRetryOptions, type WithRetryOptions } from './retry-options.js';

/** Kinds never retried, whatever `retryable` says: trying again cannot help. */
const NEVER_RETRIED: readonly ProviderErrorKind[] = [
  'auth',
  'quota',
  'bad-request',
  'context-overflow',
];

/** How one attempt ended: with its `message-end`, or failed after yielding some events or none. */
type AttemptOutcome =
  | { readonly completed: true }
  | {
      readonly completed: false;
      readonly error: unknown;
      readonly yielded: boolean;
      readonly usage: Usage | undefined;
    };

function isRetryable(error: unknown): error is ProviderError {
  return ProviderError.isInstance(error) && error.retryable && !NEVER_RETRIED.includes(error.kind);
}

function cancelled(signal: AbortSignal | undefined): CancelledError {
  return new CancelledError('Model call cancelled', { cause: signal?.reason });
}

/**
 * The usage an attempt has reported so far. `usage` events are running totals of the call (as
 * Anthropic's `message_start` and `message_delta` are), and one event may carry only some fields,
 * so each field keeps its largest value.
 */
function runningUsage(previous: Usage | undefined, next: Usage): Usage {
  if (previous === undefined) return next;
  return {
    inputTokens: Math.max(previous.inputTokens, next.inputTokens),
    outputTokens: Math.max(previous.outputTokens, next.outputTokens),
    cacheReadTokens: Math.max(previous.cacheReadTokens, next.cacheReadTokens),
    cacheWriteTokens: Math.max(previous.cacheWriteTokens, next.cacheWriteTokens),
  };
}

function closeQuietly(iterator: AsyncIterator<StreamEvent> | undefined): void {
  try {
    // Not awaited: a stream that ignores its abort must not hold up the retry or the caller.
    Promise.resolve(iterator?.return?.()).catch(() => {});
  } catch {
    // A synchronous throw from return() means the stream is already unusable: nothing to close.
  }
}

/**
 * A `Provider` that retries its inner provider's retryable failures with exponential backoff and
 * full jitter (core's `backoffDelay`), honouring `retryAfterMs` as a minimum wait.
 *
 * - Retried: `ProviderError`s with `retryable: true`, except the kinds `auth`, `quota`,
 *   `bad-request` and `context-overflow`. Anything else is rethrown unchanged at once, as is an
 *   error whose `retryAfterMs` exceeds `maxRetryAfterMs` (no sleep: the caller decides).
 * - Broken streams: events are forwarded live. When an attempt that already yielded events fails
 *   and will be retried, a `stream-reset` event (the attempt about to start, the failure's
 *   `kind: message`, and the failed attempt's usage when it reported any) is yielded before the
 *   backoff wait; the consumer discards the failed attempt's events (everything since the call
 *   began or the previous reset), and the identical request is replayed. An attempt that fails before its first event needs no reset. Nothing is read
 *   after `message-end`, so a complete message is never retried.
 * - Idle timeout: each attempt gets its own `AbortController`, linked to the caller's signal.
 *   When no event arrives within `idleTimeoutMs` (on the injected clock) the attempt is aborted
 *   and fails as a retryable `timeout`. A stream that ends without `message-end` fails as a
 *   retryable `network` error.
 * - Cancellation: once the caller's signal aborts there is no further attempt and no sleep, and
 *   the call throws `CancelledError`, even while the inner stream ignores its signal.
 * - Attempts are counted per `stream()` call. The error that ends a call is the inner provider's
 *   own error object; `attemptsOf(error)` tells how many attempts the call made, and `onRetry`
 *   reports each retry as it happens.
 */
export class RetryingProvider implements Provider {
  /** The inner provider's name: spans and errors name the vendor, not the wrapper. */
  readonly name: string;
  /** The inner provider's `nativeOutput`: typed output takes the same form through the wrapper. */
  readonly nativeOutput: boolean | undefined;
  readonly #inner: Provider;
  readonly #settings: RetrySettings;

  /** Wraps `provider`; throws `ConfigError` naming the first invalid option. */
  constructor(provider: Provider, options?: WithRetryOptions) {
    if (
      provider === null ||
      typeof provider !== 'object' ||
      typeof provider.stream !== 'function'
    ) {
      throw new ConfigError('provider', 'expected a Provider with a stream() method');
    }
    this.#settings = resolveRetryOptions(options);
    this.#inner = provider;
    this.name = provider.name;
    this.nativeOutput = provider.nativeOutput;
  }

  /** Streams `request`, retrying as described on the class; consumed once. */
  stream(request: ModelRequest, options: StreamOptions = {}): AsyncIterable<StreamEvent> {
    return this.#call(request, options.signal);
  }

  /** The inner provider's `settle` (a replay's drift at a run's end), when it has one. */
  settle(result: RunResult): RunResult {
    const inner = this.#inner;
    return typeof inner.settle === 'function' ? inner.settle(result) : result;
  }

  async *#call(
    request: ModelRequest,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<StreamEvent, void, undefined> {
    const settings = this.#settings;
    let made = 0;
    try {
      for (let attempt = 1; ; attempt++) {
        if (signal?.aborted) throw cancelled(signal);
        made = attempt;
        const outcome = yield* this.#attempt(request, signal);
        if (outcome.completed) return;
        if (signal?.aborted) throw cancelled(signal);
        const error = outcome.error;
        if (!isRetryable(error) || attempt >= settings.maxAttempts) throw error;
        const delayMs = backoffDelay(
          attempt - 1,
          {
            baseMs: settings.baseDelayMs,
            capMs: settings.maxDelayMs,
            // Infinity means any retry-after a timer can wait: Node would arm a longer one for 1 ms
            // and retry at once (and core's backoff takes finite bounds only).
            maxRetryAfterMs: Math.min(settings.maxRetryAfterMs, MAX_TIMEOUT_MS),
            random: settings.random,
          },
          error.retryAfterMs,
        );
        if (delayMs === undefined) throw error;
        settings.onRetry?.({ attempt, error, delayMs });
        if (outcome.yielded) {
          yield {
            type: 'stream-reset',
            attempt: attempt + 1,
            reason: `${error.kind}: ${error.message}`,
            ...(outcome.usage === undefined ? {} : { usage: outcome.usage }),
          };
        }
        try {
          await settings.clock.sleep(delayMs, signal);
        } catch (sleepError) {
          if (signal?.aborted) throw cancelled(signal);
          throw sleepError;
        }
      }
    } catch (error) {
      recordAttempts(error, made);
      throw error;
    }
  }

  async *#attempt(
    request: ModelRequest,
    caller: AbortSignal | undefined,
  ): AsyncGenerator<StreamEvent, AttemptOutcome, undefined> {
    const { clock, idleTimeoutMs } = this.#settings;
    const controller = new AbortController();
    const onCallerAbort = (): void => controller.abort(caller?.reason);
    caller?.addEventListener('abort', onCallerAbort, { once: true });
    let iterator: AsyncIterator<StreamEvent> | undefined;
    let completed = false;
    let yielded = false;
    let usage: Usage | undefined;
    let failure: unknown;
    const failed = (error: unknown): AttemptOutcome => {
      failure = error;
      return { completed: false, error, yielded, usage };
    };
    try {
      try {
        iterator = this.#inner
          .stream(request, { signal: controller.signal })
          [Symbol.asyncIterator]();
      } catch (error) {
        return failed(error);
      }
      for (;;) {
        const pull = await pullWithin(iterator, {
          idleTimeoutMs,
          clock,
          signal: controller.signal,
        });
        if (pull.type === 'aborted') return failed(cancelled(caller));
        if (pull.type === 'idle') return failed(idleTimeoutError(this.name, idleTimeoutMs));
        if (pull.type === 'error') return failed(pull.error);
        if (pull.result.done) {
          return failed(
            new ProviderError('The stream ended without a message-end event', {
              kind: 'network',
              retryable: true,
              provider: this.name,
            }),
          );
        }
        const event = pull.result.value;
        if (event.type === 'usage') usage = runningUsage(usage, event.usage);
        yielded = true;
        yield event;
        if (event.type === 'message-end') {
          completed = true;
          return { completed: true };
        }
      }
    } finally {
      caller?.removeEventListener('abort', onCallerAbort);
      // An attempt left unfinished (failed, idle, abandoned by the consumer) must free its request.
      if (!completed && !controller.signal.aborted) controller.abort(failure);
      closeQuietly(iterator);
    }
  }
}

/**
 * Wraps `provider` with retries, backoff, an idle timeout and explicit retraction of broken
 * streams (`stream-reset`); see `RetryingProvider`. Wrap once: wrapped twice, attempts multiply.
 * @example
 * const provider = withRetry(scripted([{ text: 'Hello' }]), {
 *   maxAttempts: 4,
 *   onRetry: ({ attempt, error, delayMs }) => console.warn(attempt, error.kind, delayMs),
 * });
 */
export function withRetry(provider: Provider, options?: WithRetryOptions): RetryingProvider {
  return new RetryingProvider(provider, options);
}
