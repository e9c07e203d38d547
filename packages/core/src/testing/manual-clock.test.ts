import { describe, expect, it } from 'vitest';
import { CancelledError } from '../errors.js';
import { ManualClock } from './manual-clock.js';

/** Whether `promise` has settled once pending callbacks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('ManualClock', () => {
  it('resolves a sleep only when advance moves time past it', async () => {
    const clock = new ManualClock(0);
    const sleep = clock.sleep(100);
    clock.advance(99);
    expect(await settled(sleep)).toBe(false);
    clock.advance(1);
    expect(await settled(sleep)).toBe(true);
    expect([clock.now(), clock.sleeps, clock.pendingTimers]).toEqual([100, [100], 0]);
  });

  it('jumps to the earliest pending sleep with advanceToNext', async () => {
    const clock = new ManualClock(0);
    const late = clock.sleep(500);
    const early = clock.sleep(200);
    expect(clock.advanceToNext()).toBe(true);
    expect([clock.now(), await settled(early), await settled(late)]).toEqual([200, true, false]);
    expect(clock.advanceToNext()).toBe(true);
    expect([clock.now(), await settled(late)]).toEqual([500, true]);
    expect(clock.advanceToNext()).toBe(false);
    expect(clock.now()).toBe(500);
  });

  it('ends every sleep at once and moves time by it when instant', async () => {
    const clock = new ManualClock(10, { instant: true });
    await clock.sleep(40);
    await clock.sleep(50);
    expect([clock.now(), clock.sleeps, clock.pendingTimers]).toEqual([100, [40, 50], 0]);
  });

  it('rejects a sleep with CancelledError when its signal aborts, and forgets it', async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const sleep = clock.sleep(100, controller.signal);
    controller.abort();
    await expect(sleep).rejects.toSatisfy(CancelledError.isInstance);
    expect(clock.pendingTimers).toBe(0);
    await expect(
      new ManualClock(0, { instant: true }).sleep(5, controller.signal),
    ).rejects.toSatisfy(CancelledError.isInstance);
  });
});
