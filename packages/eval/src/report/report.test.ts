import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@mh/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caseRun, caseRuns, META, reportOf } from '../../test/report-fixture.js';
import { Report } from './report.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mh-eval-report-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const runs = [
  ...caseRuns('sum', 3, 3, { tags: ['math'], durationMs: 100 }),
  caseRun('read', 0, true, { tags: ['files'], durationMs: 200 }),
  caseRun('read', 1, false, { tags: ['files'], layer: 'tool', durationMs: 300 }),
  caseRun('read', 2, false, { tags: ['files'], layer: 'tool', durationMs: 400 }),
  caseRun('flaky-infra', 0, false, { layer: 'infra', durationMs: 50 }),
];

describe('Report', () => {
  it('summarises success with its Wilson interval, completion, latency, tokens and cost', () => {
    const summary = reportOf(runs).summary;
    expect(summary.success).toMatchObject({ passed: 4, runs: 7 });
    expect(summary.success.interval?.low).toBeCloseTo(0.25, 2);
    expect(summary.success.interval?.high).toBeCloseTo(0.842, 2);
    expect(summary.completion).toMatchObject({ passed: 6, runs: 7 });
    expect(summary.latency).toEqual({ p50Ms: 100, p95Ms: 400 });
    expect(summary.turns).toEqual({ total: 14, perRun: 2 });
    expect(summary.tokens).toEqual({ input: 700, output: 140, cacheRead: 350, cacheWrite: 0 });
    expect(summary.cacheHitRatio).toBeCloseTo(1 / 3, 10);
    expect(summary.cost.totalUsd).toBeCloseTo(0.007, 12);
    expect(summary.byLayer).toMatchObject({ tool: 2, infra: 1, model: 0 });
  });

  it('groups by tag and by case, marking flaky cases', () => {
    const summary = reportOf(runs).summary;
    expect(summary.byTag.map((tag) => [tag.tag, tag.passed, tag.runs])).toEqual([
      ['files', 1, 3],
      ['math', 3, 3],
    ]);
    const read = summary.byCase.find((item) => item.case === 'read');
    expect(read).toMatchObject({ passed: 1, runs: 3, flaky: true, topRule: 'tool/wrong-answer' });
    expect(summary.byCase.find((item) => item.case === 'flaky-infra')).toMatchObject({
      infraFailures: 1,
      flaky: false,
    });
  });

  it('clusters failures by layer and signature', () => {
    const clusters = reportOf(runs).summary.clusters;
    expect(clusters[0]).toMatchObject({ layer: 'tool', count: 2, cases: ['read'] });
    expect(clusters).toHaveLength(2);
  });

  it('renders every section for a terminal', () => {
    const text = reportOf(runs).render();
    expect(text).toContain('Eval: 7 runs (3 cases × 3 repeats)');
    expect(text).toMatch(/success +4\/7 = 57\.1% {2}95% CI \[25\.0–84\.2%\]/);
    expect(text).toMatch(/completion +6\/7/);
    expect(text).toMatch(/latency +p50 100 ms · p95 400 ms/);
    expect(text).toContain('cache hits  33.3% of prompt tokens');
    expect(text).toContain('Per tag');
    expect(text).toMatch(/~ read +1\/3 {2}flaky · tool\/wrong-answer/);
    expect(text).toContain('Failure clusters');
    expect(text).toContain('2× tool/wrong-answer');
    expect(text).toContain('read#1  tool (low)');
  });

  it('writes singular nouns for counts of one', () => {
    const text = reportOf([caseRun('sum', 0, true)], { repeats: 1 }).render();
    expect(text).toContain('Eval: 1 run (1 case × 1 repeat)');
    expect(text).toContain('tools 1 call, 0 failed');
  });

  it('saves as JSON and loads back the same report', async () => {
    const path = join(dir, 'nested', 'baseline.json');
    const report = reportOf(runs);
    await report.save(path);
    const loaded = await Report.load(path);
    expect(loaded.toJSON()).toEqual(JSON.parse(await readFile(path, 'utf8')));
    expect(loaded.runs).toEqual(report.runs);
    expect(loaded.meta).toEqual(META);
    expect(loaded.compare(report).ok).toBe(true);
  });

  it('refuses a file that is not a report, naming the field', async () => {
    const notJson = join(dir, 'not.json');
    await writeFile(notJson, '{ nope');
    await expect(Report.load(notJson)).rejects.toThrow(ConfigError);
    const wrong = join(dir, 'wrong.json');
    const data = reportOf(runs).toJSON();
    await writeFile(wrong, JSON.stringify({ ...data, runs: [{ ...data.runs[0], passed: 'yes' }] }));
    await expect(Report.load(wrong)).rejects.toThrow(/report\.runs\[0\]\.passed/);
    expect(() => Report.fromJSON({ ...data, version: 2 })).toThrow(/report\.version/);
    await expect(Report.load('')).rejects.toThrow(/path/);
  });

  it('refuses a missing or unreadable file with a ConfigError naming the path', async () => {
    const missing = join(dir, 'no-such-baseline.json');
    const error = await Report.load(missing).catch((caught: unknown) => caught);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as ConfigError).field).toBe('path');
    expect((error as Error).message).toContain(`${missing}: no report here (ENOENT)`);
    const folder = await Report.load(dir).catch((caught: unknown) => caught);
    expect(ConfigError.isInstance(folder)).toBe(true);
    expect((folder as Error).message).toContain('cannot read the file (EISDIR)');
  });

  it('rejects malformed runs at construction', () => {
    expect(() => reportOf([{ ...caseRun('x', 0, true), status: 'exploded' as never }])).toThrow(
      /status/,
    );
  });
});
