import { describe, expect, it } from 'vitest';
import { drainRun } from '../../test/drain-run.js';
import { validateHistory } from '../messages/history.js';
import { toolResultsOf, toolUsesOf, userMessage } from '../messages/message.js';
import type { ToolExecutor } from '../ports/tool-executor.js';
import { ScriptedProvider, type ScriptedTurn } from '../testing/scripted-provider.js';
import { echoTool, StubExecutor } from '../testing/stub-executor.js';

/** Stub tools `r*` (read) and `w*` (write); `needs` names those that wait for a person. */
function executor(needs: readonly string[]): { executor: ToolExecutor; stub: StubExecutor } {
  const names = ['r1', 'r2', 'w0', 'w1', 'w2'];
  const stub = new StubExecutor(Object.fromEntries(names.map((name) => [name, echoTool])));
  return {
    stub,
    executor: {
      specs: () => stub.specs(),
      execute: (calls, context) => stub.execute(calls, context),
      preview: async (call) => ({
        decision: 'run',
        permission: call.name.startsWith('r') ? 'read' : 'write',
      }),
      approval: async (call) =>
        needs.includes(call.name)
          ? { reason: `${call.name} needs approval`, permission: 'write' }
          : undefined,
    },
  };
}

const turn = (...names: string[]): ScriptedTurn => ({
  toolCalls: names.map((name) => ({ id: `c_${name}`, name, input: { name } })),
});

async function run(turns: ScriptedTurn[], needs: readonly string[]) {
  const { executor: tools, stub } = executor(needs);
  const provider = new ScriptedProvider(turns);
  const drained = await drainRun({
    provider,
    model: 'm',
    history: [userMessage('go', 'u0')],
    tools,
  });
  return { ...drained, stub, provider };
}

describe('calls that wait for a person', () => {
  it('end the run interrupted without running the call, the turn held out of a paired history', async () => {
    const { result, stub } = await run([turn('w1'), { text: 'never' }], ['w1']);
    expect(result.status).toBe('interrupted');
    expect(result.error).toBeUndefined();
    expect(result.interrupts).toEqual([
      {
        kind: 'approval',
        callId: 'c_w1',
        tool: 'w1',
        input: { name: 'w1' },
        permission: 'write',
        reason: 'w1 needs approval',
      },
    ]);
    expect(stub.started).toEqual([]);
    expect(result.messages.map((message) => message.role)).toEqual(['user']);
    expect(validateHistory(result.messages)).toEqual([]);
    expect(toolUsesOf(result.pendingTurn?.assistant as never).map((call) => call.id)).toEqual([
      'c_w1',
    ]);
    expect(result.pendingTurn?.results).toEqual([]);
  });

  it('run the reads of the turn and the writes before it; later writes wait', async () => {
    const { result, stub } = await run([turn('r1', 'w0', 'w1', 'w2', 'r2')], ['w1']);
    expect(result.status).toBe('interrupted');
    expect(stub.started.map((call) => call.name).sort()).toEqual(['r1', 'r2', 'w0']);
    expect(result.pendingTurn?.results.map((block) => block.toolUseId).sort()).toEqual([
      'c_r1',
      'c_r2',
      'c_w0',
    ]);
    expect(result.interrupts?.map((interrupt) => interrupt.callId)).toEqual(['c_w1']);
    // Nothing of the held turn is in the history: no result without its call.
    expect(result.messages.flatMap(toolResultsOf)).toEqual([]);
  });

  it('list every waiting call of the turn, in order', async () => {
    const { result } = await run([turn('w1', 'w2')], ['w1', 'w2']);
    expect(result.interrupts?.map((interrupt) => interrupt.callId)).toEqual(['c_w1', 'c_w2']);
  });

  it('do not interrupt a turn whose calls need nothing', async () => {
    const { result, stub } = await run([turn('w0'), { text: 'done' }], ['w1']);
    expect(result.status).toBe('completed');
    expect(result.interrupts).toBeUndefined();
    expect(stub.started.map((call) => call.name)).toEqual(['w0']);
  });
});
