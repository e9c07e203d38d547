import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Report } from '@mh/eval';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemoSuite } from '../src/run-suite.js';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

let dir: string;
let v1: Report;
let v2: Report;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mh-eval-demo-'));
  v1 = await runDemoSuite('v1', { progress: false });
  v2 = await runDemoSuite('v2', { progress: false });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function topRules(report: Report): Record<string, string | undefined> {
  return Object.fromEntries(report.summary.byCase.map((item) => [item.case, item.topRule]));
}

describe('the eval demo', () => {
  it('attributes each deliberate failure of harness v1 to its layer', () => {
    expect(topRules(v1)).toEqual({
      multiply: undefined,
      percent: undefined,
      'power-format': undefined,
      'order-total': undefined,
      'order-status': undefined,
      'config-file': undefined,
      invoice: 'tool/runtime-error',
      refund: 'prompt/asked-user',
      'spotty-lookup': 'model/wrong-answer',
      'busy-provider': 'infra/provider-error',
      'long-chat': 'context/compacted-fact',
    });
    const flaky = v1.summary.byCase.filter((item) => item.flaky).map((item) => item.case);
    expect(flaky).toEqual(['spotty-lookup', 'busy-provider']);
  });

  it('shows the compacted message that held the lost fact', () => {
    const lost = v1.runs.find((run) => run.case === 'long-chat')?.attribution;
    expect(lost).toMatchObject({ layer: 'context', confidence: 'high' });
    expect(lost?.evidence[0]?.messageId).toMatch(/^msg_/);
    expect(lost?.evidence[0]?.excerpt).toContain('Margaret Hale');
  });

  it('catches the v2 regression with the new attribution of each regressed case', () => {
    const comparison = v2.compare(v1, { tolerance: 0.34 });
    expect(comparison.ok).toBe(false);
    expect(comparison.regressed.map((item) => [item.case, item.current.topRule])).toEqual([
      ['power-format', 'prompt/format'],
      ['order-total', 'tool/invalid-arguments'],
      ['order-status', 'tool/invalid-arguments'],
      ['spotty-lookup', 'tool/invalid-arguments'],
    ]);
    expect(v2.compare(v1, { method: 'interval' }).ok).toBe(false);
  });

  it('compares v1 with itself as unchanged', () => {
    expect(v1.compare(v1).ok).toBe(true);
  });

  it('runs end to end as a program and saves its reports, with --html the page too', async () => {
    const page = join(dir, 'html', 'eval-demo.html');
    const run = spawnSync(process.execPath, [MAIN, dir, '--html', page], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('== 2. Attribution');
    expect(run.stdout).toContain('Comparison with baseline — REGRESSED');
    expect(run.stdout).toContain('Caught: power-format (prompt/format)');
    const saved = JSON.parse(await readFile(join(dir, 'baseline.json'), 'utf8'));
    expect(saved).toMatchObject({ format: 'mh-eval-report', version: 1 });
    expect(run.stdout).toContain(`wrote ${page}`);
    const html = await readFile(page, 'utf8');
    expect(html.match(/<tr class="case-row/g)).toHaveLength(11);
    expect(html).toContain('<h2>Baseline comparison <span class="verdict bad">REGRESSED</span>');
    expect(html).toMatch(/<tr class="change-row change-regressed" data-case="power-format">/);
    expect(html).toMatch(/<tr class="cluster-row" data-layer="context">/);
    expect(html).toMatch(/<details class="run" id="run-0" data-case="[^"]+" open>/);
  });
});
