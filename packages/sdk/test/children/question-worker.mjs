// An Agent on a SQLite session whose `transfer` tool (not idempotent) asks two questions before
// its side effect, for the kill -9 tests of questions. Plain Node (children cannot load `.ts`):
// it imports the BUILT packages.
//
//   node question-worker.mjs interrupt <db file> <effects file>
//     runs the prompt until the first question, prints the result as one JSON line, then waits to
//     be killed;
//   node question-worker.mjs resume <db file> <effects file> [<decisions JSON> [slow]]
//     resumes with the decisions and prints the result; still interrupted, it waits to be killed
//     (with `slow`, the tool waits after its side effect, so the parent can kill it while it runs).
//
// Each run of `transfer` past its questions appends `transfer <amount> <to>` to the effects file.
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ScriptedProvider } from '@mh/core/testing';
import { Agent } from '@mh/sdk';
import { openSqliteStore } from '@mh/session-sql';
import { defineTool } from '@mh/tools';
import { z } from 'zod';

const [mode, path, effects, decisionsText, slow] = process.argv.slice(2);
const store = await openSqliteStore(path);
const transfer = defineTool({
  name: 'transfer',
  description: 'Transfers money',
  input: z.object({ from: z.string() }),
  permission: 'write',
  idempotent: false,
  run: async ({ from }, { interrupt }) => {
    const amount = await interrupt({
      question: `How much from ${from}?`,
      schema: { type: 'integer' },
    });
    const to = await interrupt('To whom?');
    appendFileSync(effects, `transfer ${amount} ${to}\n`);
    if (slow === 'slow') await sleep(60_000);
    return `sent ${amount} to ${to}`;
  },
});
const provider = new ScriptedProvider(
  mode === 'interrupt'
    ? [{ toolCalls: [{ id: 't1', name: 'transfer', input: { from: 'savings' } }] }]
    : [{ text: 'transferred' }],
);
const agent = new Agent({
  provider,
  model: 'm',
  tools: [transfer],
  permissions: { grants: ['write'] },
  session: { store, id: 'bank' },
});
const result =
  mode === 'interrupt'
    ? await agent.run('Move some money')
    : await agent
        .resume(decisionsText ? { decisions: JSON.parse(decisionsText) } : {})
        .catch((error) => ({ status: 'threw', error }));
const summary = {
  status: result?.status,
  error: result?.error ? `${result.error.name}: ${result.error.message}` : undefined,
  interrupts: result?.interrupts?.map(({ kind, callId, question, answers }) => ({
    kind,
    callId,
    question,
    answers,
  })),
};
process.stdout.write(`${JSON.stringify(summary)}\n`);
if (result?.status === 'interrupted') await sleep(60_000);
await store.close();
