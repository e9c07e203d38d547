// The README's client example, verbatim: readme-examples.test.ts checks it matches the README, and
// type-checking the tests compiles it.
import { DBOSClient } from '@dbos-inc/dbos-sdk';
import { enqueueRun, sendDecisions, waitingCalls } from '@mh/durable-dbos';

const client = await DBOSClient.create({ systemDatabaseUrl: 'postgres://localhost/agents' });
const run = await enqueueRun(client, {
  agent: 'support',
  prompt: 'Refund order 42',
  session: 'ticket-42',
  queue: 'agents',
});
const [waiting] = (await waitingCalls(client, run.workflowId, 5)) ?? [];
if (waiting) await sendDecisions(client, run.workflowId, [{ callId: waiting.callId, approve: true }]);
console.log((await run.result()).text);
await client.destroy();
