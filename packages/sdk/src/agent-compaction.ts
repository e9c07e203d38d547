import { type CompactionOptions, ConfigError, ContextMeter } from '@mh/core';
import { defaultModels } from '@mh/core/internal';

/**
 * The loop's compaction options for an agent: `false` turns compaction off; absent turns it on
 * with defaults when the model's context window is known (the model table), off otherwise;
 * an object is used with the agent's meter, so the context size follows the conversation across
 * runs and resumes (it is checked once, with the loop's settings: `resolveLoopOptions`).
 */
export function agentCompaction(
  option: false | CompactionOptions | undefined,
  model: string,
  meter: ContextMeter,
): CompactionOptions | undefined {
  if (option === false) return undefined;
  if (option === undefined) return defaultModels.lookup(model) ? { meter } : undefined;
  if (option === null || typeof option !== 'object' || Array.isArray(option))
    throw new ConfigError('compaction', 'expected false or an object of compaction options');
  return { ...option, meter: option.meter ?? meter };
}

/** The meter an agent keeps: the one in its options, or a new one. */
export function agentMeter(option: false | CompactionOptions | undefined): ContextMeter {
  return option && option.meter instanceof ContextMeter ? option.meter : new ContextMeter();
}
