// Commits `count` turns to one session branch, racing another process: load, commit with the
// loaded head, and on SessionConflictError load again. Every attempt is logged as a JSON line.
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { SessionConflictError } from '@mh/core';
import { openSqliteStore } from '@mh/session-sql';
import { promptTurn, waitForGo } from './messages.mjs';

const [path, sessionId, writer, countText, logPath] = process.argv.slice(2);
const store = await openSqliteStore(path);
process.stdout.write('ready\n');
await waitForGo();
for (let index = 0; index < Number(countText); index++) {
  for (;;) {
    const { head } = await store.load(sessionId);
    await sleep(Math.random() * 2);
    try {
      const checkpoint = await store.commit(sessionId, promptTurn(`${writer}-${index}`), {
        expectedHead: head,
      });
      appendFileSync(
        logPath,
        `${JSON.stringify({ outcome: 'ok', expected: head, id: checkpoint.id })}\n`,
      );
      break;
    } catch (error) {
      if (!SessionConflictError.isInstance(error)) throw error;
      const line = { outcome: 'conflict', expected: head, actual: error.actualHead };
      appendFileSync(logPath, `${JSON.stringify(line)}\n`);
    }
  }
}
await store.close();
