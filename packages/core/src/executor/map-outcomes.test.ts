import { describe, expect, it, vi } from 'vitest';
import { type ToolUseBlock, toolResult, toolResultText } from '../messages/message.js';
import type { Tool } from '../ports/tool.js';
import type { ToolCallEvent, ToolExecutor, ToolOutcome } from '../ports/tool-executor.js';
import { toolExecutorContractProblems } from '../testing/executor-contract.js';
import { echoTool, StubExecutor } from '../testing/stub-executor.js';
import { mapOutcomes } from './map-outcomes.js';

const call = (id: string, name = 'echo'): ToolUseBlock => ({
  type: 'tool_use',
  id,
  name,
  input: { id },
});

const shout = (outcome: ToolOutcome): ToolOutcome => ({
  ...outcome,
  result: toolResult(outcome.call.id, toolResultText(outcome.result).toUpperCase()),
});

async function events(executor: ToolExecutor, calls: ToolUseBlock[]): Promise<string[]> {
  const seen: string[] = [];
  const signal = new AbortController().signal;
  for await (const event of executor.execute(calls, { signal })) {
    seen.push(
      event.type === 'tool-start'
        ? `start ${event.call.id}`
        : `end ${event.outcome.call.id} ${toolResultText(event.outcome.result)}`,
    );
  }
  return seen;
}

describe('mapOutcomes', () => {
  it("forwards the inner executor's starts and maps each outcome once", async () => {
    const fn = vi.fn(shout);
    const mapped = mapOutcomes(new StubExecutor({ echo: echoTool }), fn);
    expect(await events(mapped, [call('a')])).toEqual(['start a', 'end a {"ID":"A"}']);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it("advertises the inner executor's specs", () => {
    const inner = new StubExecutor({ echo: echoTool });
    expect(mapOutcomes(inner, shout).specs()).toEqual(inner.specs());
  });

  it("answers the inner executor's preview, or undecidable when it has none", async () => {
    const inner = new StubExecutor({ echo: echoTool });
    expect((await mapOutcomes(inner, shout).preview?.(call('a')))?.decision).toBe('undecidable');
    const previewing: ToolExecutor = {
      specs: () => [],
      execute: (calls, context) => inner.execute(calls, context),
      preview: async () => ({ decision: 'denied', reason: 'no' }),
    };
    expect(await mapOutcomes(previewing, shout).preview?.(call('a'))).toEqual({
      decision: 'denied',
      reason: 'no',
    });
  });

  it('keeps the port contract of the executor it wraps', async () => {
    const make = (tools: readonly Tool[]): ToolExecutor =>
      mapOutcomes(
        new StubExecutor(
          Object.fromEntries(
            tools.map((tool) => [
              tool.name,
              (input: unknown, signal: AbortSignal, hooked: ToolUseBlock) =>
                tool.run(input, { signal, callId: hooked.id, attempt: 1 }),
            ]),
          ),
        ),
        (outcome) => outcome,
      );
    expect(await toolExecutorContractProblems(make)).toEqual([]);
  });

  it('pulls the inner executor only when it is pulled itself', async () => {
    const inner = new StubExecutor({ echo: echoTool });
    const iterator = mapOutcomes(inner, shout)
      .execute([call('a')], { signal: new AbortController().signal })
      [Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual({ type: 'tool-start', call: call('a') });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(inner.started).toEqual([]);
    await iterator.next();
    expect(inner.started.map((started) => started.id)).toEqual(['a']);
  });

  it('adapts an inner executor of the earlier port, mapping its outcomes', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const legacy = {
      specs: () => [],
      async *execute(calls: readonly ToolUseBlock[]) {
        for (const answered of calls) {
          const result = toolResult(answered.id, 'old');
          yield { call: answered, result, status: 'ok', attempts: 1, durationMs: 0 };
        }
      },
    } as unknown as ToolExecutor;
    try {
      const seen = await events(mapOutcomes(legacy, shout), [call('a'), call('b')]);
      expect(seen).toEqual(['start a', 'end a OLD', 'start b', 'end b OLD']);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]?.[1]).toBe('DeprecationWarning');
    } finally {
      warn.mockRestore();
    }
  });

  it('yields nothing after the abort', async () => {
    const controller = new AbortController();
    const mapped = mapOutcomes(new StubExecutor({ echo: echoTool }), shout);
    const seen: ToolCallEvent[] = [];
    for await (const event of mapped.execute([call('a'), call('b')], controller)) {
      seen.push(event);
      controller.abort();
    }
    expect(seen.map((event) => event.type)).toEqual(['tool-start']);
  });
});
