import { ProviderError, ReplayDriftError } from '@mh/core';
import { scripted, withRetry } from '@mh/providers';
import { beforeEach, describe, expect, it } from 'vitest';
import { type DriftFinding, openCassette } from '../src/index.js';
import {
  type AgentSettings,
  cassetteAgent,
  lookupRuns,
  observed,
  PROMPT,
  script,
  scriptedModel,
} from './agent-fixture.js';
import { tempCassette } from './helpers.js';

const KEY = { case: 'orders', repeat: 0 };

/** Records one run of the default agent; returns the cassette path and what the run showed. */
async function recordRun(settings: AgentSettings = {}) {
  const path = tempCassette();
  const cassette = await openCassette(path, { mode: 'record', meta: { provider: 'scripted' } });
  const { agent, tracer } = cassetteAgent(cassette, KEY, scriptedModel(), settings);
  const result = await agent.run(PROMPT);
  expect(result.status).toBe('completed');
  await cassette.close();
  return { path, seen: observed(result, tracer) };
}

/** Replays the recording with changed settings (lenient), returning the run and every finding. */
async function replayRun(path: string, settings: AgentSettings, strict = false) {
  const cassette = await openCassette(path, { mode: 'lockdown', strict });
  const { agent, tracer } = cassetteAgent(cassette, KEY, undefined, settings);
  const result = await agent.run(PROMPT);
  const { drifts } = await cassette.close();
  return { result, tracer, drifts };
}

const paths = (drifts: readonly DriftFinding[]): string[] => drifts.map((drift) => drift.path);

beforeEach(() => {
  lookupRuns.count = 0;
});

describe('replaying a whole agent run', () => {
  it('reproduces the answer, turns, tokens, cost and span metrics without running tools', async () => {
    const { path, seen } = await recordRun();
    expect(lookupRuns.count).toBe(2);
    expect(seen.metrics.costUsd).toBeGreaterThan(0);
    const { result, tracer, drifts } = await replayRun(path, {}, true);
    expect(observed(result, tracer)).toEqual(seen);
    expect(drifts).toEqual([]);
    expect(lookupRuns.count).toBe(2);
  });

  it('fails a strict replay whose system prompt changed, naming system', async () => {
    const { path } = await recordRun();
    const { result, drifts } = await replayRun(path, { system: 'Answer in French.' }, true);
    expect(result.status).toBe('error');
    expect(ReplayDriftError.isInstance(result.error)).toBe(true);
    expect(result.error).toMatchObject({ path: 'system', requestIndex: 0 });
    expect(paths(drifts)).toContain('system');
  });

  it("finds a changed tool description at the tool's path and still answers as recorded", async () => {
    const { path, seen } = await recordRun();
    const { result, drifts } = await replayRun(path, { lookupDescription: 'Finds orders.' });
    expect(result.text).toBe(seen.text);
    expect(new Set(paths(drifts))).toEqual(new Set(['tools[0].description']));
    expect(drifts.map((drift) => drift.requestIndex)).toEqual([0, 1, 2]);
  });

  it("finds a changed tool schema at the schema field's path, and the calls it now rejects", async () => {
    const { path } = await recordRun();
    const { drifts } = await replayRun(path, { lookupQueryType: 'number' });
    expect(new Set(paths(drifts))).toEqual(
      new Set([
        'tools[0].inputSchema.properties.query.type',
        'toolCalls.toolu_1.status',
        'toolCalls.toolu_2.status',
      ]),
    );
    const rejected = drifts.find((drift) => drift.path === 'toolCalls.toolu_1.status');
    expect(rejected?.message).toContain('recorded: ran (ok); now: invalid arguments');
  });

  it('finds a lower maxTurns as recorded requests that were never asked for', async () => {
    const { path } = await recordRun();
    const { result, drifts } = await replayRun(path, { maxTurns: 2 });
    expect(result.status).toBe('guard');
    expect(drifts.map((drift) => [drift.kind, drift.requestIndex])).toEqual([
      ['unconsumed-requests', 2],
    ]);
  });

  it('finds a changed maxOutputTokens as parameter drift in every request', async () => {
    const { path } = await recordRun();
    const { drifts } = await replayRun(path, { maxOutputTokens: 256 });
    expect(drifts.map((drift) => [drift.path, drift.recorded, drift.actual])).toEqual([
      ['maxOutputTokens', 1024, 256],
      ['maxOutputTokens', 1024, 256],
      ['maxOutputTokens', 1024, 256],
    ]);
  });

  it('finds a compaction threshold that now trims old tool results in a later request', async () => {
    const { path } = await recordRun();
    const { drifts } = await replayRun(path, {
      compaction: {
        contextWindow: 10_000,
        threshold: 0.1,
        keepRecentTokens: 500,
        trimToolResultTokens: 64,
      },
    });
    const messageDrift = drifts.find((drift) => drift.path.startsWith('messages['));
    expect(messageDrift?.requestIndex).toBeGreaterThan(0);
    expect(messageDrift?.path).toMatch(/^messages\[\d+\]/);
  });

  it('replays retries and a final 429 exactly: stream-resets, discarded tokens, cost, error', async () => {
    const overloaded = new ProviderError('529 overloaded', { kind: 'overloaded', status: 529 });
    const limited = new ProviderError('429 rate limited', { kind: 'rate-limit', status: 429 });
    const [first, second] = script();
    const model = withRetry(
      scripted([
        // A stream that breaks after 4 events, then succeeds on the retry.
        { ...(first as object), error: overloaded, failAfterEvents: 4 },
        first as object,
        // The next call is rate limited on every attempt: the run ends with the 429.
        { ...(second as object), error: limited },
        { ...(second as object), error: limited },
      ]),
      { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
    );
    const path = tempCassette();
    const cassette = await openCassette(path, { mode: 'record' });
    const live = cassetteAgent(cassette, KEY, model);
    const recorded = await live.agent.run(PROMPT);
    await cassette.close();
    expect(recorded.status).toBe('error');
    expect(ProviderError.isInstance(recorded.error)).toBe(true);

    const { result, tracer, drifts } = await replayRun(path, {}, true);
    expect(drifts).toEqual([]);
    expect(observed(result, tracer)).toEqual(observed(recorded, live.tracer));
    expect(result.error).toMatchObject({ kind: 'rate-limit', status: 429, retryable: true });
    const retries = (records: ReturnType<typeof tracer.records>) =>
      records.map((record) => record.attributes['mh.retry.attempts']).filter(Boolean);
    expect(retries(tracer.records())).toEqual(retries(live.tracer.records()));
    expect(retries(tracer.records())).toContain(2);
  });
});
