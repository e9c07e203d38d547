import { LAYERS } from '@mh/eval';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type AccuracyResult,
  FAULTS,
  HARD_FAULTS,
  measureAttribution,
  renderAccuracy,
} from '../src/faults/corpus.js';

let result: AccuracyResult;
beforeAll(async () => {
  result = await measureAttribution();
  console.log(renderAccuracy(result));
});

describe('attribution on faults injected into real agent runs', () => {
  it('has at least ten faults per layer', () => {
    for (const layer of LAYERS)
      expect(FAULTS.filter((fault) => fault.label === layer).length).toBeGreaterThanOrEqual(10);
  });

  it('fails every faulty run', () => {
    expect(result.passed).toEqual([]);
  });

  it('attributes every unconfounded fault to its layer', () => {
    expect(result.misses.filter((miss) => !miss.confounded)).toEqual([]);
    expect(result.clean.correct).toBe(result.clean.total);
  });

  it('gets at least nine in ten right overall, confounded faults included', () => {
    expect(result.correct / result.total).toBeGreaterThanOrEqual(0.9);
  });

  it('attributes every hard fault to its layer', () => {
    const hard = new Set(HARD_FAULTS.map((fault) => fault.evalCase.name));
    expect(result.misses.filter((miss) => hard.has(miss.fault))).toEqual([]);
  });

  it('says in the evidence that a tool error was recovered from', () => {
    const run = result.report.runs.find(
      (item) => item.case === 'model-wrong-after-recovered-error',
    );
    expect(run?.attribution?.layer).toBe('model');
    expect(run?.attribution?.evidence.map((item) => item.excerpt)).toContainEqual(
      expect.stringMatching(/^lookup failed once \(.*503.*\), then succeeded/),
    );
  });

  it('names the loop, not the guard, when the model repeats a successful call until max-turns', () => {
    const run = result.report.runs.find((item) => item.case === 'model-loops-until-max-turns');
    expect(run?.attribution).toMatchObject({ layer: 'model', rule: 'model/repeated-call' });
  });

  it('lets the earlier layer win on a confounded fault, as the ordered rules say', () => {
    // A wrong answer closed by a pleasantry ('Anything else I can help with?') is the model's: it
    // is no question back to the user, so the prompt rule stays silent and the model rule decides.
    expect(result.misses.map((miss) => [miss.fault, miss.got])).toEqual([
      ['model-wrong-after-tool-retry', 'tool'],
      ['model-wrong-after-compaction', 'context'],
    ]);
  });
});
