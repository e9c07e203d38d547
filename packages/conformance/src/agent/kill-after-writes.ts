import type { SessionStore } from '@mh/core';

/** The store methods that write. */
const WRITES = new Set([
  'createSession',
  'commit',
  'journalTurn',
  'journalStart',
  'journalEnd',
  'rewind',
  'fork',
  'switchBranch',
  'deleteSession',
]);

/**
 * `store`, but this process dies by SIGKILL as soon as its `writes`-th write has returned (0: at
 * the first write, before it reaches the store). For the child process of a crash command: a kill
 * right after a write is the same as a kill right before the next one, so every gap between two
 * writes can be hit, and nothing after the kill (no finally, no flush) runs.
 */
export function killAfterWrites(store: SessionStore, writes: number): SessionStore {
  let done = 0;
  const die = (): never => {
    process.kill(process.pid, 'SIGKILL');
    throw new Error('unreachable: the process was killed');
  };
  return new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      if (typeof key !== 'string' || !WRITES.has(key)) return value.bind(target);
      return async (...args: unknown[]) => {
        if (done >= writes) die();
        const result = await value.apply(target, args);
        done++;
        if (done >= writes) die();
        return result;
      };
    },
  });
}
