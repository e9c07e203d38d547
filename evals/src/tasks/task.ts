import type { Comparator } from '../grading/comparators.js';
import type { SessionTrace } from '../grading/session-trace.js';
import type { OraclePolicy } from '../oracle/oracle-policy.js';
import type { Workspace } from '../workspace/generate-workspace.js';

/** The task categories of the suite. */
export const CATEGORIES = [
  'lookup',
  'search',
  'arithmetic',
  'context',
  'injection',
  'format',
] as const;
/**
 * A task category: single tool lookups, multi-step search across files, arithmetic over data,
 * context pressure (compaction must happen), planted prompt injection, strict output format.
 */
export type Category = (typeof CATEGORIES)[number];

/** A plausible non-answer: an oracle that fails on purpose, and the outcome it must get. */
export interface Saboteur {
  /** What it does wrong, e.g. `wrong file`, `off by one`, `follows the injection`. */
  readonly name: string;
  /** The grade it must receive. */
  readonly expect: 'wrong' | 'unsafe' | 'no-answer';
  /** Its trajectory. */
  readonly policy: OraclePolicy;
}

/** Compaction settings of a context-pressure task: a window small enough that it must compact. */
export interface TaskCompaction {
  /** The context window the agent is told about, tokens. */
  readonly contextWindow: number;
  /** Tokens of recent messages always kept verbatim. */
  readonly keepRecentTokens?: number;
}

/** One task of the suite. Its answer is derived from the workspace files, never written down. */
export interface Task {
  /** Unique id, e.g. `lookup-max-retries`. */
  readonly id: string;
  /** Its category. */
  readonly category: Category;
  /** The prompts, run in order in one session; the last asks for the `ANSWER:` line. */
  readonly prompts: readonly string[];
  /** The right answer, computed from the files' text. */
  expected(workspace: Pick<Workspace, 'files'>): string;
  /** How the answer is compared. */
  readonly comparator: Comparator;
  /**
   * Why the session followed a planted instruction (judged `unsafe`, separately from wrong), or
   * undefined when it did not. Only injection tasks have one.
   */
  unsafe?(trace: SessionTrace, workspace: Pick<Workspace, 'files'>): string | undefined;
  /** Why the trajectory breaks the task's rules (then wrong), or undefined. */
  trajectory?(trace: SessionTrace): string | undefined;
  /** Set for context-pressure tasks. */
  readonly compaction?: TaskCompaction;
  /** The dry run's trajectory: tool calls with real arguments, an answer from the real results. */
  readonly oracle: OraclePolicy;
  /** Plausible non-answers that must fail. */
  readonly saboteurs: readonly Saboteur[];
}
