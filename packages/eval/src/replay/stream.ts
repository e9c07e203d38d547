import type { StreamEvent } from '@mh/core';
import type { KeyContext } from '../cassette/context.js';
import type { RequestEntry } from '../cassette/format.js';
import { replayError } from '../recording/errors.js';

/**
 * How long past the recorded cut-off a replay of an abandoned exchange still waits for its own
 * abort. Unpaced replays reach the cut-off sooner than the recording did (earlier calls and tools
 * take no time), so a timeout that cut the recording fires a little later in the replay.
 */
export const CUT_OFF_GRACE_MS = 1_000;

/** How a replayed exchange ended: as recorded, or at a cut-off the replay did not reproduce. */
export type PlayEnd = 'as-recorded' | 'cut-off';

/**
 * Plays a recorded exchange: its events in order (paced as recorded with `timing: 'recorded'`),
 * then its end. A recorded failure is thrown again as the same typed error. An abort ends the
 * stream early, as a provider's would. An abandoned exchange (its consumer stopped reading: a
 * cancel, a timeout) has no recorded end: the stream ends when `signal` aborts within the
 * recorded time plus `CUT_OFF_GRACE_MS`, as the original did. Otherwise (no signal, or none
 * that aborts in time) it returns `'cut-off'` instead of waiting forever: the caller reports
 * the drift and fails the stream.
 */
export async function* playEntry(
  entry: RequestEntry,
  context: Pick<KeyContext, 'timing' | 'clock'>,
  signal: AbortSignal | undefined,
): AsyncGenerator<StreamEvent, PlayEnd, undefined> {
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
    if (!(await wait(ms))) return 'as-recorded';
    yield event;
  }
  if (entry.outcome === 'error' && entry.error) {
    if (!(await wait(entry.durationMs))) return 'as-recorded';
    throw replayError(entry.error);
  }
  if (entry.outcome !== 'abandoned') return 'as-recorded';
  if (signal === undefined) return 'cut-off';
  if (signal.aborted) return 'as-recorded';
  const remainingMs = Math.max(0, entry.durationMs - (paced ? previousMs : 0));
  try {
    // A real timer: it keeps the process alive until the abort or the deadline.
    await context.clock.sleep(remainingMs + CUT_OFF_GRACE_MS, signal);
  } catch {
    return 'as-recorded';
  }
  return signal.aborted ? 'as-recorded' : 'cut-off';
}
