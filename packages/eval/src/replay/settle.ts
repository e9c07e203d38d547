import type { AgentEvent, RunResult } from '@mh/core';
import type { EvalAgent } from '../runner/agent.js';

/**
 * `agent` with each run's `run-end` result passed through `settle` (e.g.
 * `(result) => cassette.settle(key, result)`), so that an eval runner reading the result sees a
 * strict replay's drift when the run stopped before its recording did.
 * @example
 * const agent = settleReplayedRuns(new Agent({ provider, tools, model }), (result) =>
 *   cassette.settle(key, result),
 * );
 */
export function settleReplayedRuns(
  agent: EvalAgent,
  settle: (result: RunResult) => RunResult,
): EvalAgent {
  return {
    async *stream(prompt, options): AsyncGenerator<AgentEvent, void, undefined> {
      for await (const event of agent.stream(prompt, options))
        yield event.type === 'run-end' ? { ...event, result: settle(event.result) } : event;
    },
    close: agent.close === undefined ? undefined : () => agent.close?.(),
  };
}
