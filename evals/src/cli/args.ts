import { isAbsolute, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError } from '@mh/core';
import { SUITE_SEED } from '../workspace/build-model.js';

/** The providers a real run can use. */
export const PROVIDERS = ['anthropic', 'openai'] as const;
/** A provider of a real run. */
export type ProviderKind = (typeof PROVIDERS)[number];

/** Everything a suite run is told on the command line. */
export interface SuiteOptions {
  /** Play the tasks with the scripted oracle, offline, instead of a model. */
  readonly dryRun: boolean;
  /** The vendor of a real run. */
  readonly provider: ProviderKind;
  /** Model id (also the key of prices and the context window). */
  readonly model: string;
  /** Base URL of the endpoint (an OpenAI-compatible server, a proxy). */
  readonly baseURL?: string;
  /** Sessions per task. */
  readonly repeats: number;
  /** Sessions at once. */
  readonly concurrency: number;
  /** Task filter: ids, categories or id prefixes, comma-separated. */
  readonly cases?: string;
  /** Anthropic prompt-cache breakpoints. */
  readonly cache: boolean;
  /** Context compaction. */
  readonly compaction: boolean;
  /** Fencing of tool results, the harness's prompt-injection defence (`--no-injection-defense`). */
  readonly fencing: boolean;
  /** A file whose text replaces the default system prompt. */
  readonly systemFile?: string;
  /** USD per million tokens, over the model table. */
  readonly prices: {
    readonly input?: number;
    readonly output?: number;
    readonly cacheRead?: number;
    readonly cacheWrite?: number;
  };
  /** Where summary.md, report.json and the runs go. */
  readonly out?: string;
  /** A saved report.json to compare with. */
  readonly baseline?: string;
  /** Seed of the workspace. */
  readonly seed: number;
  /** Wall-clock limit of one session, ms. */
  readonly sessionTimeoutMs: number;
}

/** What the command line asks for. */
export type Command =
  | { readonly kind: 'help' }
  | { readonly kind: 'run'; readonly options: SuiteOptions };

/** The model a dry run prices and sizes its context by when `--model` is not given. */
export const DRY_RUN_MODEL = 'claude-sonnet-4-5';

const SPEC = {
  help: { type: 'boolean', short: 'h' },
  'dry-run': { type: 'boolean' },
  provider: { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  repeats: { type: 'string' },
  concurrency: { type: 'string' },
  cases: { type: 'string' },
  'no-cache': { type: 'boolean' },
  'no-compaction': { type: 'boolean' },
  'no-injection-defense': { type: 'boolean' },
  'system-file': { type: 'string' },
  'price-in': { type: 'string' },
  'price-out': { type: 'string' },
  'price-cache-read': { type: 'string' },
  'price-cache-write': { type: 'string' },
  out: { type: 'string' },
  baseline: { type: 'string' },
  seed: { type: 'string' },
  'session-timeout': { type: 'string' },
} as const;

function integer(
  value: string | undefined,
  flag: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < min || number > max)
    throw new ConfigError(flag, `expected an integer from ${min} to ${max}, got ${value}`);
  return number;
}

function price(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < 0)
    throw new ConfigError(flag, `expected USD per million tokens (a number >= 0), got ${value}`);
  return number;
}

/**
 * The folder `run-real` was started from: `INIT_CWD`, which pnpm and npm set to the folder the
 * user typed the command in (`pnpm --filter evals run-real` itself runs in evals/), else the
 * working directory.
 */
export function invocationDir(env: NodeJS.ProcessEnv = process.env): string {
  const init = env.INIT_CWD;
  return init !== undefined && isAbsolute(init) ? init : process.cwd();
}

/**
 * Parses the arguments of `run-real`. Throws `ConfigError` naming the flag for anything wrong,
 * including an unknown flag; a real run needs `--model`. Relative paths (`--out`,
 * `--system-file`, `--baseline`) are resolved against `cwd`, the folder the user started from.
 */
export function parseSuiteArgs(argv: readonly string[], cwd: string = process.cwd()): Command {
  let values: {
    [K in keyof typeof SPEC]?: (typeof SPEC)[K]['type'] extends 'boolean' ? boolean : string;
  };
  try {
    ({ values } = parseArgs({
      // `pnpm … run-real -- --dry-run` passes its separator on; first, it ends no options.
      args: argv[0] === '--' ? argv.slice(1) : [...argv],
      options: SPEC,
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const flag = /'(-[^']*)'/.exec(message)?.[1] ?? 'arguments';
    // parseArgs reads `--concurrency -1` as a flag without its value and calls it "ambiguous".
    if (/^Option '--[\w-]+' argument is ambiguous/.test(message))
      throw new ConfigError(flag, `a value starting with '-' must be written ${flag}=VALUE`);
    throw new ConfigError(flag, message.split('\n')[0] ?? message);
  }
  if (values.help) return { kind: 'help' };
  const dryRun = values['dry-run'] === true;
  const provider = values.provider ?? 'anthropic';
  if (!PROVIDERS.includes(provider as ProviderKind))
    throw new ConfigError('--provider', `expected one of ${PROVIDERS.join(', ')}, got ${provider}`);
  const model = values.model ?? (dryRun ? DRY_RUN_MODEL : undefined);
  if (model === undefined || model.trim() === '')
    throw new ConfigError(
      '--model',
      'give the model id, e.g. --model claude-sonnet-4-5 (or use --dry-run)',
    );
  const cache = values['no-cache'] !== true;
  if (!cache && provider === 'openai' && !dryRun)
    throw new ConfigError(
      '--no-cache',
      'OpenAI-compatible endpoints cache prompts on their own; the client cannot turn it off',
    );
  const baseURL = values['base-url'];
  if (baseURL !== undefined && !/^https?:\/\/\S+$/.test(baseURL))
    throw new ConfigError('--base-url', `expected an http(s) URL, got ${baseURL}`);
  for (const [flag, value] of [
    ['--system-file', values['system-file']],
    ['--out', values.out],
    ['--baseline', values.baseline],
  ] as const)
    if (value !== undefined && value.trim() === '') throw new ConfigError(flag, 'expected a path');
  const path = (value: string): string => resolve(cwd, value);
  return {
    kind: 'run',
    options: {
      dryRun,
      provider: provider as ProviderKind,
      model,
      ...(baseURL === undefined ? {} : { baseURL }),
      repeats: integer(values.repeats, '--repeats', 3, 1, 100),
      concurrency: integer(values.concurrency, '--concurrency', 4, 1, 64),
      ...(values.cases === undefined ? {} : { cases: values.cases }),
      cache,
      compaction: values['no-compaction'] !== true,
      fencing: values['no-injection-defense'] !== true,
      ...(values['system-file'] === undefined ? {} : { systemFile: path(values['system-file']) }),
      prices: {
        input: price(values['price-in'], '--price-in'),
        output: price(values['price-out'], '--price-out'),
        cacheRead: price(values['price-cache-read'], '--price-cache-read'),
        cacheWrite: price(values['price-cache-write'], '--price-cache-write'),
      },
      ...(values.out === undefined ? {} : { out: path(values.out) }),
      ...(values.baseline === undefined ? {} : { baseline: path(values.baseline) }),
      seed: integer(values.seed, '--seed', SUITE_SEED, 0, 2 ** 32 - 1),
      sessionTimeoutMs:
        integer(values['session-timeout'], '--session-timeout', 600, 1, 86_400) * 1_000,
    },
  };
}

/** The help text of `run-real`. */
export const HELP = `Usage: pnpm --filter evals run-real --model ID [options]
       pnpm --filter evals run-real --dry-run [options]

Runs the 16 read-only workspace tasks against a real model (or, with --dry-run, against a
scripted oracle, offline) and writes summary.md, report.json and every run with its spans.

  --dry-run                 play the tasks with the scripted oracle; no key, no network
  --provider NAME           anthropic (default; ANTHROPIC_API_KEY) or openai (OPENAI_API_KEY)
  --model ID                model id, e.g. claude-sonnet-4-5, gpt-4o (dry run: ${DRY_RUN_MODEL})
  --base-url URL            endpoint, e.g. an OpenAI-compatible server or a proxy
  --repeats N               sessions per task (default 3)
  --concurrency N           sessions at once (default 4)
  --cases LIST              task ids, categories or id prefixes, comma-separated
  --price-in USD            price of a million input tokens (over the model table)
  --price-out USD           price of a million output tokens
  --price-cache-read USD    price of a million cache-read tokens (default: the table's, else --price-in)
  --price-cache-write USD   price of a million cache-write tokens (default: the table's, else --price-in)
  --no-cache                no Anthropic cache breakpoints (A/B)
  --no-compaction           no context compaction (A/B)
  --no-injection-defense    no spotlighting of tool results (A/B)
  --system-file PATH        replace the default system prompt with this file's text (A/B)
  --out DIR                 output folder (default: a new folder under evals/reports/)
  --baseline PATH           a saved report.json to compare with (default: evals/baselines/<model>.json)
  --seed N                  workspace seed (default ${SUITE_SEED}; baselines need the same seed)
  --session-timeout S       wall-clock limit of one session, seconds (default 600)
  -h, --help                this text

Relative paths are taken from the folder the command was typed in, not from evals/.

Exit codes: 0 done (a real model's wrong answers are results), 1 failure (also a dry run in
which any oracle run failed; the failing tasks are named on stderr), 2 bad usage.
`;
