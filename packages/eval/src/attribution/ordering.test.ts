import { describe, expect, it } from 'vitest';
import {
  ANSWER,
  compacted,
  failing,
  folded,
  graded,
  lookup,
  run,
} from '../../test/attribution-corpus/kit.js';
import { runFixture, type Turn } from '../../test/session-fixture.js';
import { contains, matches } from '../checks/text.js';
import { attribute, matchingRules } from './attribute.js';

/** A `lookup` that throws `message` on its first `failures` calls, then works. */
function flaky(failures: number, message = 'HTTP 503 from the order service') {
  let calls = 0;
  return {
    run: (input: Record<string, unknown>) => {
      calls++;
      if (calls <= failures) throw new Error(message);
      return `order ${String(input.id)}: total $41`;
    },
  };
}

const lookupCall = (id: number): Turn => ({ calls: [{ name: 'lookup', input: { id } }] });
const format = matches(/^ANSWER: \d+$/m, { tags: ['format'] });

describe('attribute, a tool error an identical call recovered from', () => {
  it('is not the cause of a wrong answer, and the evidence says it failed, then succeeded', async () => {
    const input = await graded(
      await run([lookupCall(7), lookupCall(7), { text: 'ANSWER: 40' }], { lookup: flaky(1) }),
      ANSWER,
    );
    const verdict = attribute(input);
    expect(verdict).toMatchObject({ layer: 'model', rule: 'model/wrong-answer' });
    expect(verdict.evidence.map((item) => item.excerpt)).toContainEqual(
      'lookup failed once (HTTP 503 from the order service), then succeeded',
    );
    expect(matchingRules(input)).toEqual([]);
  });

  it('is not the cause of a badly formatted answer', async () => {
    const input = await graded(
      await run([lookupCall(7), lookupCall(7), lookupCall(7), { text: 'The answer is 42.' }], {
        lookup: flaky(2),
      }),
      format,
    );
    const verdict = attribute(input);
    expect(verdict).toMatchObject({ layer: 'prompt', rule: 'prompt/format' });
    expect(verdict.evidence.map((item) => item.excerpt)).toContainEqual(
      expect.stringMatching(/^lookup failed 2 times \(.*\), then succeeded$/),
    );
  });

  it('is the cause when every retry failed too', async () => {
    const input = await graded(
      await run([lookupCall(7), lookupCall(7), { text: 'The lookup keeps failing.' }], {
        lookup: failing('HTTP 503 from the order service'),
      }),
      ANSWER,
    );
    expect(attribute(input)).toMatchObject({ layer: 'tool', rule: 'tool/runtime-error' });
  });

  it('is the cause when only a call with other arguments succeeded', async () => {
    let calls = 0;
    const picky = {
      run: (input: Record<string, unknown>) => {
        calls++;
        if (calls === 1) throw new Error('index out of range');
        return `order ${String(input.id)}: total $41`;
      },
    };
    const input = await graded(
      await run([lookupCall(7), lookupCall(8), { text: 'ANSWER: 40' }], { lookup: picky }),
      ANSWER,
    );
    expect(attribute(input).layer).toBe('tool');
  });

  it('leaves a guard that stopped a model making progress to the harness', async () => {
    const input = await graded(
      await runFixture({
        turns: [lookupCall(1), lookupCall(1), lookupCall(2), lookupCall(3), lookupCall(4)],
        tools: { lookup: flaky(1) },
        limits: { maxTurns: 4 },
      }),
      ANSWER,
    );
    expect(attribute(input)).toMatchObject({ layer: 'harness', rule: 'harness/guard' });
  });
});

describe('attribute, a model that repeats a successful call until a limit stops it', () => {
  it('blames the model loop, not the max-turns guard', async () => {
    const input = await graded(
      await runFixture({
        turns: [lookupCall(9)],
        tools: { lookup },
        repeatLast: true,
        limits: { maxTurns: 4 },
      }),
      ANSWER,
    );
    const verdict = attribute(input);
    expect(verdict).toMatchObject({ layer: 'model', rule: 'model/repeated-call' });
    expect(verdict.confidence).toBe('high');
    expect(verdict.summary).toContain('max-turns');
    expect(matchingRules(input)).toEqual(['model/repeated-call']);
  });

  it('blames the loop when two successful calls alternate', async () => {
    const input = await graded(
      await runFixture({
        turns: [lookupCall(1), lookupCall(2), lookupCall(1), lookupCall(2), lookupCall(1)],
        tools: { lookup },
        limits: { maxTurns: 5 },
      }),
      ANSWER,
    );
    expect(attribute(input).layer).toBe('model');
  });

  it('leaves a tight limit on distinct calls, one of them repeated, to the harness', async () => {
    const input = await graded(
      await runFixture({
        turns: [lookupCall(1), lookupCall(2), lookupCall(3), lookupCall(1), lookupCall(4)],
        tools: { lookup },
        limits: { maxTurns: 4 },
      }),
      ANSWER,
    );
    expect(attribute(input)).toMatchObject({ layer: 'harness', rule: 'harness/guard' });
  });
});

describe('attribute, a compaction that kept every fact the check declares', () => {
  /** A session that read the fact (`$41`) and still holds it, compacted all the same. */
  async function keptFact(answer: string) {
    const session = await run([lookupCall(41), { text: answer }], { lookup });
    return compacted(session, [folded('msg_chat', 'small talk about the weather')]);
  }

  it('is not the cause of a wrong answer', async () => {
    const input = await graded(await keptFact('ANSWER: 40'), contains('$41'));
    expect(attribute(input)).toMatchObject({ layer: 'model', rule: 'model/wrong-answer' });
    expect(matchingRules(input)).toEqual([]);
  });

  it('is not the cause of a badly formatted answer that holds every fact', async () => {
    const check = matches(/^ANSWER: \$\d+$/m, { tags: ['format'], facts: ['$41'] });
    const input = await graded(await keptFact('The total is $41.'), check);
    expect(attribute(input)).toMatchObject({ layer: 'prompt', rule: 'prompt/format' });
  });

  it('is not the cause of a format failure of a check that declares no facts', async () => {
    const input = await graded(await keptFact('The total is 41.'), format);
    expect(attribute(input)).toMatchObject({ layer: 'prompt', rule: 'prompt/format' });
  });

  it('stays the low-confidence cause when a declared fact is gone from the final context', async () => {
    const session = await run([{ text: 'ANSWER: 40' }]);
    const input = await graded(
      compacted(session, [folded('msg_chat', 'small talk about the weather')]),
      ANSWER,
    );
    expect(attribute(input)).toMatchObject({ rule: 'context/compaction', confidence: 'low' });
  });
});
