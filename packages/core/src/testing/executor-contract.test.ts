import { describe, expect, it } from 'vitest';
import { parallelCallEvents } from '../executor/parallel-calls.js';
import type { Tool } from '../ports/tool.js';
import type { ToolExecutor, ToolOutcome } from '../ports/tool-executor.js';
import { toolExecutorContractProblems } from './executor-contract.js';
import { StubExecutor } from './stub-executor.js';

/** A StubExecutor over the check's tools. */
const stub = (tools: readonly Tool[]): ToolExecutor =>
  new StubExecutor(
    Object.fromEntries(
      tools.map((tool) => [
        tool.name,
        (input: unknown, signal: AbortSignal, call: { id: string }) =>
          tool.run(input, { signal, callId: call.id, attempt: 1 }),
      ]),
    ),
  );

async function answer(tool: Tool | undefined, call: { id: string }): Promise<ToolOutcome> {
  const output = await tool?.run(
    {},
    { signal: new AbortController().signal, callId: call.id, attempt: 1 },
  );
  return {
    call: call as ToolOutcome['call'],
    result: {
      type: 'tool_result',
      toolUseId: call.id,
      content: [{ type: 'text', text: String(output) }],
      isError: false,
    },
    status: 'ok',
    attempts: 1,
    durationMs: 0,
  };
}

describe('toolExecutorContractProblems', () => {
  it('finds no problem in the StubExecutor', async () => {
    expect(await toolExecutorContractProblems(stub)).toEqual([]);
  });

  it('finds a tool run before its tool-start was pulled (the earlier port)', async () => {
    const eager = (tools: readonly Tool[]): ToolExecutor => ({
      specs: () => [],
      async *execute(calls) {
        for (const call of calls) {
          const outcome = answer(
            tools.find((tool) => tool.name === call.name),
            call,
          );
          yield { type: 'tool-start', call };
          yield { type: 'tool-end', outcome: await outcome };
        }
      },
    });
    const problems = await toolExecutorContractProblems(eager);
    expect(problems).toContain('sequential writes: w1 ran before its tool-start');
    expect(problems.some((problem) => problem.startsWith('journal before run'))).toBe(true);
  });

  it('finds an executor that goes on after the abort', async () => {
    const stubborn = (tools: readonly Tool[]): ToolExecutor => ({
      specs: () => [],
      execute: (calls, context) =>
        parallelCallEvents(calls, { ...context, signal: new AbortController().signal }, (call) =>
          answer(
            tools.find((tool) => tool.name === call.name),
            call,
          ),
        ),
    });
    const problems = await toolExecutorContractProblems(stubborn);
    expect(problems).toContain(
      'abort while holding a tool-start: it yielded tool-start after the abort',
    );
    expect(problems).toContain('abort after a tool finished: it yielded tool-end after the abort');
  });
});
