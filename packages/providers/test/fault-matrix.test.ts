import { performance } from 'node:perf_hooks';
import {
  type AgentEvent,
  messageText,
  type Provider,
  ProviderError,
  type ProviderErrorKind,
  type RunResult,
  runLoop,
  type ToolCallEvent,
  type ToolExecutor,
  type ToolOutcome,
  type ToolSpec,
  type ToolUseBlock,
  toolResult,
  toolResultsOf,
  toolResultText,
  toolUsesOf,
  totalTokens,
  type Usage,
  userMessage,
  validateHistory,
} from '@mh/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { anthropic } from '../src/anthropic/index.js';
import { openai } from '../src/openai/index.js';
import { attemptsOf } from '../src/retry-attempts.js';
import type { RetryInfo } from '../src/retry-options.js';
import { withRetry } from '../src/retrying-provider.js';
import { type Handler, type RecordedRequest, startLoopback } from './loopback-server.js';

// The provider fault matrix end to end: each scenario of bench/fault-scenarios.mjs runs the real
// SDK client against a loopback server that scripts every request, through the real adapter
// wrapped in `withRetry`, inside core's `runLoop` with a counting executor.

type Vendor = 'anthropic' | 'openai-chat';

/** What a scenario must end with (documented field by field in bench/fault-scenarios.mjs). */
interface Expected {
  readonly status: 'completed' | 'error';
  readonly kind?: ProviderErrorKind;
  readonly attempts: readonly number[];
  readonly retried: readonly ProviderErrorKind[];
  readonly retryAfterMs?: number;
  readonly resets: number;
  readonly idleTimeout: boolean;
  readonly executions: number;
  readonly failedToolCalls: number;
  readonly invalidArguments: number;
  readonly failedUsage: Usage;
  readonly usage: Usage;
}

/** The `withRetry` options of a scenario. */
interface RetrySettings {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly idleTimeoutMs: number;
}

interface Scenario {
  readonly id: string;
  readonly name: string;
  readonly vendor: Vendor;
  readonly handler: Handler;
  readonly retryOptions: RetrySettings;
  readonly expected: Expected;
}

/** The exports of bench/fault-scenarios.mjs. */
interface ScenarioModule {
  readonly SCENARIOS: readonly Scenario[];
  readonly MODELS: Readonly<Record<Vendor, string>>;
  readonly PROMPT: string;
  readonly ADD_TOOL: ToolSpec;
  readonly ADD_INPUT: Readonly<Record<string, number>>;
  readonly CALL_IDS: Readonly<Record<Vendor, string>>;
  readonly TURN_TEXTS: readonly string[];
  readonly TURN_USAGE: readonly Usage[];
  readonly NO_USAGE: Usage;
  sumUsage(...usages: Usage[]): Usage;
  answerAdd(call: ToolUseBlock): { readonly isError: boolean; readonly text: string };
}

// The scenarios are plain JavaScript so that the bench runs them in node without a build. A
// static import of a .mjs would need `allowJs` (TS7016), so the module is loaded by URL and given
// the type above; every test below exercises that type against the real values.
const {
  SCENARIOS,
  MODELS,
  PROMPT,
  ADD_TOOL,
  ADD_INPUT,
  CALL_IDS,
  TURN_TEXTS,
  TURN_USAGE,
  NO_USAGE,
  sumUsage,
  answerAdd,
} = (await import(new URL('../bench/fault-scenarios.mjs', import.meta.url).href)) as ScenarioModule;

/** Runs the `add` tool through the scenarios' shared answer, recording what it ran and refused. */
class AddExecutor implements ToolExecutor {
  /** Calls run, in order. */
  readonly executed: ToolUseBlock[] = [];
  /** Calls answered "Invalid arguments" without running. */
  readonly refused: ToolUseBlock[] = [];

  specs(): readonly ToolSpec[] {
    return [ADD_TOOL];
  }

  async *execute(calls: readonly ToolUseBlock[]): AsyncGenerator<ToolCallEvent> {
    for (const call of calls) {
      yield { type: 'tool-start', call };
      const answer = answerAdd(call);
      (answer.isError ? this.refused : this.executed).push(call);
      const outcome: ToolOutcome = {
        call,
        result: toolResult(call.id, answer.text, answer.isError),
        status: answer.isError ? 'invalid-arguments' : 'ok',
        attempts: answer.isError ? 0 : 1,
        durationMs: 0,
      };
      yield { type: 'tool-end', outcome };
    }
  }
}

/** One model call of a run, as the loop's consumer and the server saw it. */
interface ModelCall {
  /** Index in the server's requests of this call's first request. */
  readonly firstRequest: number;
  /** Requests the server received for this call. */
  requests: number;
  /** What `onRetry` reported during this call. */
  readonly retries: RetryInfo[];
  /** The loop's events from this call's `turn-start` on, each with its arrival time (ms). */
  readonly events: { readonly event: AgentEvent; readonly at: number }[];
}

interface Observed {
  readonly result: RunResult;
  readonly calls: readonly ModelCall[];
  readonly requests: readonly RecordedRequest[];
  /** When request `i` was fully received by the server (ms, performance clock). */
  readonly arrivedAt: readonly number[];
  /** When the server finished answering request `i`, if it did (not for a reset or a stall). */
  readonly answeredAt: readonly (number | undefined)[];
  readonly executor: AddExecutor;
}

function adapter(vendor: Vendor, baseURL: string): Provider {
  return vendor === 'anthropic'
    ? anthropic({ apiKey: 'sk-ant-test', baseURL })
    : openai({ apiKey: 'sk-test', baseURL });
}

async function runScenario(scenario: Scenario): Promise<Observed> {
  const arrivedAt: number[] = [];
  const answeredAt: (number | undefined)[] = [];
  const server = await startLoopback((request, response, index) => {
    arrivedAt[index] = performance.now();
    response.on('finish', () => {
      answeredAt[index] = performance.now();
    });
    return scenario.handler(request, response, index);
  });
  try {
    const calls: ModelCall[] = [];
    const provider = withRetry(adapter(scenario.vendor, server.url), {
      ...scenario.retryOptions,
      onRetry: (info) => calls.at(-1)?.retries.push(info),
    });
    const executor = new AddExecutor();
    const loop = runLoop({
      provider,
      model: MODELS[scenario.vendor],
      history: [userMessage(PROMPT)],
      tools: executor,
    });
    for (;;) {
      const next = await loop.next();
      if (next.done) {
        calls.forEach((call, index) => {
          const end = calls[index + 1]?.firstRequest ?? server.requests.length;
          call.requests = end - call.firstRequest;
        });
        return {
          result: next.value,
          calls,
          requests: [...server.requests],
          arrivedAt,
          answeredAt,
          executor,
        };
      }
      const event = next.value;
      if (event.type === 'turn-start') {
        calls.push({ firstRequest: server.requests.length, requests: 0, retries: [], events: [] });
      }
      calls.at(-1)?.events.push({ event, at: performance.now() });
    }
  } finally {
    await server.close();
  }
}

/** The events of `call` after its last `stream-reset`: what the consumer keeps. */
function keptEvents(call: ModelCall): AgentEvent[] {
  const events = call.events.map(({ event }) => event);
  return events.slice(events.findLastIndex((event) => event.type === 'stream-reset') + 1);
}

/** The events of `call` that a later `stream-reset` retracted: the failed attempts' output. */
function retractedEvents(call: ModelCall): AgentEvent[] {
  const events = call.events.map(({ event }) => event);
  return events.slice(0, events.findLastIndex((event) => event.type === 'stream-reset') + 1);
}

function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}

const CASES = SCENARIOS.map(
  (scenario) => [`${scenario.vendor}: ${scenario.id} ${scenario.name}`, scenario] as const,
);

describe.each(CASES)('fault matrix, %s', (_title, scenario) => {
  const { expected, retryOptions } = scenario;
  // Model calls that completed with their good turn: all, or all but the one that failed.
  const completedCalls = expected.attempts.length - (expected.status === 'completed' ? 0 : 1);
  const goodTexts = TURN_TEXTS.slice(0, completedCalls);
  let observed: Observed;
  beforeAll(async () => {
    observed = await runScenario(scenario);
  });

  if (expected.status === 'completed') {
    it('completes the run', () => {
      expect(observed.result.error).toBeUndefined();
      expect(observed.result.status).toBe('completed');
      expect(observed.result.stopReason).toBe('end');
    });
  } else {
    it(`ends the run with a ProviderError of kind ${expected.kind}`, () => {
      const { result } = observed;
      expect(result.status).toBe('error');
      expect(ProviderError.isInstance(result.error), String(result.error)).toBe(true);
      expect(result.error).toMatchObject({
        kind: expected.kind,
        provider: scenario.vendor === 'anthropic' ? 'anthropic' : 'openai',
      });
    });
  }

  it('makes as many attempts per model call as the server received requests', () => {
    const attempts = observed.calls.map((call) => call.retries.length + 1);
    expect(attempts).toEqual(expected.attempts);
    expect(observed.calls.map((call) => call.requests)).toEqual(expected.attempts);
    if (expected.status === 'error') {
      expect(attemptsOf(observed.result.error)).toBe(expected.attempts.at(-1));
    }
  });

  it(`retries exactly: ${expected.retried.join(', ') || 'nothing'}`, () => {
    const kinds = observed.calls.flatMap((call) => call.retries.map((retry) => retry.error.kind));
    expect(kinds).toEqual(expected.retried);
  });

  it('replays the identical request on every retry', () => {
    for (const call of observed.calls) {
      const bodies = observed.requests
        .slice(call.firstRequest, call.firstRequest + call.requests)
        .map((request) => request.body);
      expect(new Set(bodies).size).toBe(1);
    }
  });

  const retryAfterMs = expected.retryAfterMs;
  if (retryAfterMs !== undefined) {
    it(`waits at least the server's retry-after (${retryAfterMs} ms) before the retried request`, () => {
      const call = observed.calls.find((candidate) => candidate.retries.length > 0);
      const retry = call?.retries[0];
      expect(retry?.error.retryAfterMs).toBe(retryAfterMs);
      expect(retry?.delayMs).toBeGreaterThanOrEqual(retryAfterMs);
      // Nor longer: the first retry's backoff ceiling is baseDelayMs, and the wait is the larger
      // of the two, not their sum. This bounds the wait chosen, not the wall time (a loaded
      // machine adds to that), so it holds on any machine.
      expect(retry?.delayMs).toBeLessThanOrEqual(Math.max(retryAfterMs, retryOptions.baseDelayMs));
      // Measured on the server: from the rate-limited answer to the retried request.
      const first = call?.firstRequest ?? 0;
      const answered = observed.answeredAt[first];
      const retried = observed.arrivedAt[first + 1];
      if (answered === undefined || retried === undefined) throw new Error('no retried request');
      expect(retried - answered).toBeGreaterThanOrEqual(retryAfterMs);
    });
  }

  if (expected.idleTimeout) {
    const { idleTimeoutMs } = retryOptions;
    it(`aborts the stalled attempt after one idle timeout (${idleTimeoutMs} ms) of silence`, () => {
      const call = observed.calls.find((candidate) =>
        candidate.events.some(({ event }) => event.type === 'stream-reset'),
      );
      const index = call?.events.findIndex(({ event }) => event.type === 'stream-reset') ?? -1;
      const reset = call?.events[index];
      const lastBefore = call?.events[index - 1];
      if (reset === undefined || lastBefore === undefined) throw new Error('no stream-reset');
      expect(reset.event).toMatchObject({ type: 'stream-reset', reason: /^timeout: / });
      const silentMs = reset.at - lastBefore.at;
      // Node's timers fire on a millisecond clock: up to 1 ms early against performance.now().
      expect(silentMs).toBeGreaterThanOrEqual(idleTimeoutMs - 1);
      // And by the first window, not a later one. The margin is a whole window rather than a
      // few hundred ms, because a loaded CI machine runs timers and I/O late.
      expect(silentMs).toBeLessThan(2 * idleTimeoutMs);
    });
  }

  it(`retracts the output of failed attempts with ${expected.resets} stream-reset(s)`, () => {
    const resets = observed.calls.flatMap((call) =>
      call.events.filter(({ event }) => event.type === 'stream-reset'),
    );
    expect(resets).toHaveLength(expected.resets);
  });

  it("keeps each completed turn's text exactly once, and nothing of a failed attempt", () => {
    const { calls, result } = observed;
    const kept = calls.slice(0, completedCalls).map((call) =>
      keptEvents(call)
        .map((event) => (event.type === 'text-delta' ? event.text : ''))
        .join(''),
    );
    expect(kept).toEqual(goodTexts);
    const assistant = result.messages.filter((message) => message.role === 'assistant');
    expect(assistant.map(messageText)).toEqual(goodTexts);
    const lastText = goodTexts.at(-1);
    if (expected.status === 'completed' && lastText !== undefined) {
      expect(result.text).toBe(lastText);
      expect(occurrences(result.messages.map(messageText).join('\n'), lastText)).toBe(1);
    }
  });

  it(`runs ${expected.executions} tool call(s), none from a failed attempt`, () => {
    const { executor, calls, result } = observed;
    expect(executor.executed).toHaveLength(expected.executions);
    for (const call of executor.executed) {
      expect(call).toMatchObject({ id: CALL_IDS[scenario.vendor], name: 'add', input: ADD_INPUT });
    }
    const failedCalls = calls
      .flatMap(retractedEvents)
      .filter((event) => event.type === 'tool-call-end');
    expect(failedCalls).toHaveLength(expected.failedToolCalls);
    const uses = result.messages.flatMap(toolUsesOf);
    expect(uses).toHaveLength(expected.executions + expected.invalidArguments);
  });

  if (expected.invalidArguments > 0) {
    it('answers invalid tool JSON with an isError result the model reads, without retrying', () => {
      const { executor, result, requests } = observed;
      expect(executor.refused).toHaveLength(expected.invalidArguments);
      expect(executor.refused[0]?.rawInput).toBe('{"a": 2, "b": three}');
      const [answer] = result.messages.flatMap(toolResultsOf);
      expect(answer?.isError).toBe(true);
      expect(answer && toolResultText(answer)).toMatch(/^Invalid arguments: /);
      expect(requests[1]?.body).toContain('Invalid arguments: ');
    });
  }

  it('bills exactly the tokens the server reported, failed attempts included', () => {
    expect(observed.result.usage).toEqual(expected.usage);
  });

  if (completedCalls > 0) {
    const good = sumUsage(...TURN_USAGE.slice(0, completedCalls));
    const failedAttemptBilled = JSON.stringify(expected.failedUsage) !== JSON.stringify(NO_USAGE);
    it(`counts at least the completed good streams' usage${failedAttemptBilled ? ', and more: the failed attempt reported tokens' : ''}`, () => {
      const usage = observed.result.usage;
      const fields = [
        'inputTokens',
        'outputTokens',
        'cacheReadTokens',
        'cacheWriteTokens',
      ] as const;
      for (const field of fields) expect(usage[field]).toBeGreaterThanOrEqual(good[field]);
      if (failedAttemptBilled) expect(totalTokens(usage)).toBeGreaterThan(totalTokens(good));
      else expect(totalTokens(usage)).toBe(totalTokens(good));
    });
  }

  it('leaves a valid history', () => {
    expect(validateHistory(observed.result.messages)).toEqual([]);
  });
});
