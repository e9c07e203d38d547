import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@mh/core';
import { Report } from '@mh/eval';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSuiteArgs, type SuiteOptions } from '../src/cli/args.js';
import { runSuite, type SuiteResult } from '../src/run/run-suite.js';
import { generateWorkspace, workspaceDigest } from '../src/workspace/generate-workspace.js';

function dryRunOptions(out: string, extra: string[] = []): SuiteOptions {
  const command = parseSuiteArgs(['--dry-run', '--repeats', '1', '--out', out, ...extra]);
  if (command.kind !== 'run') throw new Error('expected a run');
  return command.options;
}

let folder: string;
let result: SuiteResult;
let summary: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mh-evals-dry-'));
  result = await runSuite(dryRunOptions(join(folder, 'first')), { progress: false });
  summary = await readFile(join(result.out, 'summary.md'), 'utf8');
}, 120_000);
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('a dry run', () => {
  it('passes every task with the oracle', () => {
    expect(result.report.summary.success).toMatchObject({ passed: 16, runs: 16 });
  });

  it('writes summary.md marked DRY RUN in its title, its banner and every section of numbers', () => {
    expect(summary.split('\n')[0]).toBe(
      '# DRY RUN: scripted oracle on the read-only workspace suite',
    );
    expect(summary).toContain('> **DRY RUN.**');
    for (const section of [
      '## Success',
      '## Tasks',
      '## Tokens, cache, cost, latency',
      '## Baseline',
    ])
      expect(summary).toContain(`${section} (DRY RUN)`);
  });

  it('writes no result statement', () => {
    expect(summary).not.toContain('## Result');
    expect(summary).not.toMatch(/solved \d+\/\d+ runs/);
  });

  it('writes report.json, marked dry-run, loadable as a baseline', async () => {
    const report = await Report.load(join(result.out, 'report.json'));
    expect(report.meta.labels.mode).toBe('dry-run');
    // A baseline is comparable only on the same files: a generator change under the same seed shows.
    expect(report.meta.labels['workspace files']).toBe(workspaceDigest(generateWorkspace()));
    expect(workspaceDigest(generateWorkspace(1))).not.toBe(workspaceDigest(generateWorkspace()));
    expect(report.runs).toHaveLength(16);
  });

  it('writes every run with its grade and spans', async () => {
    const cases = await readdir(join(result.out, 'runs'));
    expect(cases).toHaveLength(16);
    for (const name of cases) {
      const folderOfRun = join(result.out, 'runs', name, 'repeat-1');
      const run = JSON.parse(await readFile(join(folderOfRun, 'run.json'), 'utf8'));
      expect(run).toMatchObject({ mode: 'dry-run', case: name, grade: { outcome: 'correct' } });
      const file = JSON.parse(await readFile(join(folderOfRun, 'spans.json'), 'utf8')) as {
        mode: string;
        spans: { name: string }[];
      };
      expect(file.mode).toBe('dry-run');
      expect(file.spans.map((span) => span.name)).toEqual(
        expect.arrayContaining(['mh.run', 'mh.turn', 'mh.model', 'mh.tool']),
      );
    }
  });

  it('records the compactions of the context tasks', async () => {
    const run = JSON.parse(
      await readFile(
        join(result.out, 'runs', 'context-ledger-largest', 'repeat-1', 'run.json'),
        'utf8',
      ),
    );
    const stages = run.prompts.flatMap((prompt: { compactions: { stage: string }[] }) =>
      prompt.compactions.map((record) => record.stage),
    );
    expect(stages.filter((stage: string) => stage !== 'skipped').length).toBeGreaterThan(0);
    expect(run.run.metrics.compactions).toBeGreaterThan(0);
  });

  it('compares with a saved baseline, and refuses to overwrite a report', async () => {
    const second = await runSuite(
      dryRunOptions(join(folder, 'second'), [
        '--baseline',
        join(result.out, 'report.json'),
        '--cases',
        'lookup',
      ]),
      { progress: false },
    );
    const text = await readFile(join(second.out, 'summary.md'), 'utf8');
    expect(text).toContain(`Compared with \`${join(result.out, 'report.json')}\``);
    expect(second.comparison?.regressed).toEqual([]);
    const comparison = JSON.parse(await readFile(join(second.out, 'comparison.json'), 'utf8'));
    expect(comparison).toMatchObject({ mode: 'dry-run', ok: true });
    await expect(runSuite(dryRunOptions(second.out), { progress: false })).rejects.toThrow(
      /already holds a report/,
    );
  });
});

describe('a run with a baseline it cannot read', () => {
  it('fails on --baseline before any session runs, for a missing or broken file', async () => {
    for (const [name, content] of [
      ['missing.json', undefined],
      ['broken.json', '{ nope'],
    ] as const) {
      const baseline = join(folder, name);
      if (content !== undefined) await writeFile(baseline, content);
      const out = join(folder, `never-${name}`);
      const error = await runSuite(dryRunOptions(out, ['--baseline', baseline]), {
        progress: false,
      }).catch((caught: unknown) => caught);
      expect(ConfigError.isInstance(error)).toBe(true);
      expect((error as ConfigError).field).toBe('--baseline');
      expect((error as Error).message).toContain(baseline);
      // Nothing ran: a real model would have been paid for a run that then crashed.
      expect(existsSync(out)).toBe(false);
    }
  });
});
