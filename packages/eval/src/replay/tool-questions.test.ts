import {
  type ToolCallEvent,
  type ToolExecutor,
  type ToolOutcome,
  type ToolUseBlock,
  toolResult,
} from '@mh/core';
import { describe, expect, it } from 'vitest';
import { CountingExecutor, tempCassette } from '../../test/helpers.js';
import { openCassette } from '../cassette/cassette.js';

const KEY = { case: 'questions', repeat: 0 };
const question = { question: 'Which region?', schema: { type: 'string' }, answers: ['eu'] };

/** `lookup`, whose every call stops on a question (a tool that called `ctx.interrupt`). */
class AskingExecutor extends CountingExecutor {
  override async *execute(
    calls: readonly ToolUseBlock[],
  ): AsyncGenerator<ToolCallEvent, void, undefined> {
    for (const call of calls) {
      yield { type: 'tool-start', call };
      this.runs++;
      const outcome: ToolOutcome = {
        call,
        result: toolResult(call.id, 'Waiting for the user', true),
        status: 'interrupted',
        attempts: 1,
        durationMs: 1,
        permission: 'write',
        question,
      };
      yield { type: 'tool-end', outcome };
    }
  }
}

const call: ToolUseBlock = { type: 'tool_use', id: 't1', name: 'lookup', input: { query: 'x' } };

async function outcomesOf(executor: ToolExecutor): Promise<ToolOutcome[]> {
  const outcomes: ToolOutcome[] = [];
  for await (const event of executor.execute([call], { signal: new AbortController().signal }))
    if (event.type === 'tool-end') outcomes.push(event.outcome);
  return outcomes;
}

describe('a recorded call that stopped on a question', () => {
  it('keeps its question in the cassette, and a replay serves it with the question', async () => {
    const path = tempCassette();
    const recording = await openCassette(path, { mode: 'record' });
    await outcomesOf(recording.tools(new AskingExecutor(), KEY));
    await recording.close();
    const replaying = await openCassette(path, { mode: 'lockdown' });
    const inner = new CountingExecutor();
    const [served] = await outcomesOf(replaying.tools(inner, KEY));
    expect(inner.runs).toBe(0);
    expect(served).toMatchObject({ status: 'interrupted', question });
    await replaying.close();
  });
});
