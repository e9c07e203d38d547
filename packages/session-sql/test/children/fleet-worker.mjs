// One worker of a fleet serving many sessions in one store: commits `count` prompt turns, each to
// a random one of `sessions` sessions (ids s0…), loading its head and committing on it. A
// SessionConflictError means another worker won the race: load again. A
// SessionStoreUnavailableError (the database restarting) means wait and try again; a turn whose
// commit outcome was unknown is looked for in the history before it is committed again. Any
// other error is logged as untyped and ends the worker with exit code 1. Every outcome is a JSON
// line in the log, appended after the call returned. With the optional sixth argument N it
// prints `paused` after its first N commits and waits for a second `go` before the rest, so a
// test can stop the database while no worker is done.
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { SessionConflictError, SessionStoreUnavailableError } from '@mh/core';
import { goSignals, promptTurn } from './messages.mjs';
import { openStore } from './open-store.mjs';

const [spec, worker, sessionsText, countText, logPath, pauseText] = process.argv.slice(2);
const pauseAfter = pauseText === undefined ? undefined : Number(pauseText);
const log = (line) => appendFileSync(logPath, `${JSON.stringify({ worker, ...line })}\n`);
const GIVE_UP_MS = 60_000;

let seed = [...worker].reduce((sum, char) => sum * 31 + char.charCodeAt(0), 7) % 2147483647;
const random = () => {
  seed = (seed * 48271) % 2147483647;
  return seed / 2147483647;
};

let store;
for (const started = Date.now(); !store; ) {
  try {
    store = await openStore(spec);
  } catch (error) {
    if (!SessionStoreUnavailableError.isInstance(error) || Date.now() - started > GIVE_UP_MS) {
      throw error;
    }
    await sleep(100);
  }
}
process.stdout.write('ready\n');
const nextGo = goSignals(pauseAfter === undefined ? 1 : 2);
await nextGo();

async function commitOne(index) {
  const session = `s${Math.floor(random() * Number(sessionsText))}`;
  const tag = `${worker}-${index}`;
  for (const started = Date.now(); Date.now() - started < GIVE_UP_MS; ) {
    let op = 'load';
    try {
      const state = await store.load(session);
      if (state.messages.some((message) => message.id === `user-${tag}`)) {
        log({ outcome: 'landed-late', session, tag });
        return;
      }
      op = 'commit';
      const checkpoint = await store.commit(session, promptTurn(tag), { expectedHead: state.head });
      log({ outcome: 'ok', session, tag, expected: state.head, id: checkpoint.id });
      return;
    } catch (error) {
      if (SessionConflictError.isInstance(error)) {
        log({
          outcome: 'conflict',
          session,
          expected: error.expectedHead,
          actual: error.actualHead,
        });
      } else if (SessionStoreUnavailableError.isInstance(error)) {
        log({ outcome: 'unavailable', op, failure: error.failure, session, tag });
        await sleep(50 + random() * 100);
      } else {
        log({ outcome: 'untyped', op, name: error?.name, message: String(error?.message) });
        process.exit(1);
      }
    }
  }
  log({ outcome: 'gave-up', session, tag });
  process.exit(1);
}

for (let index = 0; index < Number(countText); index++) {
  if (index === pauseAfter) {
    process.stdout.write('paused\n');
    await nextGo();
  }
  await commitOne(index);
}
process.stdout.write('finished\n');
await store.close();
