import { describe, expect, it } from 'vitest';
import { drainRun } from '../../test/drain-run.js';
import { parallelCallEvents } from '../executor/parallel-calls.js';
import { questionAsker } from '../executor/question-asker.js';
import { validateHistory } from '../messages/history.js';
import { type ToolUseBlock, toolResult, toolResultsOf, userMessage } from '../messages/message.js';
import type { AskedQuestion } from '../ports/tool.js';
import type { ToolExecutor, ToolOutcome } from '../ports/tool-executor.js';
import { ScriptedProvider, type ScriptedTurn } from '../testing/scripted-provider.js';

/**
 * Tools `ask` (asks "Which?" and answers with the answer) and `read` (answers 'read'); `w1`
 * waits for approval. Questions go through `questionAsker`, as an executor hands them to a tool.
 */
function executor(answers?: ReadonlyMap<string, readonly unknown[]>): ToolExecutor {
  const run = async (call: ToolUseBlock, given = answers): Promise<ToolOutcome> => {
    const asker = questionAsker(call.id, given?.get(call.id));
    const base = { call, attempts: 1, durationMs: 0 };
    try {
      const text =
        call.name === 'ask' ? `answer ${JSON.stringify(await asker.interrupt('Which?'))}` : 'read';
      return { ...base, result: toolResult(call.id, text), status: 'ok' };
    } catch {
      const question = asker.pending as AskedQuestion;
      const result = toolResult(call.id, 'waiting', true);
      return { ...base, result, status: 'interrupted', question, permission: 'write' };
    }
  };
  return {
    specs: () =>
      ['ask', 'read', 'w1'].map((name) => ({ name, description: name, inputSchema: {} })),
    execute: (calls, context) =>
      parallelCallEvents(calls, context, (call) => run(call, context.answers ?? answers)),
    approval: async (call) =>
      call.name === 'w1' ? { reason: 'w1 needs approval', permission: 'write' } : undefined,
  };
}

const turn = (...names: string[]): ScriptedTurn => ({
  toolCalls: names.map((name) => ({ id: `c_${name}`, name, input: { name } })),
});

describe('a tool that asks a question', () => {
  it('ends the run interrupted with a question interrupt, held out of a paired history', async () => {
    const journal: string[] = [];
    const { result } = await drainRun({
      provider: new ScriptedProvider([turn('read', 'ask'), { text: 'never' }]),
      model: 'm',
      history: [userMessage('go', 'u0')],
      tools: executor(),
      hooks: {
        toolStart: async (call) => void journal.push(`start ${call.id}`),
        toolEnd: async (call) => void journal.push(`end ${call.id}`),
        toolQuestion: async (call, question) =>
          void journal.push(`question ${call.id} ${question.question}`),
      },
    });
    expect(result.status).toBe('interrupted');
    expect(result.interrupts).toEqual([
      {
        kind: 'question',
        callId: 'c_ask',
        tool: 'ask',
        input: { name: 'ask' },
        permission: 'write',
        reason: 'Which?',
        question: 'Which?',
        answers: [],
      },
    ]);
    expect(journal).toContain('question c_ask Which?');
    expect(journal).not.toContain('end c_ask');
    expect(result.pendingTurn?.results.map((block) => block.toolUseId)).toEqual(['c_read']);
    expect(result.pendingTurn?.questions).toEqual([
      { callId: 'c_ask', question: 'Which?', answers: [] },
    ]);
    expect(result.messages.flatMap(toolResultsOf)).toEqual([]);
    expect(validateHistory(result.messages)).toEqual([]);
  });

  it('lists approvals and questions of one turn together, in the order of the turn', async () => {
    const { result } = await drainRun({
      provider: new ScriptedProvider([turn('ask', 'w1')]),
      model: 'm',
      history: [userMessage('go', 'u0')],
      tools: executor(),
    });
    expect(result.interrupts?.map((interrupt) => [interrupt.kind, interrupt.callId])).toEqual([
      ['question', 'c_ask'],
      ['approval', 'c_w1'],
    ]);
  });

  it('completes when the executor has the answer', async () => {
    const { result } = await drainRun({
      provider: new ScriptedProvider([turn('ask'), { text: 'done' }]),
      model: 'm',
      history: [userMessage('go', 'u0')],
      tools: executor(new Map([['c_ask', ['blue']]])),
    });
    expect(result.status).toBe('completed');
    const [answered] = result.messages.flatMap(toolResultsOf);
    expect(answered?.content).toEqual([{ type: 'text', text: 'answer "blue"' }]);
  });
});
