import type { AgentEvent, InMemoryTracer } from '@mh/core';
import type { EvalCase } from './eval-case.js';

/**
 * What the runner needs of an agent: `stream(prompt, { signal })` yielding `AgentEvent`s and
 * ending with one `run-end`, keeping the conversation between calls (a multi-prompt case is one
 * session). `@mh/sdk`'s `Agent` satisfies it; so does any object with that method.
 */
export interface EvalAgent {
  /** Runs one prompt, yielding every event; the last is `run-end`. */
  stream(prompt: string, options: { readonly signal?: AbortSignal }): AsyncIterable<AgentEvent>;
  /** Releases what the agent holds (MCP servers, a session store), called after the session. */
  close?(): void | Promise<void>;
}

/** What the runner gives the factory for each session. */
export interface EvalAgentContext {
  /**
   * A fresh tracer for this session only: pass it to the agent (`new Agent({ tracer })`); the
   * runner derives the session's metrics from its spans.
   */
  readonly tracer: InMemoryTracer;
  /** The repeat index, 0-based (a cassette key, a seed). */
  readonly repeat: number;
  /** The case's index in the suite. */
  readonly caseIndex: number;
  /** Aborts when the session times out; the runner also passes it to every `stream` call. */
  readonly signal: AbortSignal;
}

/**
 * Builds a fresh agent for one session of one case: the place where an app composes provider,
 * tools and limits (a `ReplayProvider` in CI, a real model for a live eval).
 */
export type EvalAgentFactory = (
  evalCase: EvalCase,
  context: EvalAgentContext,
) => EvalAgent | Promise<EvalAgent>;
