import {
  assertOptions,
  ConfigError,
  checkBoundary,
  injectionDefenseRule,
  newBoundary,
  type ToolExecutor as ToolExecutorPort,
} from '@mh/core';
import { SpotlightingExecutor } from '@mh/tools';

/** Settings of the prompt-injection defence (`AgentOptions.injectionDefense`). */
export interface InjectionDefenseOptions {
  /**
   * The boundary token of the fences: 8 to 64 lowercase letters or hyphens, starting with a letter.
   * Default: a random one per agent. Fix it when requests must be byte-identical across runs
   * (recording and replaying cassettes).
   */
  readonly boundary?: string;
}

/** What the defence changes: the system prompt and the executor. */
export interface DefendedSetup {
  /** The system prompt with the rule appended (the rule alone when there was none). */
  readonly system: string | undefined;
  /** The executor whose results are fenced. */
  readonly executor: ToolExecutorPort | undefined;
  /** The boundary in use; undefined when the defence is off. */
  readonly boundary: string | undefined;
}

/**
 * Applies `AgentOptions.injectionDefense` (default on): tool results are fenced as untrusted data
 * and a rule appended to the system prompt says what the fence means. The boundary is drawn once
 * per agent, not per run, so the system prompt (the start of the cached prefix) stays the same for
 * the whole conversation. Without tools there is nothing to fence and nothing changes.
 */
export function applyInjectionDefense(
  option: boolean | InjectionDefenseOptions | undefined,
  system: string | undefined,
  executor: ToolExecutorPort | undefined,
): DefendedSetup {
  if (option !== undefined && typeof option !== 'boolean') {
    if (typeof option !== 'object' || option === null)
      throw new ConfigError('injectionDefense', 'expected a boolean or { boundary }');
    assertOptions(option, ['boundary'], 'injectionDefense');
  }
  const given = typeof option === 'object' ? option.boundary : undefined;
  if (given !== undefined) checkBoundary(given, 'injectionDefense.boundary');
  if (option === false || executor === undefined) return { system, executor, boundary: undefined };
  const boundary = given ?? newBoundary();
  const rule = injectionDefenseRule(boundary);
  return {
    system: system === undefined || system.trim() === '' ? rule : `${system}\n\n${rule}`,
    executor: new SpotlightingExecutor({ executor, boundary }),
    boundary,
  };
}
