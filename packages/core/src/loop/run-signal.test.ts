import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../ports/clock.js';
import { ABORTED, RunSignal } from './run-signal.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

describe('RunSignal.race', () => {
  it('resolves with the promise, rejects with it, or resolves ABORTED when the run aborts first', async () => {
    const run = new RunSignal(undefined, undefined, systemClock);
    await expect(run.race(Promise.resolve(1))).resolves.toBe(1);
    await expect(run.race(Promise.reject(new Error('no')))).rejects.toThrow('no');
    const hung = run.race(new Promise<never>(() => {}));
    run.abort('cancelled');
    await expect(hung).resolves.toBe(ABORTED);
    await expect(run.race(new Promise<never>(() => {}))).resolves.toBe(ABORTED);
    // Both settled: the promise wins, as with Promise.race.
    await expect(run.race(Promise.resolve(2))).resolves.toBe(2);
    run.dispose();
  });

  it('keeps nothing of a race that settled while the run goes on (a long run does not grow)', async () => {
    const run = new RunSignal(undefined, undefined, systemClock);
    const refs: WeakRef<object>[] = [];
    for (let index = 0; index < 20; index++) {
      const value = { index, payload: new Array(1_000).fill(index) };
      refs.push(new WeakRef(value));
      await run.race(Promise.resolve(value));
    }
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    // Promise.race against the run-long abort promise kept all 20; the last may still sit in a register.
    expect(refs.filter((ref) => ref.deref() !== undefined).length).toBeLessThanOrEqual(1);
    expect(run.aborted).toBe(false);
    run.dispose();
  });
});
