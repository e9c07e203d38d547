import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, defineTool, scripted } from '@mh/sdk';
import { openSqliteStore } from '@mh/session-sql';
import { z } from 'zod';
const dir = mkdtempSync(join(tmpdir(), 'prof-'));
const store = await openSqliteStore(join(dir, 'a.db'));
const timing = {};
for (const m of ['commit', 'journalTurn', 'pendingTurn', 'load', 'getSession', 'createSession']) {
  const f = store[m].bind(store);
  store[m] = async (...a) => { const s = performance.now(); try { return await f(...a); } finally { (timing[m] ??= []).push(performance.now() - s); } };
}
const add = defineTool({ name: 'add', description: 'Adds.', permission: 'read', input: z.object({ a: z.number(), b: z.number() }), run: async ({ a, b }) => String(a + b) });
let turn = 0;
const provider = scripted([() => { turn++; return turn % 2 === 1 ? { toolCalls: [{ name: 'add', input: { a: turn, b: 1 } }], usage: { inputTokens: 100, outputTokens: 10 } } : { text: `sum ${turn}`, usage: { inputTokens: 100, outputTokens: 10 } }; }], { whenExhausted: 'repeat-last', recordRequests: false });
const agent = new Agent({ provider, model: 'claude-sonnet-4-5', tools: [add], session: { store, id: 'bench' } });
const N = Number(process.env.N ?? 500); const steps = [];
for (let i = 0; i < N; i++) { const s = performance.now(); await agent.run(`q${i}`); steps.push(performance.now() - s); }
const med = (x) => [...x].sort((a, b) => a - b)[x.length >> 1];
console.log('step median', med(steps.slice(50)).toFixed(3));
for (const [k, v] of Object.entries(timing)) console.log(k, v.length, 'median', med(v.slice(Math.min(50, v.length - 1))).toFixed(3), 'sum/step', (v.reduce((a, b) => a + b, 0) / N).toFixed(3));
await store.close();
