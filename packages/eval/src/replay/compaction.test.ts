import { type ModelRequest, ReplayDriftError } from '@mh/core';
import { collect, ScriptedProvider } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import { answerEvents, requestOf, tempCassette } from '../../test/helpers.js';
import { openCassette } from '../cassette/cassette.js';
import type { DriftFinding } from './drift.js';

const KEY = { case: 'chat', repeat: 0 };

/** The n-th turn of a conversation (model call) or the n-th compaction's summary call. */
const turn = (n: number): ModelRequest => requestOf(`question ${n}`, { tools: [] });
const summary = (n: number): ModelRequest =>
  requestOf(`<transcript>${n}</transcript>`, {
    system: 'You compress the earlier part of a conversation.',
    purpose: 'summary',
  });

type Step = ['turn' | 'summary', number];

async function record(steps: readonly Step[]): Promise<string> {
  const path = tempCassette();
  const cassette = await openCassette(path, { mode: 'record' });
  const provider = cassette.provider(
    new ScriptedProvider(steps.map(([kind, n]) => ({ events: answerEvents(`${kind} ${n}`) }))),
    KEY,
  );
  for (const [kind, n] of steps)
    await collect(provider.stream(kind === 'turn' ? turn(n) : summary(n)));
  await cassette.close();
  return path;
}

/** Replays `steps`; returns what each call answered (or the drift it failed with) and the findings. */
async function replay(path: string, steps: readonly Step[], strict = false) {
  const cassette = await openCassette(path, { mode: 'lockdown', strict });
  const provider = cassette.provider(undefined, KEY);
  const answers: string[] = [];
  for (const [kind, n] of steps) {
    try {
      const events = await collect(provider.stream(kind === 'turn' ? turn(n) : summary(n)));
      const end = events.find((event) => event.type === 'message-end');
      answers.push(
        end?.type === 'message-end'
          ? String(end.message.content[0]?.type === 'text' && end.message.content[0].text)
          : '?',
      );
    } catch (error) {
      answers.push(ReplayDriftError.isInstance(error) ? `drift ${error.path}` : String(error));
      if (strict) break;
    }
  }
  const { drifts } = await cassette.close();
  return { answers, drifts };
}

const kinds = (drifts: readonly DriftFinding[]) => drifts.map((drift) => [drift.kind, drift.path]);

const RECORDED: Step[] = [
  ['turn', 0],
  ['turn', 1],
  ['summary', 0],
  ['turn', 2],
  ['turn', 3],
];

describe('ReplayProvider pairs summary calls with summary calls', () => {
  it('replays a run with its compaction where it was recorded without drift', async () => {
    const { answers, drifts } = await replay(await record(RECORDED), RECORDED);
    expect(answers).toEqual(['turn 0', 'turn 1', 'summary 0', 'turn 2', 'turn 3']);
    expect(drifts).toEqual([]);
  });

  it('reports a compaction that moved earlier as a compaction finding naming both places, and serves each call its own kind', async () => {
    const { answers, drifts } = await replay(await record(RECORDED), [
      ['turn', 0],
      ['summary', 0],
      ['turn', 1],
      ['turn', 2],
      ['turn', 3],
    ]);
    expect(answers).toEqual(['turn 0', 'summary 0', 'turn 1', 'turn 2', 'turn 3']);
    expect(kinds(drifts)).toEqual([['compaction', 'compactions[0]']]);
    expect(drifts[0]?.message).toContain(
      'compaction 1 moved: recorded as request 2, after 2 model call(s); now request 1, after 1 model call(s)',
    );
  });

  it('reports a compaction that moved later where it went missing, then where it happens now', async () => {
    const { drifts } = await replay(await record(RECORDED), [
      ['turn', 0],
      ['turn', 1],
      ['turn', 2],
      ['summary', 0],
      ['turn', 3],
    ]);
    expect(kinds(drifts)).toEqual([
      ['compaction', 'compactions[0]'],
      ['compaction', 'compactions[0]'],
    ]);
    expect(drifts[0]?.message).toContain(
      'compaction 1 did not happen: recorded as request 2, after 2 model call(s); now model call 3 (request 2) comes without it',
    );
    expect(drifts[1]?.message).toContain(
      'compaction 1 moved: recorded as request 2, after 2 model call(s); now request 3, after 3 model call(s)',
    );
  });

  it('reports a compaction that vanished, and fails a strict replay with it rather than with the next request', async () => {
    const steps: Step[] = [
      ['turn', 0],
      ['turn', 1],
      ['turn', 2],
      ['turn', 3],
    ];
    const lenient = await replay(await record(RECORDED), steps);
    expect(lenient.answers).toEqual(['turn 0', 'turn 1', 'turn 2', 'turn 3']);
    expect(kinds(lenient.drifts)).toEqual([['compaction', 'compactions[0]']]);
    const strict = await replay(await record(RECORDED), steps, true);
    expect(strict.answers).toEqual(['turn 0', 'turn 1', 'drift compactions[0]']);
  });

  it('reports a compaction that appeared, and gives it no answer (there is none recorded)', async () => {
    const { answers, drifts } = await replay(await record(RECORDED), [
      ['turn', 0],
      ['turn', 1],
      ['summary', 0],
      ['turn', 2],
      ['summary', 1],
      ['turn', 3],
    ]);
    expect(answers).toEqual([
      'turn 0',
      'turn 1',
      'summary 0',
      'turn 2',
      'drift compactions[1]',
      'turn 3',
    ]);
    expect(kinds(drifts)).toEqual([['compaction', 'compactions[1]']]);
    expect(drifts[0]?.message).toContain(
      'compaction 2 appeared: it happens now as request 4, after 3 model call(s); 1 compaction(s) were recorded',
    );
  });
});
