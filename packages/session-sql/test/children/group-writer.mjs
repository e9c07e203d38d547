// Many writers at once on one store, as agents sharing a store write: `writers` loops, each
// committing turns to a session of its own and journaling a turn between commits, all in flight
// together so the store's thread commits them in shared transactions (group commit). After each
// acknowledged write it appends `{ session, head }` to the log (appendFileSync survives SIGKILL
// once it returns). With `dieAt`, the process kills itself with SIGKILL right after the dieAt-th
// SQL statement (counting from the first write), which lands kills inside a batch's transaction,
// between its savepoints, and right after its COMMIT. Each counted statement is appended to
// `<log>.sql` before the kill may come, so the parent can tell where the kill landed.
import { appendFileSync } from 'node:fs';
import { openSqliteStore } from '@mh/session-sql';
import { assistantFor, promptTurn } from './messages.mjs';

const [path, logPath, writersText, turnsText, dieAtText] = process.argv.slice(2);
const dieAt = dieAtText === undefined ? Number.POSITIVE_INFINITY : Number(dieAtText);
let counting = false;
let statements = 0;
const store = await openSqliteStore(path, {
  busyTimeoutMs: 30_000,
  onQuery: (sql) => {
    if (!counting) return;
    statements += 1;
    appendFileSync(`${logPath}.sql`, `${sql}\n`);
    if (statements === dieAt) process.kill(process.pid, 'SIGKILL');
  },
});
const writers = Number(writersText);
for (let w = 0; w < writers; w++) await store.createSession({ id: `g${w}` });
counting = true;
await Promise.all(
  Array.from({ length: writers }, async (_, w) => {
    const session = `g${w}`;
    let head = null;
    for (let turn = 0; turn < Number(turnsText); turn++) {
      head = (await store.commit(session, promptTurn(`${session}-${turn}`), { expectedHead: head }))
        .id;
      appendFileSync(logPath, `${JSON.stringify({ session, head })}\n`);
      await store.journalTurn(session, 'main', head, assistantFor(`${session}-${turn}`));
      appendFileSync(logPath, `${JSON.stringify({ session, pendingOn: head })}\n`);
    }
  }),
);
counting = false;
process.stdout.write(`statements ${statements}\n`);
await store.close();
process.stdout.write('closed\n');
