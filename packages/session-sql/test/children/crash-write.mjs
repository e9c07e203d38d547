// Runs ONE store write (a JSON { method, args } file) and kills itself with SIGKILL right after
// the k-th SQL statement of that write (counting BEGIN and COMMIT; the opening's statements are not
// counted) — the kill-at-the-k-th-statement of crash-worker.mjs, aimed at any write the
// conformance suite plans. Every statement is appended to `statementLog` before the kill may
// come, so the parent can tell whether COMMIT ran (the write landed) or not.
import { appendFileSync, readFileSync } from 'node:fs';
import { openStore } from './open-store.mjs';

const [spec, writePath, kText, statementLog] = process.argv.slice(2);
const write = JSON.parse(readFileSync(writePath, 'utf8'));
const k = Number(kText);
let counting = false;
let statements = 0;
const store = await openStore(spec, {
  onQuery: (sql) => {
    if (!counting) return;
    statements += 1;
    appendFileSync(statementLog, `${JSON.stringify(sql)}\n`);
    if (statements === k) process.kill(process.pid, 'SIGKILL');
  },
});
counting = true;
await store[write.method](...write.args);
counting = false;
await store.close();
