import { join, resolve } from 'node:path';
import { fieldOf } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import { SUITE_SEED } from '../workspace/build-model.js';
import { DRY_RUN_MODEL, invocationDir, parseSuiteArgs, type SuiteOptions } from './args.js';

function options(argv: string[], cwd?: string): SuiteOptions {
  const command = parseSuiteArgs(argv, cwd);
  if (command.kind !== 'run') throw new Error('expected a run');
  return command.options;
}

/** The field of the `ConfigError` these arguments are refused with. */
function fieldOfArgs(argv: string[]): string | undefined {
  return fieldOf(() => parseSuiteArgs(argv));
}

describe('parseSuiteArgs', () => {
  it('reads the command of the issue', () => {
    expect(
      options([
        '--model',
        'claude-sonnet-4-5',
        '--repeats',
        '3',
        '--price-in',
        '3',
        '--price-out',
        '15',
      ]),
    ).toMatchObject({
      dryRun: false,
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      repeats: 3,
      concurrency: 4,
      cache: true,
      compaction: true,
      fencing: true,
      prices: { input: 3, output: 15 },
      seed: SUITE_SEED,
    });
  });

  it('turns the A/B switches off one by one', () => {
    expect(
      options([
        '--dry-run',
        '--no-cache',
        '--no-compaction',
        '--no-injection-defense',
        '--system-file',
        'p.txt',
      ]),
    ).toMatchObject({
      cache: false,
      compaction: false,
      fencing: false,
      systemFile: resolve('p.txt'),
    });
  });

  it('resolves --out, --system-file and --baseline against the folder run-real was started from', () => {
    // `pnpm --filter evals run-real` runs in evals/; the user's relative paths mean their folder.
    const from = resolve('/home/someone/project');
    expect(
      options(
        ['--dry-run', '--out', 'runs/a', '--system-file', 'p.txt', '--baseline', '/abs/b.json'],
        from,
      ),
    ).toMatchObject({
      out: join(from, 'runs', 'a'),
      systemFile: join(from, 'p.txt'),
      baseline: resolve('/abs/b.json'),
    });
  });

  it('takes the folder pnpm was started from (INIT_CWD), else the working directory', () => {
    expect(invocationDir({ INIT_CWD: resolve('/home/someone') })).toBe(resolve('/home/someone'));
    expect(invocationDir({})).toBe(process.cwd());
    expect(invocationDir({ INIT_CWD: 'relative/dir' })).toBe(process.cwd());
  });

  it('gives a dry run a model to price by', () => {
    expect(options(['--dry-run']).model).toBe(DRY_RUN_MODEL);
  });

  it('asks a real run for its model', () => {
    expect(fieldOfArgs([])).toBe('--model');
  });

  it('names the flag of every bad value', () => {
    expect(fieldOfArgs(['--dry-run', '--repeats', '0'])).toBe('--repeats');
    expect(fieldOfArgs(['--dry-run', '--concurrency', 'x'])).toBe('--concurrency');
    expect(fieldOfArgs(['--dry-run', '--price-in', '-1'])).toBe('--price-in');
    expect(fieldOfArgs(['--dry-run', '--provider', 'gemini'])).toBe('--provider');
    expect(fieldOfArgs(['--dry-run', '--base-url', 'localhost:8080'])).toBe('--base-url');
    expect(fieldOfArgs(['--dry-run', '--out', ''])).toBe('--out');
    expect(fieldOfArgs(['--dry-run', '--seed', '1.5'])).toBe('--seed');
    expect(fieldOfArgs(['--dry-run', '--frobnicate'])).toBe('--frobnicate');
  });

  it('skips the -- that `pnpm --filter evals run-real -- …` passes on', () => {
    expect(options(['--', '--dry-run', '--repeats', '1'])).toMatchObject({
      dryRun: true,
      repeats: 1,
    });
  });

  it('says how to give a value that starts with a dash', () => {
    expect(() => parseSuiteArgs(['--dry-run', '--concurrency', '-1'])).toThrow(
      "--concurrency: a value starting with '-' must be written --concurrency=VALUE",
    );
  });

  it('refuses --no-cache for OpenAI, whose cache the client cannot turn off', () => {
    expect(fieldOfArgs(['--provider', 'openai', '--model', 'gpt-4o', '--no-cache'])).toBe(
      '--no-cache',
    );
  });

  it('answers --help', () => {
    expect(parseSuiteArgs(['--help'])).toEqual({ kind: 'help' });
  });
});
