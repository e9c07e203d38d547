import type { Interrupt } from '@mh/sdk';
import { describe, expect, it } from 'vitest';
import { answerOfLine, askDecisions, decisionsOf, waitingNotice } from '../src/approvals.js';
import { UsageError } from '../src/usage-error.js';

const question: Interrupt = {
  kind: 'question',
  callId: 'c1',
  tool: 'deploy',
  input: { app: 'shop' },
  permission: 'write',
  reason: 'At what hour?',
  question: 'At what hour?',
  schema: { type: 'integer' },
  answers: ['eu'],
};
const approval: Interrupt = {
  kind: 'approval',
  callId: 'c2',
  tool: 'write_file',
  input: { path: 'a' },
  permission: 'write',
  reason: 'write_file needs approval',
};

describe('mh and a tool that asks a question', () => {
  it('lists the question and the --answer line that answers it', () => {
    const notice = waitingNotice([question, approval], '--db x.db --session s1');
    expect(notice).toContain('2 tool call(s) wait for you');
    expect(notice).toContain(
      'c1  deploy {"app":"shop"}  asks: At what hour? (answer: {"type":"integer"})',
    );
    expect(notice).toContain('c2  write_file {"path":"a"}  (write_file needs approval)');
    expect(notice).toContain('mh --db x.db --session s1 --answer c1=TEXT');
  });

  it('says a question without a session ends with the process', () => {
    expect(waitingNotice([question], undefined)).toContain('run again with --db PATH');
  });

  it('asks the question at the terminal and answers with the typed line, read as the schema wants', async () => {
    const asked: string[] = [];
    const decisions = await askDecisions(
      [question, approval],
      async (text) => {
        asked.push(text);
        return text.includes('asks') ? ' 9 ' : 'y';
      },
      new Set(),
      () => {},
    );
    expect(asked[0]).toContain('deploy {"app":"shop"} asks: At what hour?');
    expect(decisions).toEqual([
      { callId: 'c1', answer: 9 },
      { callId: 'c2', approve: true },
    ]);
  });

  it('reads a typed line as text for a string (or no) schema, as JSON for another type', () => {
    const plain = { ...question, schema: undefined } as Interrupt & { kind: 'question' };
    expect(answerOfLine(plain, '42')).toBe('42');
    expect(answerOfLine(question as Interrupt & { kind: 'question' }, '42')).toBe(42);
    expect(answerOfLine(question as Interrupt & { kind: 'question' }, 'soon')).toBe('soon');
  });

  it('takes --answer ID=TEXT as text and --answer-json ID=JSON parsed; refuses a bad one', () => {
    const { decisions, flags } = decisionsOf([], [], {
      text: ['c1=eu=west'],
      json: ['c2={"a":1}'],
    });
    expect(decisions).toEqual([
      { callId: 'c1', answer: 'eu=west' },
      { callId: 'c2', answer: { a: 1 } },
    ]);
    expect(flags.get('c1')).toBe('--answer c1');
    expect(() => decisionsOf([], [], { text: ['c1'] })).toThrow(UsageError);
    expect(() => decisionsOf([], [], { json: ['c1={'] })).toThrow(/not JSON/);
    expect(() => decisionsOf(['c1'], [], { text: ['c1=x'] })).toThrow(/decided twice/);
  });
});
