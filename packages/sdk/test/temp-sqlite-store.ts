import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Message, messageText, type SessionStore } from '@mh/core';
import { openSqliteStore } from '@mh/session-sql';

/** A SQLite store in a fresh temp folder, and how to close and remove it. */
export async function openTempStore(
  prefix: string,
): Promise<{ store: SessionStore; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const store = await openSqliteStore(join(dir, 's.db'));
  return {
    store,
    remove: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Each message as `role:text`, for comparing conversations. */
export const texts = (messages: readonly Message[]): string[] =>
  messages.map((message) => `${message.role}:${messageText(message)}`);
