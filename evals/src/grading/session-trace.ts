/** One tool call of a session, as the grader sees it. */
export interface ToolCallRecord {
  /** The tool's name. */
  readonly name: string;
  /** The arguments the model gave. */
  readonly input: unknown;
  /** The result text, without the injection defence's fence. */
  readonly text: string;
  /** Whether the call failed. */
  readonly isError: boolean;
  /** The prompt (0-based) it was made for. */
  readonly prompt: number;
}

/** What a session did, as the grader needs it: the final reply and every tool call. */
export interface SessionTrace {
  /** The text of the last run's last assistant message. */
  readonly finalText: string;
  /** Every tool call of every run, in order (compaction does not remove them from here). */
  readonly toolCalls: readonly ToolCallRecord[];
  /** Prompts that were run. */
  readonly promptsRun: number;
}

/** The string fields of a tool call's input (paths, patterns), for checks on what it touched. */
export function inputStrings(input: unknown): string[] {
  if (input === null || typeof input !== 'object') return [];
  return Object.values(input as Record<string, unknown>).filter(
    (value): value is string => typeof value === 'string',
  );
}
