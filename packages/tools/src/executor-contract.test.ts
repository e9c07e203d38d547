import { runLoop, type Tool, type ToolUseBlock, userMessage } from '@mh/core';
import { ScriptedProvider, toolExecutorContractProblems } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import { PolicyToolExecutor } from './policy-tool-executor.js';

describe('PolicyToolExecutor and the ToolExecutor port contract', () => {
  it('holds the contract: start before run, held until pulled, one end per start, abort', async () => {
    const make = (tools: readonly Tool[]): PolicyToolExecutor =>
      new PolicyToolExecutor({ tools, grants: ['write'] });
    expect(await toolExecutorContractProblems(make)).toEqual([]);
  });

  it('asks the policy only after the call was journaled, for sequential writes', async () => {
    const log: string[] = [];
    const write = (name: string): Tool => ({
      name,
      description: name,
      schema: {
        jsonSchema: { type: 'object' },
        parse: (input) => ({ success: true, value: input }),
      },
      permission: 'write',
      run: async () => {
        log.push(`run ${name}`);
        return 'ok';
      },
    });
    const executor = new PolicyToolExecutor({
      tools: [write('w1'), write('w2')],
      policy: {
        check: (request) => {
          log.push(`policy ${request.callId}`);
          return { allow: true };
        },
      },
    });
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          { id: 'w1', name: 'w1' },
          { id: 'w2', name: 'w2' },
        ],
      },
      { text: 'done' },
    ]);
    const hooks = {
      toolStart: async (call: ToolUseBlock) => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        log.push(`journaled ${call.id}`);
      },
    };
    const history = [userMessage('go')];
    for await (const _event of runLoop({ provider, model: 'm', history, tools: executor, hooks })) {
      // Drained: only the order in the log matters.
    }
    expect(log).toEqual([
      'journaled w1',
      'policy w1',
      'run w1',
      'journaled w2',
      'policy w2',
      'run w2',
    ]);
  });
});
