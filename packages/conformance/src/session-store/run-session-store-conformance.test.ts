import type { SessionStore } from '@mh/core';
import { fieldOf } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import { SessionStoreConformanceError } from './conformance-error.js';
import { runSessionStoreConformance } from './run-session-store-conformance.js';

/** A store whose every call but `close` fails with a raw error. */
const brokenStore = (onClose = (): void => undefined): SessionStore =>
  new Proxy({} as SessionStore, {
    get: (_, name) =>
      name === 'then'
        ? undefined
        : name === 'close'
          ? async () => onClose()
          : async () => {
              throw new Error(`broken ${String(name)}`);
            },
  });

describe('runSessionStoreConformance', () => {
  it('names a bad option with ConfigError', async () => {
    const open = async () => brokenStore();
    for (const [options, field] of [
      [{}, 'open'],
      [{ open, numRuns: 0 }, 'numRuns'],
      [{ open, maxCommands: 1.5 }, 'maxCommands'],
      [{ open, reopen: 'x' }, 'reopen'],
      [{ open, concurrency: -1 }, 'concurrency'],
      [{ open, path: '3:1' }, 'path'],
    ] as const) {
      expect(await fieldOf(() => runSessionStoreConformance(options as never))).toBe(field);
    }
  });

  it('rejects with the seed, path and shrunk sequence of a counterexample', async () => {
    let closed = 0;
    const open = async () =>
      brokenStore(() => {
        closed += 1;
      });
    const error = await runSessionStoreConformance({ open, numRuns: 20, seed: 42 }).catch(
      (e: unknown) => e,
    );
    expect(SessionStoreConformanceError.isInstance(error)).toBe(true);
    const failure = error as SessionStoreConformanceError;
    expect(failure.seed).toBe(42);
    expect(failure.path).toMatch(/^\d+(:\d+)*$/);
    expect(failure.commands).toEqual([]);
    expect(failure.failure).toContain('createSession');
    expect(failure.failure).toContain('broken createSession');
    expect(failure.message).toContain('seed: 42');
    expect(closed).toBe(1);
  });
});
