// Runs an Agent on a SQLite session through a fixed script of prompts, for the kill -9 test. It is
// restartable: each start resumes what a kill interrupted (`agent.resume()`), then sends the
// prompts the stored history has not seen yet. Plain Node (children cannot load `.ts`), so it
// imports the BUILT packages by name.
//
//   node agent-worker.mjs <db file> <plan JSON>
//
// The plan has one entry per prompt: the tool turns the model makes before its final answer, each
// a list of tool names (`lookup` is idempotent, `charge` is not). The worker prints `ready` once
// its modules are loaded, then waits for one JSON line on stdin, `{ sessionId, sideEffects,
// phaseLog }`, so that a pool of warm workers can serve any session. Each tool run appends
// `<tool> <callId>` to `sideEffects` before it returns. A line is appended to `phaseLog` (and
// printed) before every store call, model call and tool run, and after each store call and tool
// run, so the parent can pick a kill point and tell where the kill landed; `completed` comes last.
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { messageText } from '@mh/core';
import { scripted } from '@mh/providers';
import { Agent } from '@mh/sdk';
import { openSqliteStore } from '@mh/session-sql';
import { defineTool } from '@mh/tools';
import { z } from 'zod';

const [path, planText] = process.argv.slice(2);
/** @type {string[][][]} */
const plan = JSON.parse(planText);

process.stdout.write('ready\n');
const { sessionId, sideEffects, phaseLog } = await new Promise((resolve) => {
  process.stdin.once('data', (chunk) => {
    process.stdin.destroy();
    resolve(JSON.parse(String(chunk)));
  });
});

/** Records a phase; appendFileSync has reached the file when it returns, so a kill cannot undo it. */
const phase = (line) => {
  appendFileSync(phaseLog, `${line}\n`);
  process.stdout.write(`${line}\n`);
};

const isPrompt = (message) =>
  message.role === 'user' && message.content.some((block) => block.type === 'text');

/**
 * The model: a pure function of the request, so a restarted worker answers exactly as the killed
 * one would have, with the same tool call ids. Its step within prompt `index` is the number of
 * assistant messages since that prompt.
 */
function nextTurn(request) {
  const messages = request.messages;
  const promptAt = messages.findLastIndex(isPrompt);
  const index = Number(messageText(messages[promptAt]).replace('prompt ', ''));
  const step = messages.slice(promptAt).filter((message) => message.role === 'assistant').length;
  const toolTurns = plan[index] ?? [];
  phase(`model p${index} t${step}`);
  if (step > toolTurns.length) return { text: `unexpected turn ${step} of prompt ${index}` };
  if (step === toolTurns.length) return { text: `final answer ${index}`, delayMs: 2 };
  return {
    text: `step ${step} of prompt ${index}`,
    toolCalls: (toolTurns[step] ?? []).map((name, call) => {
      const id = `p${index}-t${step}-${name}-${call}`;
      return { id, name, input: name === 'charge' ? { amountCents: 100 + call } : { key: id } };
    }),
    delayMs: 2,
  };
}

function sideEffectTool(name, idempotent, sleepMs) {
  return defineTool({
    name,
    description: idempotent ? 'Looks a key up.' : 'Charges an amount: not safe to repeat.',
    input: idempotent ? z.object({ key: z.string() }) : z.object({ amountCents: z.number() }),
    permission: idempotent ? 'read' : 'write',
    idempotent,
    run: async (_input, context) => {
      phase(`tool ${name} ${context.callId}`);
      await sleep(sleepMs);
      appendFileSync(sideEffects, `${name} ${context.callId}\n`);
      phase(`tool ${name} ${context.callId} ran`);
      return `${name} done ${context.callId}`;
    },
  });
}

/**
 * The store, logging each call before it starts and after it returns (a commit with its id;
 * `commitTurns`, which lands several checkpoints in one write, with the last one's).
 */
function loggedStore(store) {
  return new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (typeof value !== 'function') return value;
      return async (...args) => {
        phase(`store ${String(property)}`);
        const result = await value.apply(target, args);
        const landed =
          property === 'commit' ? result.id : property === 'commitTurns' ? result.at(-1)?.id : '';
        phase(`store ${String(property)} done${landed ? ` ${landed}` : ''}`);
        return result;
      };
    },
  });
}

function fail(what, result) {
  process.stderr.write(`${what} ended ${result.status}: ${result.error?.stack ?? ''}\n`);
  process.exit(1);
}

phase(`worker ${process.pid}`);
const store = await openSqliteStore(path);
phase('store open');
const agent = new Agent({
  provider: scripted([nextTurn], { whenExhausted: 'repeat-last' }),
  model: 'scripted',
  tools: [sideEffectTool('lookup', true, 4), sideEffectTool('charge', false, 6)],
  permissions: { grants: ['write'] },
  session: { store: loggedStore(store), id: sessionId },
});
const resumed = await agent.resume();
if (resumed && resumed.status !== 'completed') fail('resume', resumed);
for (let index = agent.history.filter(isPrompt).length; index < plan.length; index++) {
  const result = await agent.run(`prompt ${index}`);
  if (result.status !== 'completed') fail(`prompt ${index}`, result);
}
await store.close();
phase('completed');
