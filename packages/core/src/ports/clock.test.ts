import { describe, expect, it } from 'vitest';
import { CancelledError } from '../errors.js';
import { systemClock } from './clock.js';

describe('systemClock', () => {
  it('tells the time in epoch milliseconds', () => {
    const before = Date.now();
    const now = systemClock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  it('resolves sleep after the time has passed', async () => {
    const start = performance.now();
    await systemClock.sleep(20);
    expect(performance.now() - start).toBeGreaterThanOrEqual(15);
  });

  it('rejects sleep with CancelledError when the signal aborts', async () => {
    const controller = new AbortController();
    const sleeping = systemClock.sleep(60_000, controller.signal);
    controller.abort('stop');
    await expect(sleeping).rejects.toSatisfy(
      (error) => CancelledError.isInstance(error) && (error as Error).cause === 'stop',
    );
  });

  it('rejects sleep at once when the signal has already aborted', async () => {
    await expect(systemClock.sleep(60_000, AbortSignal.abort())).rejects.toSatisfy((error) =>
      CancelledError.isInstance(error),
    );
  });
});
