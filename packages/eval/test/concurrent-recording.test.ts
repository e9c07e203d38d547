import { readFileSync } from 'node:fs';
import { scripted } from '@mh/providers';
import { describe, expect, it } from 'vitest';
import { openCassette } from '../src/index.js';
import { cassetteAgent, observed, PROMPT, script } from './agent-fixture.js';
import { tempCassette } from './helpers.js';

const RUNS = 8;

/** The fixture's script with a pause before every event, different per run. */
function slowModel(run: number) {
  return scripted(script().map((step) => ({ ...(step as object), delayMs: 1 + (run % 3) })));
}

describe('recording many runs into one cassette at once', () => {
  it('writes whole keyed lines that interleave without mixing, and every run replays', async () => {
    const path = tempCassette();
    const recording = await openCassette(path, { mode: 'record' });
    const keys = Array.from({ length: RUNS }, (_, run) => ({
      case: `case-${run % 4}`,
      repeat: Math.floor(run / 4),
    }));
    const recorded = await Promise.all(
      keys.map(async (key, run) => {
        const { agent, tracer } = cassetteAgent(recording, key, slowModel(run));
        return observed(await agent.run(PROMPT), tracer);
      }),
    );
    await recording.close();

    const lines = readFileSync(path, 'utf8').trimEnd().split('\n').slice(1);
    const entries = lines.map(
      (line) => JSON.parse(line) as { type: string; case: string; repeat: number; index: number },
    );
    expect(entries.filter((entry) => entry.type === 'request')).toHaveLength(RUNS * 3);
    expect(entries.filter((entry) => entry.type === 'tool')).toHaveLength(RUNS * 3);
    const order = entries.map((entry) => `${entry.case}/${entry.repeat}`);
    const switches = order.filter((key, index) => index > 0 && key !== order[index - 1]).length;
    // Grouped lines would switch key RUNS - 1 times; concurrent runs switch far more often.
    expect(switches).toBeGreaterThan(RUNS);
    for (const key of keys) {
      const indexes = entries
        .filter(
          (entry) =>
            entry.type === 'request' && entry.case === key.case && entry.repeat === key.repeat,
        )
        .map((entry) => entry.index);
      expect(indexes).toEqual([0, 1, 2]);
    }

    const replay = await openCassette(path, { mode: 'lockdown' });
    const replayed = await Promise.all(
      keys.map(async (key) => {
        const { agent, tracer } = cassetteAgent(replay, key, undefined);
        return observed(await agent.run(PROMPT), tracer);
      }),
    );
    const { drifts } = await replay.close();
    expect(drifts).toEqual([]);
    expect(replayed).toEqual(recorded);
  });
});
