import { ConfigError } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { caseRun, caseRuns, reportOf } from '../../../test/report-fixture.js';
import { compareReports } from './comparison.js';

describe('Report.compare with a tolerance (the default)', () => {
  const baseline = reportOf([...caseRuns('a', 3), ...caseRuns('b', 3), ...caseRuns('c', 1)]);

  it('lets one flip in three through at 0.34 and catches two', () => {
    const comparison = reportOf([
      ...caseRuns('a', 2),
      ...caseRuns('b', 1),
      ...caseRuns('c', 1),
    ]).compare(baseline, {
      tolerance: 0.34,
    });
    expect(comparison.cases.map((item) => [item.case, item.verdict])).toEqual([
      ['a', 'changed'],
      ['b', 'regressed'],
      ['c', 'same'],
    ]);
    expect(comparison.regressed.map((item) => item.case)).toEqual(['b']);
    expect(comparison.ok).toBe(false);
  });

  it('passes when every case stays within the tolerance', () => {
    const comparison = reportOf([
      ...caseRuns('a', 2),
      ...caseRuns('b', 3),
      ...caseRuns('c', 2),
    ]).compare(baseline);
    expect(comparison.ok).toBe(true);
    expect(comparison.tolerance).toBe(0.34);
  });

  it('reports a case that rose by more than the tolerance as improved', () => {
    const comparison = reportOf([
      ...caseRuns('a', 3),
      ...caseRuns('b', 3),
      ...caseRuns('c', 3),
    ]).compare(baseline);
    expect(comparison.improved.map((item) => item.case)).toEqual(['c']);
    expect(comparison.ok).toBe(true);
  });

  it('treats any change as a regression at tolerance 0 (deterministic replay, one repeat)', () => {
    const once = reportOf([...caseRuns('a', 1, 1), ...caseRuns('b', 1, 1)], { repeats: 1 });
    const comparison = reportOf([...caseRuns('a', 1, 1), ...caseRuns('b', 0, 1)], {
      repeats: 1,
    }).compare(once, { tolerance: 0 });
    expect(comparison.regressed.map((item) => item.case)).toEqual(['b']);
  });

  it('leaves infra failures out of the maths', () => {
    const current = reportOf([
      caseRun('a', 0, true),
      caseRun('a', 1, true),
      caseRun('a', 2, false, { layer: 'infra' }),
      ...caseRuns('b', 3),
      ...caseRuns('c', 1),
    ]);
    const comparison = current.compare(baseline);
    expect(comparison.cases[0]).toMatchObject({
      case: 'a',
      verdict: 'same',
      current: { passed: 2, runs: 2, infra: 1 },
    });
    expect(comparison.infraRuns).toEqual({ baseline: 0, current: 1 });
    expect(comparison.ok).toBe(true);
  });

  it('gives no verdict for a case with only infra failures', () => {
    const current = reportOf([
      ...caseRuns('a', 0, 3, { layer: 'infra' }),
      ...caseRuns('b', 3),
      ...caseRuns('c', 1),
    ]);
    expect(current.compare(baseline).cases[0]?.verdict).toBe('no-data');
  });

  it('fails on a case missing from the current run unless allowed, and does not gate new ones', () => {
    const current = reportOf([...caseRuns('a', 3), ...caseRuns('b', 3), ...caseRuns('d', 0)]);
    const strict = current.compare(baseline);
    expect(strict).toMatchObject({ missing: ['c'], added: ['d'], ok: false });
    expect(current.compare(baseline, { allowMissing: true }).ok).toBe(true);
  });

  it('gates the cost per run when asked', () => {
    const dearer = reportOf([
      ...caseRuns('a', 3, 3, { costUsd: 0.0015 }),
      ...caseRuns('b', 3, 3, { costUsd: 0.0015 }),
      ...caseRuns('c', 1, 3, { costUsd: 0.0015 }),
    ]);
    const comparison = dearer.compare(baseline, { maxCostIncrease: 0.1 });
    expect(comparison.cost.change).toBeCloseTo(0.5, 10);
    expect(comparison.cost.regressed).toBe(true);
    expect(comparison.ok).toBe(false);
    expect(dearer.compare(baseline).ok).toBe(true);
  });

  it('lists changed labels and the p95 change', () => {
    const current = reportOf(
      [...caseRuns('a', 3, 3, { durationMs: 150 }), ...caseRuns('b', 3), ...caseRuns('c', 1)],
      {
        labels: { model: 'other-model' },
      },
    );
    const comparison = current.compare(baseline);
    expect(comparison.labels).toEqual([
      { key: 'model', baseline: 'fixture-model', current: 'other-model' },
    ]);
    expect(comparison.p95).toMatchObject({ baseline: 100, current: 150 });
  });

  it('renders the verdict, the regressed cases and the cost change', () => {
    const text = reportOf([...caseRuns('a', 2), ...caseRuns('b', 0), ...caseRuns('c', 1)])
      .compare(baseline)
      .render();
    expect(text).toContain('REGRESSED');
    expect(text).toMatch(/Regressed \(1\)\n {2}b +3\/3 → 0\/3/);
    expect(text).toContain('Changed within tolerance (1)');
    expect(text).toContain('Cost per run $0.00100 → $0.00100 (+0.0%)');
  });

  it('rejects bad options with the field', () => {
    expect(() => baseline.compare(baseline, { tolerance: 2 })).toThrow(/options\.tolerance/);
    expect(() => baseline.compare(baseline, { method: 'vibes' as never })).toThrow(
      /options\.method/,
    );
    expect(() => baseline.compare(baseline, { maxCostIncrease: -1 })).toThrow(
      /options\.maxCostIncrease/,
    );
    expect(() => baseline.compare({} as never)).toThrow(ConfigError);
    expect(() => compareReports(baseline, {} as never)).toThrow(/current/);
  });
});

describe('Report.compare with the interval gate', () => {
  const names = Array.from({ length: 16 }, (_, index) => `case-${index}`);
  const baseline = reportOf(names.flatMap((name) => caseRuns(name, 3)));

  it('sees one flip in each of eight cases as noise per case but a drop of the suite', () => {
    const current = reportOf(names.flatMap((name, index) => caseRuns(name, index < 8 ? 2 : 3)));
    const byTolerance = current.compare(baseline);
    const byInterval = current.compare(baseline, { method: 'interval' });
    expect(byTolerance.ok).toBe(true);
    expect(byInterval.regressed).toEqual([]);
    expect(byInterval.pooled[0]).toMatchObject({
      scope: 'suite',
      regressed: true,
      current: { passed: 40, runs: 48 },
    });
    expect(byInterval.ok).toBe(false);
    expect(byInterval.render()).toContain('suite');
  });

  it('flags a case only on significant evidence: 3/3 → 0/3, not 3/3 → 1/3', () => {
    const current = reportOf(
      names.flatMap((name, index) => caseRuns(name, index === 0 ? 0 : index === 1 ? 1 : 3)),
    );
    const comparison = current.compare(baseline, { method: 'interval' });
    expect(comparison.cases[0]?.verdict).toBe('regressed');
    expect(comparison.cases[1]?.verdict).toBe('changed');
  });

  it('pools per tag as well', () => {
    const tagged = (passes: number) =>
      names.flatMap((name, index) =>
        caseRuns(name, index < 4 ? passes : 3, 3, { tags: index < 4 ? ['files'] : ['math'] }),
      );
    const comparison = reportOf(tagged(0)).compare(reportOf(tagged(3)), { method: 'interval' });
    expect(comparison.pooled.map((pooled) => [pooled.scope, pooled.regressed])).toEqual([
      ['suite', true],
      ['tag:files', true],
      ['tag:math', false],
    ]);
  });
});
