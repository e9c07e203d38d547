import { ABORTED } from '../loop/run-signal.js';
import { type Usage, ZERO_USAGE } from '../messages/usage.js';
import type { Summarizer, SummaryRequest } from '../ports/summarizer.js';
import type { PricingTable } from '../pricing/prices.js';
import { thrownText } from '../support/thrown-text.js';

/** What one call of a `Summarizer` came to, whatever the summariser did. */
export interface SummaryCallOutcome {
  /** The summary text, trimmed; absent when the call failed or gave no usable text. */
  readonly text?: string;
  /** Tokens the call used (malformed counts read as 0). */
  readonly usage: Usage;
  /** What those tokens cost, USD. */
  readonly costUsd: number;
  /** Why there is no text ('' when there is). */
  readonly failure: string;
  /** The run's signal aborted first: not a failure of the summary. */
  readonly cancelled: boolean;
}

/**
 * Calls `summarizer` and never throws: a thrown error, a cancelled run (even when the summariser
 * ignores its signal), and an answer that is not a `Summary` (null, a bare string, text that is
 * not a string, usage that is not a count) all come back as an outcome, so compaction can
 * degrade instead of failing the run, and a malformed usage cannot make the cost NaN or negative
 * (which would blind the cost guard). Priced as `model` unless the summary names a known one.
 */
export async function callSummarizer(
  summarizer: Summarizer,
  request: SummaryRequest,
  model: string,
  pricing: PricingTable,
): Promise<SummaryCallOutcome> {
  const { signal } = request;
  const price = (usage: Usage, named?: unknown): number =>
    (typeof named === 'string' ? pricing.cost(named, usage) : undefined) ??
    pricing.cost(model, usage) ??
    0;
  if (signal?.aborted) return { usage: ZERO_USAGE, costUsd: 0, failure: '', cancelled: true };
  let answer: unknown;
  try {
    answer = await untilAborted(Promise.resolve(summarizer.summarize(request)), signal);
  } catch (error) {
    const usage = countsOf((error as { usage?: unknown } | null)?.usage);
    return {
      usage,
      costUsd: price(usage),
      failure: `the summary call failed: ${thrownText('The summariser', error)}`,
      cancelled: signal?.aborted === true,
    };
  }
  if (answer === ABORTED) return { usage: ZERO_USAGE, costUsd: 0, failure: '', cancelled: true };
  const summary = typeof answer === 'object' && answer !== null ? answer : {};
  const { text, usage: reported, model: named } = summary as Record<string, unknown>;
  const usage = countsOf(reported);
  const costUsd = price(usage, named);
  if (typeof text !== 'string') {
    const got =
      answer === null ? 'null' : typeof text === 'undefined' ? typeof answer : typeof text;
    return {
      usage,
      costUsd,
      failure: `the summariser gave no summary text (got ${got})`,
      cancelled: false,
    };
  }
  const trimmed = text.trim();
  if (trimmed === '') return { usage, costUsd, failure: 'the summary was empty', cancelled: false };
  if (!/\p{L}{2}/u.test(trimmed))
    return { usage, costUsd, failure: 'the summary held no words', cancelled: false };
  return { text: trimmed, usage, costUsd, failure: '', cancelled: false };
}

/** Token counts as reported, each read as 0 unless it is a finite count >= 0. */
function countsOf(value: unknown): Usage {
  if (typeof value !== 'object' || value === null) return ZERO_USAGE;
  const fields = value as Record<string, unknown>;
  const count = (key: keyof Usage): number => {
    const number = fields[key];
    return typeof number === 'number' && Number.isFinite(number) && number >= 0
      ? Math.round(number)
      : 0;
  };
  return {
    inputTokens: count('inputTokens'),
    outputTokens: count('outputTokens'),
    cacheReadTokens: count('cacheReadTokens'),
    cacheWriteTokens: count('cacheWriteTokens'),
  };
}

/**
 * Settles like `promise`, or with `ABORTED` as soon as `signal` aborts: a summariser that ignores
 * its signal must not hold a cancelled or timed-out run. The listener is removed either way, so
 * a long run's many compactions do not pile listeners onto one signal.
 */
function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T | typeof ABORTED> {
  if (!signal) return promise;
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
