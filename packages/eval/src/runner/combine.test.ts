import { ConfigError, metricsFromSpans, SPAN_ATTRIBUTES, SPAN_NAMES } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { runFixture } from '../../test/session-fixture.js';
import { combine } from './combine.js';

async function threePrompts() {
  return runFixture({
    prompts: ['one', 'two', 'three'],
    turns: [
      { text: 'a', usage: { input: 100, output: 10, cacheRead: 50 } },
      { calls: [{ name: 'lookup', input: { id: 1 } }], usage: { input: 200, output: 20 } },
      { text: 'b', usage: { input: 300, output: 30 } },
      { text: 'c', usage: { input: 400, output: 40, cacheRead: 100 } },
    ],
    tools: { lookup: { run: () => 'found' } },
  });
}

describe('combine (SPEC defect 2)', () => {
  it('merges every run of a session, not just the last', async () => {
    const session = await threePrompts();
    const metrics = combine(session.results, session.tracer.records());
    expect(metrics).toMatchObject({
      runs: 3,
      turns: 4,
      toolCalls: 1,
      tokens: { input: 1000, output: 100, cacheRead: 150, cacheWrite: 0 },
    });
    const last = session.results.at(-1);
    expect(metrics.costUsd).toBeGreaterThan(last?.costUsd ?? 0);
    expect(metrics.costUsd).toBeCloseTo(
      session.results.reduce((sum, result) => sum + result.costUsd, 0),
      12,
    );
  });

  it('finds each run span carrying only its own cost', async () => {
    const session = await threePrompts();
    const costs = session.tracer
      .records()
      .filter((span) => span.name === SPAN_NAMES.run)
      .map((span) => span.attributes[SPAN_ATTRIBUTES.costUsd]);
    expect(costs).toEqual(session.results.map((result) => result.costUsd));
    expect(metricsFromSpans(session.tracer.records()).costUsd).toBeCloseTo(
      combine(session.results, session.tracer.records()).costUsd,
      12,
    );
  });

  it('falls back to the run results when the agent ignored the tracer', async () => {
    const session = await threePrompts();
    expect(combine(session.results)).toEqual(combine(session.results, session.tracer.records()));
  });

  it('rejects non-arrays', () => {
    expect(() => combine('x' as never)).toThrow(ConfigError);
    expect(() => combine([], {} as never)).toThrow(/spans/);
  });
});
