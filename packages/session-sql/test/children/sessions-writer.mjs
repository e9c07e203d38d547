// Creates `sessions` sessions named `<writer>-<n>` and commits `turns` turns to each, round robin,
// into a file other processes are writing at the same time.
import { openSqliteStore } from '@mh/session-sql';
import { promptTurn, waitForGo } from './messages.mjs';

const [path, writer, sessionsText, turnsText] = process.argv.slice(2);
process.stdout.write('ready\n');
await waitForGo();
// A generous busy timeout: the test is about concurrent writers, not about a loaded machine.
const store = await openSqliteStore(path, { busyTimeoutMs: 30_000 });
const heads = new Map();
for (let n = 0; n < Number(sessionsText); n++) {
  const { id } = await store.createSession({ id: `${writer}-${n}`, title: `session ${n}` });
  heads.set(id, null);
}
for (let turn = 0; turn < Number(turnsText); turn++) {
  for (const [id, head] of heads) {
    const checkpoint = await store.commit(id, promptTurn(`${id}-${turn}`), { expectedHead: head });
    heads.set(id, checkpoint.id);
  }
}
await store.close();
