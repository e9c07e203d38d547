import { describe, expect, it } from 'vitest';
import { ConfigError, ToolInterrupt } from '../errors.js';
import { checkAnswers, checkAskedQuestion, questionAsker } from './question-asker.js';

describe('questionAsker', () => {
  it('rejects the first question without an answer with ToolInterrupt and keeps it pending', async () => {
    const asker = questionAsker('c1');
    const asking = asker.interrupt({ question: 'Which file?', schema: { type: 'string' } });
    const error = await asking.catch((caught: unknown) => caught);
    expect(ToolInterrupt.isInstance(error)).toBe(true);
    expect((error as ToolInterrupt).callId).toBe('c1');
    expect(asker.pending).toEqual({
      question: 'Which file?',
      schema: { type: 'string' },
      answers: [],
    });
  });

  it('answers the n-th question with the n-th answer, then interrupts with the answers so far', async () => {
    const asker = questionAsker('c1', ['a.txt', 3]);
    expect(await asker.interrupt('Which file?')).toBe('a.txt');
    expect(await asker.interrupt('How many?')).toBe(3);
    expect(asker.pending).toBeUndefined();
    await expect(asker.interrupt('Sure?')).rejects.toSatisfy(ToolInterrupt.isInstance);
    expect(asker.pending).toEqual({ question: 'Sure?', answers: ['a.txt', 3] });
  });

  it('keeps the first unanswered question when the tool catches the rejection and asks again', async () => {
    const asker = questionAsker('c1');
    await asker.interrupt('First?').catch(() => undefined);
    await expect(asker.interrupt('Second?')).rejects.toSatisfy(ToolInterrupt.isInstance);
    expect(asker.pending?.question).toBe('First?');
  });

  it.each([
    ['', 'question'],
    [{ question: ' ' }, 'question.question'],
    [{ question: 'q', schema: [] }, 'question.schema'],
    [{ question: 'q', scheme: {} }, 'question.scheme'],
    [42, 'question'],
  ])('refuses the malformed question %j naming %s', async (question, field) => {
    const asker = questionAsker('c1');
    const error = await asker.interrupt(question as never).catch((caught: unknown) => caught);
    expect(ConfigError.isInstance(error) && error.field).toBe(field);
    expect(asker.pending).toBeUndefined();
  });
});

describe('checkAskedQuestion and checkAnswers', () => {
  it('accept a journaled question with JSON answers', () => {
    const asked = { question: 'q', schema: { type: 'number' }, answers: [1, { a: [null] }] };
    expect(checkAskedQuestion(asked)).toEqual(asked);
  });

  it.each([
    [{ question: 'q' }, 'question.answers'],
    [{ question: 'q', answers: [undefined] }, 'question.answers[0]'],
    [{ question: 'q', answers: [{ at: new Date(0) }] }, 'question.answers[0].at'],
    [{ question: '', answers: [] }, 'question.question'],
    [null, 'question'],
  ])('refuse %j naming %s', (value, field) => {
    expect(() => checkAskedQuestion(value)).toThrow(
      expect.objectContaining({ field }) as unknown as Error,
    );
  });

  it('refuse answers that are not an array or not JSON', () => {
    expect(() => checkAnswers('yes')).toThrow(
      expect.objectContaining({ field: 'answers' }) as never,
    );
    expect(() => checkAnswers([Number.NaN])).toThrow(
      expect.objectContaining({ field: 'answers[0]' }) as never,
    );
  });
});
