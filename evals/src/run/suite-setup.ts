import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ConfigError,
  defaultPricing,
  type ModelPrice,
  type PricingTable,
  type Provider,
} from '@mh/core';
import { withRetry } from '@mh/providers';
import type { SuiteOptions } from '../cli/args.js';
import { DEFAULT_SYSTEM_PROMPT } from './system-prompt.js';

/** The folder of the evals package (where `reports/` and `baselines/` live). */
export const PACKAGE_DIR: string = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The system prompt of the run and how to name it in reports. */
export interface SystemPrompt {
  readonly text: string;
  /** `default`, or the file and the first 12 hex digits of its SHA-256. */
  readonly label: string;
}

/** The default prompt, or the text of `--system-file`. */
export async function systemPrompt(
  options: Pick<SuiteOptions, 'systemFile'>,
): Promise<SystemPrompt> {
  if (options.systemFile === undefined) return { text: DEFAULT_SYSTEM_PROMPT, label: 'default' };
  let text: string;
  try {
    text = await readFile(options.systemFile, 'utf8');
  } catch (error) {
    throw new ConfigError('--system-file', `cannot read ${options.systemFile}: ${String(error)}`);
  }
  if (text.trim() === '') throw new ConfigError('--system-file', `${options.systemFile} is empty`);
  const digest = createHash('sha256').update(text).digest('hex').slice(0, 12);
  return { text, label: `${options.systemFile} (sha256 ${digest})` };
}

/** The prices of the run and where they came from, for the summary. */
export interface RunPricing {
  readonly table: PricingTable;
  /** The model's price, or undefined when neither the table nor the flags give one. */
  readonly price: ModelPrice | undefined;
  /** `model table`, `--price-in/--price-out`, or `none`. */
  readonly source: string;
}

/**
 * The model table with `--price-*` over it. Cache prices not given come from the table's entry
 * for the model, else from the input price (cache tokens then cost as much as input).
 */
export function runPricing(options: Pick<SuiteOptions, 'model' | 'prices'>): RunPricing {
  const known = defaultPricing.lookup(options.model);
  const { input, output, cacheRead, cacheWrite } = options.prices;
  if (input === undefined && output === undefined) {
    if (cacheRead !== undefined || cacheWrite !== undefined)
      throw new ConfigError('--price-cache-read', 'give --price-in and --price-out with it');
    return { table: defaultPricing, price: known, source: known ? 'model table' : 'none' };
  }
  if (input === undefined || output === undefined)
    throw new ConfigError(
      input === undefined ? '--price-in' : '--price-out',
      'give both --price-in and --price-out',
    );
  const price: ModelPrice = {
    inputPerMTok: input,
    outputPerMTok: output,
    cacheReadPerMTok: cacheRead ?? known?.cacheReadPerMTok ?? input,
    cacheWritePerMTok: cacheWrite ?? known?.cacheWritePerMTok ?? input,
  };
  return {
    table: defaultPricing.with({ [options.model]: price }),
    price,
    source: '--price-in/--price-out',
  };
}

/** The real provider of the run, behind `withRetry`; fails early without an API key. */
export async function realProvider(
  options: Pick<SuiteOptions, 'provider' | 'baseURL' | 'cache'>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Provider> {
  if (options.provider === 'anthropic') {
    if (!env.ANTHROPIC_API_KEY)
      throw new ConfigError(
        'ANTHROPIC_API_KEY',
        'set it to run against Anthropic (or use --dry-run)',
      );
    const { anthropic } = await import('@mh/providers/anthropic');
    return withRetry(
      anthropic({ apiKey: env.ANTHROPIC_API_KEY, baseURL: options.baseURL, cache: options.cache }),
    );
  }
  // A local OpenAI-compatible server may need no key, but the SDK insists on one.
  const apiKey = env.OPENAI_API_KEY ?? (options.baseURL ? 'no-key' : undefined);
  if (!apiKey)
    throw new ConfigError('OPENAI_API_KEY', 'set it to run against OpenAI (or give --base-url)');
  const { openai } = await import('@mh/providers/openai');
  return withRetry(openai({ baseURL: options.baseURL, apiKey }));
}

/** The harness's git commit, or `unknown` outside a checkout. */
export function harnessCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      cwd: PACKAGE_DIR,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return 'unknown';
  }
}

/** A file-name-safe stamp of `date`: `20240917-101500`. */
export function stamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

/** `--out`, or a new folder under `evals/reports/` named by time, model and mode. */
export function outputFolder(
  options: Pick<SuiteOptions, 'out' | 'model' | 'dryRun'>,
  now: Date,
): string {
  if (options.out !== undefined) return resolve(options.out);
  const model = options.model.replace(/[^A-Za-z0-9.-]+/g, '_');
  return join(PACKAGE_DIR, 'reports', `${stamp(now)}-${model}${options.dryRun ? '-dry-run' : ''}`);
}

/** `--baseline`, or the saved baseline of this model (of the dry run), when one exists. */
export function baselinePath(
  options: Pick<SuiteOptions, 'baseline' | 'model' | 'dryRun'>,
): string | undefined {
  if (options.baseline !== undefined) return resolve(options.baseline);
  const name = options.dryRun ? 'dry-run' : options.model.replace(/[^A-Za-z0-9.-]+/g, '_');
  const path = join(PACKAGE_DIR, 'baselines', `${name}.json`);
  return existsSync(path) ? path : undefined;
}
