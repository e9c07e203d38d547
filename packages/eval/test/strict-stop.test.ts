import { type AgentEvent, ReplayDriftError, type RunResult } from '@mh/core';
import { scripted } from '@mh/providers';
import { describe, expect, it } from 'vitest';
import { openCassette, settleReplayedRuns } from '../src/index.js';
import { type AgentSettings, cassetteAgent, PROMPT, script } from './agent-fixture.js';
import { tempCassette } from './helpers.js';

const KEY = { case: 'orders', repeat: 0 };
const THANKS = 'Thanks. Anything else?';

/** Records PROMPT (three model calls) and then THANKS (one). */
async function recordSession(settings: AgentSettings = {}): Promise<string> {
  const path = tempCassette();
  const cassette = await openCassette(path, { mode: 'record' });
  const model = scripted([...script(), { text: 'Nothing else.' }]);
  const { agent } = cassetteAgent(cassette, KEY, model, settings);
  await agent.run(PROMPT);
  expect((await agent.run(THANKS)).status).toBe('completed');
  await cassette.close();
  return path;
}

async function replaySession(path: string, settings: AgentSettings, strict: boolean) {
  const cassette = await openCassette(path, { mode: 'lockdown', strict });
  const { agent } = cassetteAgent(cassette, KEY, undefined, settings);
  const results: RunResult[] = [];
  for (const prompt of [PROMPT, THANKS]) {
    results.push(cassette.settle(KEY, await agent.run(prompt)));
    if (results.at(-1)?.status !== 'completed') break;
  }
  const { drifts } = await cassette.close();
  return { results, drifts };
}

describe('a strict replay that stops before its recording does', () => {
  it('ends the run with a ReplayDriftError when a lower maxTurns leaves recorded requests unconsumed', async () => {
    const { results, drifts } = await replaySession(await recordSession(), { maxTurns: 2 }, true);
    const [first] = results;
    expect(first?.status).toBe('error');
    expect(ReplayDriftError.isInstance(first?.error)).toBe(true);
    expect(first?.error).toMatchObject({ path: 'requests', requestIndex: 2 });
    expect(first?.error?.message).toContain('the run stopped (guard max-turns)');
    expect(drifts.map((drift) => drift.kind)).toEqual(['unconsumed-requests']);
  });

  it('ends a bare run() with the drift error too: the loop asks its provider to settle', async () => {
    const path = await recordSession();
    const cassette = await openCassette(path, { mode: 'lockdown' });
    const { agent } = cassetteAgent(cassette, KEY, undefined, { maxTurns: 2 });
    const result = await agent.run(PROMPT);
    expect(result.status).toBe('error');
    expect(result.guard).toBeUndefined();
    expect(ReplayDriftError.isInstance(result.error)).toBe(true);
    expect(result.error?.message).toContain('the run stopped (guard max-turns)');
    // Settling again (what an eval runner does) changes nothing: the finding is reported once.
    expect(cassette.settle(KEY, result)).toBe(result);
    expect((await cassette.close()).drifts.map((drift) => drift.kind)).toEqual([
      'unconsumed-requests',
    ]);
  });

  it('leaves a lenient replay its status: the drift is listed at close', async () => {
    const { results, drifts } = await replaySession(await recordSession(), { maxTurns: 2 }, false);
    expect(results[0]?.status).toBe('guard');
    expect(drifts.map((drift) => drift.kind)).toEqual(['unconsumed-requests']);
  });

  it('does not flag a run that ends as recorded while the session has more prompts', async () => {
    const { results, drifts } = await replaySession(await recordSession(), {}, true);
    expect(results.map((result) => result.status)).toEqual(['completed', 'completed']);
    expect(drifts).toEqual([]);
  });

  it('does not flag a guard that tripped in the recording too', async () => {
    const path = await recordSession({ maxTurns: 2 });
    const cassette = await openCassette(path, { mode: 'lockdown' });
    const { agent } = cassetteAgent(cassette, KEY, undefined, { maxTurns: 2 });
    expect(cassette.settle(KEY, await agent.run(PROMPT)).status).toBe('guard');
    expect(cassette.settle(KEY, await agent.run(THANKS)).status).toBe('completed');
    expect((await cassette.close()).drifts).toEqual([]);
  });

  it('settles the run-end event of an eval agent (what EvalRunner reads)', async () => {
    const path = await recordSession();
    const cassette = await openCassette(path, { mode: 'lockdown' });
    const { agent } = cassetteAgent(cassette, KEY, undefined, { maxTurns: 2 });
    const settled = settleReplayedRuns(agent, (result) => cassette.settle(KEY, result));
    const events: AgentEvent[] = [];
    for await (const event of settled.stream(PROMPT, {})) events.push(event);
    const end = events.at(-1);
    expect(end?.type === 'run-end' && end.result.status).toBe('error');
    await cassette.close();
  });
});
