// An Agent on a SQLite session whose `charge` tool (not idempotent) needs approval, for the kill -9
// tests of interrupts. Plain Node (children cannot load `.ts`): it imports the BUILT packages.
//
//   node approval-worker.mjs interrupt <db file> <effects file>
//     runs the prompt until the interrupt, prints the result as one JSON line, then waits to be
//     killed;
//   node approval-worker.mjs resume <db file> <effects file> <decisions JSON> [slow]
//     resumes with the decisions and prints the result (with `slow`, the tool waits after its
//     side effect, so the parent can kill the process while it runs).
//
// Each run of `charge` appends `charge <callId>` to the effects file before it returns.
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ScriptedProvider } from '@mh/core/testing';
import { Agent } from '@mh/sdk';
import { openSqliteStore } from '@mh/session-sql';
import { defineTool } from '@mh/tools';
import { z } from 'zod';

const [mode, path, effects, decisionsText, slow] = process.argv.slice(2);
const store = await openSqliteStore(path);
const charge = defineTool({
  name: 'charge',
  description: 'Charges the card',
  input: z.object({ cents: z.number().int() }),
  permission: 'write',
  idempotent: false,
  needsApproval: true,
  run: async ({ cents }, { callId }) => {
    appendFileSync(effects, `charge ${callId}\n`);
    if (slow === 'slow') await sleep(60_000);
    return `charged ${cents}`;
  },
});
const provider = new ScriptedProvider(
  mode === 'interrupt'
    ? [{ toolCalls: [{ id: 'c1', name: 'charge', input: { cents: 500 } }] }]
    : [{ text: 'charged and done' }],
);
const agent = new Agent({
  provider,
  model: 'm',
  tools: [charge],
  permissions: { grants: ['write'] },
  session: { store, id: 'card' },
});
const result =
  mode === 'interrupt'
    ? await agent.run('Charge 5 dollars')
    : await agent
        .resume(decisionsText ? { decisions: JSON.parse(decisionsText) } : {})
        .catch((error) => ({ status: 'threw', error }));
const summary = {
  status: result?.status,
  error: result?.error ? `${result.error.name}: ${result.error.message}` : undefined,
  interrupts: result?.interrupts?.map((interrupt) => interrupt.callId),
};
process.stdout.write(`${JSON.stringify(summary)}\n`);
if (mode === 'interrupt') await sleep(60_000);
await store.close();
