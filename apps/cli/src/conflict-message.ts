import { SessionConflictError } from '@mh/sdk';

/**
 * What a user reads when another writer changed the session under this one (another mh on a
 * PostgreSQL session, or one that ignored the lock): what happened and what to do, not the
 * heads' hashes. `undefined` for any other error.
 */
export function conflictMessage(error: unknown): string | undefined {
  if (!SessionConflictError.isInstance(error)) return undefined;
  return `another writer changed session ${error.sessionId} (it moved on to another head); run again to continue from there`;
}
