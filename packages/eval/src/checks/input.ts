import { ConfigError, type RunResult, toolResultText, unfenceUntrusted } from '@mh/core';

/** What a check sees of one session (one case, one repeat; every prompt of the case). */
export interface CheckInput {
  /** The final answer: the text of the last run's last assistant message ('' when none). */
  readonly text: string;
  /** Every run of the session, in order (one per prompt that ran). */
  readonly runs: readonly RunResult[];
  /** Every tool call the model made in the session, in order, with its result. */
  readonly toolCalls: readonly SessionToolCall[];
}

/** One tool call of a session as checks see it. */
export interface SessionToolCall {
  /** The call's id. */
  readonly id: string;
  /** The tool the model named (it may not exist). */
  readonly name: string;
  /** The arguments the model sent. */
  readonly input: unknown;
  /** Whether its result was an error (failure, denial, bad arguments, unknown tool, not run). */
  readonly isError: boolean;
  /** The result's text, unfenced when the Agent fenced it as untrusted data ('' when none). */
  readonly result: string;
}

/**
 * Every tool call of `runs` in order, each with its result, read from the messages each run added
 * (deduplicated by call id, so a session's runs may overlap). Calls the repeated-call guard
 * refused are included: they are in the history with an error result.
 */
export function sessionToolCalls(runs: readonly RunResult[]): SessionToolCall[] {
  if (!Array.isArray(runs) || runs.some((run) => !Array.isArray(run?.newMessages)))
    throw new ConfigError('runs', 'expected an array of RunResults');
  const calls = new Map<string, { name: string; input: unknown }>();
  const results = new Map<string, { isError: boolean; text: string }>();
  for (const run of runs) {
    for (const message of run.newMessages) {
      for (const block of message.content) {
        if (block.type === 'tool_use' && !calls.has(block.id))
          calls.set(block.id, { name: block.name, input: block.input });
        else if (block.type === 'tool_result')
          results.set(block.toolUseId, {
            isError: block.isError,
            // The Agent fences tool results as untrusted data; checks and evidence read the data.
            text: unfenceUntrusted(toolResultText(block)),
          });
      }
    }
  }
  return [...calls].map(([id, call]) => {
    const result = results.get(id);
    return {
      id,
      name: call.name,
      input: call.input,
      isError: result?.isError ?? true,
      result: result?.text ?? '',
    };
  });
}

/** What a check sees of a session's runs: the last run's answer, the runs, the tool calls. */
export function checkInputOf(runs: readonly RunResult[]): CheckInput {
  return { text: runs.at(-1)?.text ?? '', runs, toolCalls: sessionToolCalls(runs) };
}
