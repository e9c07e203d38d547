import { ConfigError } from '../errors.js';
import type { Summarizer } from '../ports/summarizer.js';
import { defaultModels } from '../pricing/model-table.js';
import { shownValue } from '../support/option-checks.js';
import type { ContextMeter } from './context-meter.js';

/** How a conversation is kept inside its context window. */
export interface CompactionOptions {
  /** The model's context window, tokens (default: the model table's entry for the model). */
  readonly contextWindow?: number;
  /** Compact when the context reaches this fraction of the window (default 0.8). */
  readonly threshold?: number;
  /** Tokens of the most recent messages always kept verbatim (default: a fifth of the window). */
  readonly keepRecentTokens?: number;
  /** Stage 1 shortens older tool results above this many tokens to about this many (default 512). */
  readonly trimToolResultTokens?: number;
  /** Writes summaries (default: a summary call to the run's own provider and model). */
  readonly summarizer?: Summarizer;
  /** Instructions of the summary (default: `SUMMARY_INSTRUCTIONS`, which keeps identifiers). */
  readonly instructions?: string;
  /** The conversation's context meter (keep one per conversation; default: a new one per run). */
  readonly meter?: ContextMeter;
}

/** Compaction settings with every default applied. */
export interface ResolvedCompaction {
  readonly contextWindow: number;
  readonly thresholdTokens: number;
  readonly keepRecentTokens: number;
  readonly trimToolResultTokens: number;
  /** Old segments smaller than this are never compacted (5% of the window: SPEC defect 1). */
  readonly minOldTokens: number;
}

const KEYS = [
  'contextWindow',
  'threshold',
  'keepRecentTokens',
  'trimToolResultTokens',
  'summarizer',
  'instructions',
  'meter',
];

/** The smallest old segment worth compacting, as a fraction of the window. */
export const MIN_OLD_SEGMENT_RATIO = 0.05;

/** Validates compaction options (field names prefixed `compaction.`) and applies defaults. */
export function resolveCompaction(options: CompactionOptions, model: string): ResolvedCompaction {
  const field = (name: string): string => `compaction.${name}`;
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw new ConfigError('compaction', 'expected an object or false');
  for (const key of Object.keys(options)) {
    if (!KEYS.includes(key))
      throw new ConfigError(field(key), `unknown option (expected one of ${KEYS.join(', ')})`);
  }
  const window = options.contextWindow ?? defaultModels.lookup(model)?.contextWindow;
  if (window === undefined)
    throw new ConfigError(
      field('contextWindow'),
      `the window of model ${model} is not known: give it`,
    );
  if (!Number.isInteger(window) || window < 1_000)
    throw new ConfigError(
      field('contextWindow'),
      `expected an integer >= 1000, got ${shownValue(window)}`,
    );
  const threshold = fraction(options.threshold, 0.8, field('threshold'));
  const keepRecent = options.keepRecentTokens ?? Math.floor(window / 5);
  if (!Number.isInteger(keepRecent) || keepRecent < 0 || keepRecent >= window * threshold)
    throw new ConfigError(
      field('keepRecentTokens'),
      `expected an integer in [0, ${Math.floor(window * threshold)}), got ${shownValue(keepRecent)}`,
    );
  const trim = options.trimToolResultTokens ?? 512;
  if (!Number.isInteger(trim) || trim < 32)
    throw new ConfigError(
      field('trimToolResultTokens'),
      `expected an integer >= 32, got ${shownValue(trim)}`,
    );
  if (options.summarizer !== undefined && typeof options.summarizer?.summarize !== 'function')
    throw new ConfigError(field('summarizer'), 'expected a Summarizer with a summarize() method');
  if (
    options.instructions !== undefined &&
    (typeof options.instructions !== 'string' || options.instructions.trim() === '')
  )
    throw new ConfigError(field('instructions'), 'expected a non-empty string');
  if (options.meter !== undefined && typeof options.meter?.measure !== 'function')
    throw new ConfigError(field('meter'), 'expected a ContextMeter');
  return {
    contextWindow: window,
    thresholdTokens: Math.floor(window * threshold),
    keepRecentTokens: keepRecent,
    trimToolResultTokens: trim,
    minOldTokens: Math.ceil(window * MIN_OLD_SEGMENT_RATIO),
  };
}

function fraction(value: unknown, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value > 0 && value < 1))
    throw new ConfigError(name, `expected a fraction between 0 and 1, got ${shownValue(value)}`);
  return value;
}
