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
 * A step cut off after its write landed and before the engine recorded it runs again. Most of the
 * store's writes allow that: a commit retried on the same head returns the landed checkpoint, and
 * the same journaled turn again changes nothing. A `journalStart` run again finds its own claim and
 * is refused (`SessionConflictError`): the store cannot tell that claim from another writer's, so
 * the run ends with the conflict rather than risk running the call twice (a resume of the session
 * then answers it as interrupted).
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
          () => callStore(target, method, args),
        );
        if (!record.ok) throw reviveError(record.error);
        return record.value;
      };
    },
  });
}

async function callStore(
  store: SessionStore,
  call: (...args: unknown[]) => Promise<unknown>,
  args: readonly unknown[],
): Promise<StoreCallRecord> {
  try {
    const value = await call.apply(store, args as unknown[]);
    return value === undefined ? { ok: true } : { ok: true, value };
  } catch (error) {
    return { ok: false, error: recordError(error) };
  }
}
