// Runs turns the way the agent loop does — journal the assistant message, journal each call's
// start, run it, journal its end, commit — until `target` turns are committed or it is killed.
// Before each write it appends an `intent` line to the log, after it a `done` line (appendFileSync
// survives SIGKILL once it returns). A started call with no result is never run again: it gets
// an "interrupted" result. Each run of a tool appends its call id to the side-effect file.
// `store` is a SQLite path or a PostgreSQL URL. With `dieAt`, the worker kills itself with
// SIGKILL right after the dieAt-th SQL statement it runs (counting BEGIN and COMMIT), which puts
// kills between the statements of a transaction, not only between transactions. `dieAt` may also
// be `op:k` (`commit:1`): die right after the k-th statement run since the first `op` intent was
// logged, so a test can aim a kill inside each kind of write however slow the machine is.
import { appendFileSync } from 'node:fs';
import { interruptedResultText } from '@mh/core/internal';
import { assistantFor, resultFor, waitForGo } from './messages.mjs';
import { openStore } from './open-store.mjs';

const [spec, sessionId, logPath, sideEffectsPath, targetText, dieAtText] = process.argv.slice(2);
const [dieAtOp, dieAtCount] = dieAtText?.includes(':') ? dieAtText.split(':') : [];
// Statements are counted from the start, or from the first intent of `dieAtOp` when one is given.
let counting = dieAtOp === undefined;
const log = (line) => {
  appendFileSync(logPath, `${JSON.stringify(line)}\n`);
  if (line.phase === 'intent' && line.op === dieAtOp) counting = true;
};
process.stdout.write('ready\n');
await waitForGo();
let statements = 0;
const dieAt = dieAtText === undefined ? Number.POSITIVE_INFINITY : Number(dieAtCount ?? dieAtText);
const store = await openStore(spec, {
  onQuery: () => {
    if (!counting) return;
    statements += 1;
    if (statements === dieAt) process.kill(process.pid, 'SIGKILL');
  },
});
process.stdout.write('started\n');

for (;;) {
  const state = await store.load(sessionId);
  const turn = state.checkpoints.length + 1;
  if (turn > Number(targetText)) break;
  const assistant = assistantFor(turn);
  let pending = await store.pendingTurn(sessionId, 'main');
  if (pending?.assistant.id !== assistant.id || pending.baseHead !== state.head) {
    log({ phase: 'intent', op: 'journalTurn', turn });
    await store.journalTurn(sessionId, 'main', state.head, assistant);
    log({ phase: 'done' });
    pending = await store.pendingTurn(sessionId, 'main');
  }
  const results = [];
  for (const { call, started, result } of pending.calls) {
    if (result) {
      results.push(result);
      continue;
    }
    let outcome;
    if (started) {
      outcome = {
        type: 'tool_result',
        toolUseId: call.id,
        content: [{ type: 'text', text: interruptedResultText('interrupted') }],
        isError: true,
      };
    } else {
      log({ phase: 'intent', op: 'start', turn, call: call.id });
      await store.journalStart(sessionId, 'main', call.id);
      log({ phase: 'done' });
      appendFileSync(sideEffectsPath, `${call.id}\n`);
      outcome = resultFor(call.id);
    }
    log({ phase: 'intent', op: 'end', turn, call: call.id, result: outcome });
    await store.journalEnd(sessionId, 'main', call.id, outcome);
    log({ phase: 'done' });
    results.push(outcome);
  }
  const messages = [assistant, { id: `results-${turn}`, role: 'user', content: results }];
  log({ phase: 'intent', op: 'commit', turn, messages });
  await store.commit(
    sessionId,
    { messages, meta: { model: 'fake' } },
    { expectedHead: state.head },
  );
  log({ phase: 'done' });
}
await store.close();
