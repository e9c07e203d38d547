import type { StreamEvent } from '@mh/core';
import type { KeyContext } from './cassette-context.js';
import type { RequestEntry } from './cassette-format.js';
import { replayError } from './recording-errors.js';

/** Resolves when `signal` aborts. */
function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}

/**
 * Plays a recorded exchange: its events in order (paced as recorded with `timing: 'recorded'`),
 * then its end. A recorded failure is thrown again as the same typed error. An abandoned stream
 * (its consumer stopped reading, say on a timeout) ends when `signal` aborts, as the original
 * did, or at once without a signal. An abort ends the stream early, as a provider's would.
 */
export async function* playEntry(
  entry: RequestEntry,
  context: Pick<KeyContext, 'timing' | 'clock'>,
  signal: AbortSignal | undefined,
): AsyncGenerator<StreamEvent, void, undefined> {
  const paced = context.timing === 'recorded';
  let previousMs = 0;
  const wait = async (untilMs: number): Promise<boolean> => {
    if (paced && untilMs > previousMs) {
      try {
        await context.clock.sleep(untilMs - previousMs, signal);
      } catch {
        return false;
      }
      previousMs = untilMs;
    }
    return signal?.aborted !== true;
  };
  for (const { ms, event } of entry.events) {
    if (!(await wait(ms))) return;
    yield event;
  }
  if (entry.outcome === 'error' && entry.error) {
    if (!(await wait(entry.durationMs))) return;
    throw replayError(entry.error);
  }
  if (entry.outcome === 'abandoned' && signal) await aborted(signal);
}
