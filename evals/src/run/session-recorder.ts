import {
  type AgentEvent,
  type CompactionRecord,
  type RunResult,
  type SpanRecord,
  toolResultText,
  unfenceUntrusted,
} from '@mh/core';
import type { SessionTrace, ToolCallRecord } from '../grading/session-trace.js';

/** What the recorder wraps: anything with the Agent's `stream(prompt, { signal })`. */
export interface StreamingAgent {
  stream(
    prompt: string,
    options: { readonly signal?: AbortSignal },
  ): AsyncIterable<AgentEvent> | AsyncGenerator<AgentEvent, void, void>;
}

/**
 * Wraps one session's agent and keeps what grading and the run files need: every run's result,
 * every tool call with its result (taken from the events, so compaction cannot hide a call), and
 * every compaction. It is itself an agent for `EvalRunner` (`stream`).
 */
export class SessionRecorder {
  readonly #agent: StreamingAgent;
  readonly #results: RunResult[] = [];
  readonly #toolCalls: ToolCallRecord[] = [];
  readonly #compactions: CompactionRecord[] = [];
  #prompt = -1;
  /** The session's spans, when its tracer is known (set by the suite runner). */
  spans: () => readonly SpanRecord[] = () => [];

  constructor(agent: StreamingAgent) {
    this.#agent = agent;
  }

  /** Runs one prompt through the agent, recording as the events pass. */
  async *stream(
    prompt: string,
    options: { readonly signal?: AbortSignal } = {},
  ): AsyncGenerator<AgentEvent, void, void> {
    this.#prompt++;
    for await (const event of this.#agent.stream(prompt, options)) {
      if (event.type === 'tool-execution-end') {
        const { call, result } = event.outcome;
        this.#toolCalls.push({
          name: call.name,
          input: call.input,
          text: unfenceUntrusted(toolResultText(result)),
          isError: result.isError,
          prompt: this.#prompt,
        });
      } else if (event.type === 'compaction') {
        this.#compactions.push(event.record);
      } else if (event.type === 'run-end') {
        this.#results.push(event.result);
      }
      yield event;
    }
  }

  /** Every run's result, in order. */
  get results(): readonly RunResult[] {
    return this.#results;
  }

  /** Every compaction of the session (skipped ones included). */
  get compactions(): readonly CompactionRecord[] {
    return this.#compactions;
  }

  /** The ids of the session's runs. */
  get runIds(): readonly string[] {
    return this.#results.map((result) => result.runId);
  }

  /** What the grader reads. */
  trace(): SessionTrace {
    return {
      finalText: this.#results.at(-1)?.text ?? '',
      toolCalls: this.#toolCalls.slice(),
      promptsRun: this.#prompt + 1,
    };
  }
}
