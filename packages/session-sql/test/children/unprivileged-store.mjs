// Opens a store as an unprivileged user and reports, as one JSON line, how far it got: chmod does
// not stop root, so a test of read-only files needs a process that is not root. Everything the
// store loads lazily (better-sqlite3, its native addon, the migrations) is loaded first, by
// opening a throwaway store at WARM, then a root process drops to uid/gid 65534 (nobody); the
// checkout itself need not be readable by that user.
//
//   node unprivileged-store.mjs WARM PATH open|commit   (commit: a turn on the session `s`)
import { openSqliteStore } from '@mh/session-sql';

const [warm, path, action] = process.argv.slice(2);
const report = (fields) => process.stdout.write(`${JSON.stringify(fields)}\n`);
const failure = (stage, error) => ({
  stage,
  name: error?.name,
  code: error?.code,
  field: error?.field,
  path: error?.path,
  problem: error?.problem,
  message: error instanceof Error ? error.message : String(error),
});

const warmed = await openSqliteStore(warm);
await warmed.close();
if (process.getuid?.() === 0) {
  try {
    process.setgid(65534);
    process.setuid(65534);
  } catch (error) {
    report({ stage: 'cannot-drop', message: String(error) });
    process.exit(0);
  }
}
let store;
try {
  store = await openSqliteStore(path);
} catch (error) {
  report(failure('open', error));
  process.exit(0);
}
try {
  if (action === 'commit') {
    const text = [{ type: 'text', text: 'hello' }];
    const turn = { messages: [{ id: 'm1', role: 'user', content: text }] };
    const { head } = await store.load('s');
    await store.commit('s', turn, { expectedHead: head });
  }
  report({ stage: 'done', uid: process.getuid?.() });
} catch (error) {
  report(failure(action, error));
} finally {
  await store.close().catch(() => undefined);
}
