import { SessionConflictError } from '../errors.js';
import type { SessionStore } from '../ports/session-store.js';
import type { StepRunner } from '../ports/step-runner.js';
import { type ErrorRecord, recordError, reviveError } from './error-record.js';

/** What a store step records: the value returned, or the failure thrown. */
export type StoreCallRecord =
  | { readonly ok: true; readonly value?: unknown }
  | { readonly ok: false; readonly error: ErrorRecord };

/**
 * `store` with every call (reads too: a replay must see what the first run saw) run as one
 * durable step named `store:<method>`, so a replayed run neither writes twice nor reads a session
 * that moved on since. `close` is the store's own and not a step.
 *
 * A step cut off after its write landed and before the engine recorded it runs again. The store's
 * writes allow that: a commit retried on the same head returns the landed checkpoint, and the same
 * journaled turn again changes nothing. A call claimed again (`journalStart` of a call the journal
 * already shows started and unfinished) is taken as that same claim, which holds because a durable
 * run is the only writer of its session (the engine enforces one active run per session).
 */
export function stepStore(store: SessionStore, steps: StepRunner): SessionStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof property !== 'string' || property === 'close' || typeof value !== 'function')
        return value;
      const method = value as (...args: unknown[]) => Promise<unknown>;
      return async (...args: unknown[]): Promise<unknown> => {
        const record = await steps.step<StoreCallRecord>(
          { name: `store:${property}`, kind: 'store', retries: false },
          () => callStore(target, property, method, args),
        );
        if (!record.ok) throw reviveError(record.error);
        return record.value;
      };
    },
  });
}

async function callStore(
  store: SessionStore,
  method: string,
  call: (...args: unknown[]) => Promise<unknown>,
  args: readonly unknown[],
): Promise<StoreCallRecord> {
  try {
    const value = await call.apply(store, args as unknown[]);
    return value === undefined ? { ok: true } : { ok: true, value };
  } catch (error) {
    if (method === 'journalStart' && (await ownClaim(store, args, error))) return { ok: true };
    return { ok: false, error: recordError(error) };
  }
}

/** Whether a refused `journalStart` found the call started and unfinished: the same claim again. */
async function ownClaim(
  store: SessionStore,
  args: readonly unknown[],
  error: unknown,
): Promise<boolean> {
  if (!SessionConflictError.isInstance(error)) return false;
  const [sessionId, branch, callId] = args as [string, string, string];
  const pending = await store.pendingTurn(sessionId, branch);
  const entry = pending?.calls.find((candidate) => candidate.call.id === callId);
  return entry?.started === true && entry.result === undefined;
}
