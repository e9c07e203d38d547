// Runs core's real loop with a scripted model and a tiny tool executor, so attribution, checks and
// the runner are tested on real RunResults, events and spans (no @mh/providers or @mh/tools: this
// package may depend only on core).
import {
  type AgentEvent,
  InMemoryTracer,
  type Limits,
  type Message,
  type ModelRequest,
  newMessageId,
  PricingTable,
  type Provider,
  type RunResult,
  runLoop,
  type StreamEvent,
  type ToolCallStatus,
  type ToolExecutor,
  type ToolOutcome,
  type ToolUseBlock,
  toolResult,
  userMessage,
} from '@mh/core';
import type { EvalAgent } from '../src/runner/agent.js';

/** One scripted model turn: text and/or tool calls, or a thrown error. */
export interface Turn {
  readonly text?: string;
  readonly calls?: readonly { readonly name: string; readonly input?: unknown }[];
  readonly error?: Error;
  readonly usage?: { readonly input: number; readonly output: number; readonly cacheRead?: number };
}

/** A test tool: what it returns, or how it fails. */
export interface FixtureTool {
  readonly run?: (input: Record<string, unknown>) => string;
  /** The executor answers `invalid-arguments` when this returns problems. */
  readonly validate?: (input: Record<string, unknown>) => string | undefined;
  /** Denied by policy. */
  readonly denied?: boolean;
  /** Times out. */
  readonly timeout?: boolean;
}

export const MODEL = 'fixture-model';
export const PRICING = new PricingTable({ [MODEL]: { inputPerMTok: 1, outputPerMTok: 2 } });

/** A provider that plays `turns` in order (repeating the last when `repeatLast`). */
export function scriptedProvider(turns: readonly Turn[], repeatLast = false): Provider {
  let index = 0;
  return {
    name: 'fixture',
    stream(_request: ModelRequest): AsyncIterable<StreamEvent> {
      const turn = turns[index] ?? (repeatLast ? turns.at(-1) : undefined);
      index++;
      return (async function* play(): AsyncGenerator<StreamEvent> {
        if (!turn) throw new Error('script exhausted');
        if (turn.error) throw turn.error;
        const id = newMessageId();
        yield { type: 'message-start', id, model: MODEL };
        const content: Message['content'][number][] = [];
        if (turn.text) {
          yield { type: 'text-delta', text: turn.text };
          content.push({ type: 'text', text: turn.text });
        }
        for (const call of turn.calls ?? []) {
          const callId = newMessageId('toolu');
          yield { type: 'tool-call-start', id: callId, name: call.name };
          yield { type: 'tool-call-end', id: callId, name: call.name, input: call.input ?? {} };
          content.push({ type: 'tool_use', id: callId, name: call.name, input: call.input ?? {} });
        }
        const usage = {
          inputTokens: turn.usage?.input ?? 100,
          outputTokens: turn.usage?.output ?? 10,
          cacheReadTokens: turn.usage?.cacheRead ?? 0,
          cacheWriteTokens: 0,
        };
        yield { type: 'usage', usage };
        yield {
          type: 'message-end',
          stopReason: (turn.calls?.length ?? 0) > 0 ? 'tool-use' : 'end',
          message: { id, role: 'assistant', content },
          usage,
          model: MODEL,
        };
      })();
    },
  };
}

function outcome(call: ToolUseBlock, status: ToolCallStatus, text: string): ToolOutcome {
  return {
    call,
    result: toolResult(call.id, text, status !== 'ok'),
    status,
    attempts: 1,
    durationMs: 1,
  };
}

/** An executor over `tools` with the statuses of `@mh/tools`' executor. */
export function fixtureExecutor(tools: Readonly<Record<string, FixtureTool>>): ToolExecutor {
  return {
    specs: () =>
      Object.keys(tools).map((name) => ({
        name,
        description: name,
        inputSchema: { type: 'object' },
      })),
    async *execute(calls) {
      for (const call of calls) {
        yield { type: 'tool-start', call };
        const execute = (): ToolOutcome => {
          const tool = tools[call.name];
          const input = (call.input ?? {}) as Record<string, unknown>;
          if (!tool) return outcome(call, 'unknown-tool', `Unknown tool: ${call.name}`);
          const problem = tool.validate?.(input);
          if (problem) return outcome(call, 'invalid-arguments', `Invalid arguments: ${problem}`);
          if (tool.denied)
            return outcome(call, 'denied', `Permission denied: ${call.name} needs 'exec'`);
          if (tool.timeout)
            return outcome(call, 'timeout', `Tool ${call.name} timed out after 50 ms`);
          try {
            return outcome(call, 'ok', tool.run?.(input) ?? 'ok');
          } catch (error) {
            return outcome(call, 'error', `Error: ${(error as Error).message}`);
          }
        };
        yield { type: 'tool-end', outcome: execute() };
      }
    },
  };
}

/** What a fixture session produced. */
export interface FixtureSession {
  readonly results: RunResult[];
  readonly events: AgentEvent[];
  readonly tracer: InMemoryTracer;
}

/** An agent-like object (for the runner) over the real loop; it keeps its history across prompts. */
export function fixtureAgent(options: {
  readonly turns: readonly Turn[];
  readonly tools?: Readonly<Record<string, FixtureTool>>;
  readonly limits?: Limits;
  readonly tracer?: InMemoryTracer;
  readonly repeatLast?: boolean;
}): EvalAgent {
  const provider = scriptedProvider(options.turns, options.repeatLast);
  const executor = fixtureExecutor(options.tools ?? {});
  let history: Message[] = [];
  return {
    async *stream(prompt, { signal }) {
      const loop = runLoop({
        provider,
        model: MODEL,
        history: [...history, userMessage(prompt)],
        tools: executor,
        limits: options.limits,
        signal,
        tracer: options.tracer,
        pricing: PRICING,
      });
      for await (const event of loop) {
        if (event.type === 'run-end') history = [...event.result.messages];
        yield event;
      }
    },
  };
}

/** Runs `prompts` on one fixture agent with a fresh tracer and collects results and events. */
export async function runFixture(options: {
  readonly prompts?: readonly string[];
  readonly turns: readonly Turn[];
  readonly tools?: Readonly<Record<string, FixtureTool>>;
  readonly limits?: Limits;
  readonly repeatLast?: boolean;
}): Promise<FixtureSession> {
  const tracer = new InMemoryTracer();
  const agent = fixtureAgent({ ...options, tracer });
  const results: RunResult[] = [];
  const events: AgentEvent[] = [];
  for (const prompt of options.prompts ?? ['Go.']) {
    for await (const event of agent.stream(prompt, {})) {
      events.push(event);
      if (event.type === 'run-end') results.push(event.result);
    }
    if (results.at(-1)?.status !== 'completed') break;
  }
  return { results, events, tracer };
}
