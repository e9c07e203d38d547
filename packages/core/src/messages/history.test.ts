import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CorruptedHistory,
  corruptedHistory,
  nonToolBlocks,
  userTextAndImages,
  validHistory,
} from '../../test/history-arbitraries.js';
import { type ViolationKind, validateHistory } from './history.js';
import {
  type HistoryRepair,
  interruptedResultText,
  type RepairKind,
  repairAfterSettled,
  repairHistory,
  repairPairs,
} from './history-repair.js';
import type { ContentBlock, Message, ToolUseBlock } from './message.js';

const RUNS = { numRuns: 1000 };

function countKind(repairs: readonly HistoryRepair[], kind: RepairKind): number {
  return repairs.filter((repair) => repair.kind === kind).length;
}

function countViolations(history: readonly Message[], ...kinds: ViolationKind[]): number {
  return validateHistory(history).filter((violation) => kinds.includes(violation.kind)).length;
}

function deterministicIds(): () => string {
  let next = 0;
  return () => `inserted_${++next}`;
}

/** The ground truth of a corruption: which calls lost their result, which blocks were added. */
function expectedRepairs(corrupted: CorruptedHistory): {
  missing: Set<string>;
  tagCounts: Map<string, number>;
  insertedMessages: number;
} {
  const tagCounts = new Map<string, number>();
  const calls = new Set<string>();
  const answered = new Set<string>();
  for (const message of corrupted.history) {
    for (const block of message.content) {
      const tag = corrupted.tags.get(block) ?? 'other';
      tagCounts.set(tag, (tagCounts.get(tag) ?? 0) + 1);
      if (tag === 'call' && block.type === 'tool_use') calls.add(block.id);
      if (tag === 'result' && block.type === 'tool_result') answered.add(block.toolUseId);
    }
  }
  const missing = new Set([...calls].filter((id) => !answered.has(id)));
  const nonEmpty = corrupted.history.filter((message) => message.content.length > 0);
  let insertedMessages = 0;
  nonEmpty.forEach((message, index) => {
    const lacksResult = message.content.some(
      (block) =>
        corrupted.tags.get(block) === 'call' && block.type === 'tool_use' && missing.has(block.id),
    );
    if (lacksResult && nonEmpty[index + 1]?.role !== 'user') insertedMessages++;
  });
  return { missing, tagCounts, insertedMessages };
}

describe('repairAfterSettled', () => {
  const useIdsOf = (history: readonly Message[]): Set<string> =>
    new Set(
      history.flatMap((message) =>
        message.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : [])),
      ),
    );

  it('repairs a settled history plus anything as repairPairs repairs the whole, looking only after it', () => {
    fc.assert(
      fc.property(
        corruptedHistory({ structural: true }),
        corruptedHistory({ structural: true }),
        fc.constantFrom('cancelled' as const, 'interrupted' as const),
        (before, after, reason) => {
          const settled = repairHistory(before.history, { newId: deterministicIds() }).history;
          const whole = [...settled, ...after.history];
          const known = useIdsOf(settled);
          const size = known.size;
          const expected = repairPairs(whole, { reason, newId: deterministicIds() });
          const actual = repairAfterSettled(whole, settled.length, known, {
            reason,
            newId: deterministicIds(),
          });
          expect(actual).toEqual(expected);
          expect(known.size).toBe(size);
          for (let index = 0; index < settled.length; index++) {
            expect(actual.history[index]).toBe(settled[index]);
          }
        },
      ),
      RUNS,
    );
  });
});

describe('repairHistory', () => {
  it('leaves no violation in any corrupted history', () => {
    fc.assert(
      fc.property(corruptedHistory({ structural: true }), ({ history }) => {
        expect(validateHistory(repairHistory(history).history)).toEqual([]);
      }),
      RUNS,
    );
  });

  it('keeps the user text and image blocks unchanged and in order', () => {
    fc.assert(
      fc.property(corruptedHistory({ structural: true }), ({ history }) => {
        const repaired = repairHistory(history).history;
        expect(userTextAndImages(repaired)).toEqual(userTextAndImages(history));
      }),
      RUNS,
    );
  });

  it('keeps every block that is not a tool block, with its role, in order', () => {
    fc.assert(
      fc.property(corruptedHistory({ structural: true }), ({ history }) => {
        const repaired = repairHistory(history).history;
        expect(nonToolBlocks(repaired)).toEqual(nonToolBlocks(history));
      }),
      RUNS,
    );
  });

  it('synthesizes one reported isError result for exactly each call missing its result', () => {
    fc.assert(
      fc.property(
        corruptedHistory({ structural: true }),
        fc.constantFrom('cancelled' as const, 'interrupted' as const),
        (corrupted, reason) => {
          const { history, repairs } = repairHistory(corrupted.history, { reason });
          const { missing } = expectedRepairs(corrupted);
          const reported = repairs
            .filter((repair) => repair.kind === 'synthesized-result')
            .map((repair) => repair.toolUseId);
          expect(reported).toHaveLength(missing.size);
          expect(new Set(reported)).toEqual(missing);
          const inputBlocks = new Set<ContentBlock>(corrupted.history.flatMap((m) => m.content));
          const synthesized = history
            .flatMap((message) => message.content)
            .filter((block) => block.type === 'tool_result' && !inputBlocks.has(block));
          expect(synthesized).toHaveLength(missing.size);
          for (const block of synthesized) {
            expect(block).toMatchObject({
              isError: true,
              content: [{ type: 'text', text: interruptedResultText(reason) }],
            });
          }
        },
      ),
      RUNS,
    );
  });

  it('reports every dropped block and every inserted message under its kind', () => {
    fc.assert(
      fc.property(corruptedHistory({ structural: true }), (corrupted) => {
        const { repairs } = repairHistory(corrupted.history);
        const { tagCounts, insertedMessages } = expectedRepairs(corrupted);
        const tagged = (tag: string): number => tagCounts.get(tag) ?? 0;
        expect({
          orphan: countKind(repairs, 'dropped-orphan-result'),
          duplicateResult: countKind(repairs, 'dropped-duplicate-result'),
          duplicateUse: countKind(repairs, 'dropped-duplicate-tool-use'),
          misplaced: countKind(repairs, 'dropped-misplaced-block'),
          empty: countKind(repairs, 'dropped-empty-message'),
          inserted: countKind(repairs, 'inserted-result-message'),
        }).toEqual({
          orphan: tagged('orphan'),
          duplicateResult: tagged('dup-result'),
          duplicateUse: tagged('dup-use'),
          misplaced: tagged('stray-use') + tagged('stray-result'),
          empty: corrupted.emptyMessages,
          inserted: insertedMessages,
        });
      }),
      RUNS,
    );
  });

  it('reports each removed input message and each message it adds', () => {
    fc.assert(
      fc.property(corruptedHistory({ structural: true }), ({ history: input }) => {
        const { history, repairs } = repairHistory(input, { newId: deterministicIds() });
        const inputIds = new Set(input.map((message) => message.id));
        const outputIds = new Set(history.map((message) => message.id));
        const removed = [...inputIds].filter((id) => !outputIds.has(id));
        const added = [...outputIds].filter((id) => !inputIds.has(id));
        const reportedRemoved = repairs
          .filter((repair) => repair.kind === 'dropped-empty-message')
          .map((repair) => repair.messageId);
        const reportedAdded = repairs
          .filter((repair) => repair.kind === 'inserted-result-message')
          .map((repair) => repair.messageId);
        expect(reportedRemoved.sort()).toEqual(removed.sort());
        expect(reportedAdded.sort()).toEqual(added.sort());
      }),
      RUNS,
    );
  });

  it('makes one repair of the matching kind per violation validateHistory reports', () => {
    fc.assert(
      fc.property(corruptedHistory({ structural: false }), ({ history }) => {
        const { repairs } = repairHistory(history);
        expect({
          synthesized: countKind(repairs, 'synthesized-result'),
          orphan: countKind(repairs, 'dropped-orphan-result'),
          duplicateResult: countKind(repairs, 'dropped-duplicate-result'),
          duplicateUse: countKind(repairs, 'dropped-duplicate-tool-use'),
          misplaced: countKind(repairs, 'dropped-misplaced-block'),
          empty: countKind(repairs, 'dropped-empty-message'),
        }).toEqual({
          synthesized: countViolations(history, 'missing-result'),
          orphan: countViolations(history, 'orphan-result'),
          duplicateResult: countViolations(history, 'duplicate-result'),
          duplicateUse: countViolations(history, 'duplicate-tool-use'),
          misplaced: countViolations(history, 'misplaced-tool-use', 'misplaced-result'),
          empty: countViolations(history, 'empty-message'),
        });
      }),
      RUNS,
    );
  });

  it('repairs something exactly when validateHistory reports a violation', () => {
    fc.assert(
      fc.property(corruptedHistory({ structural: true }), ({ history }) => {
        const { repairs } = repairHistory(history);
        expect(repairs.length === 0).toBe(validateHistory(history).length === 0);
      }),
      RUNS,
    );
  });

  it('changes nothing and reports nothing when the history is valid', () => {
    fc.assert(
      fc.property(validHistory, (history) => {
        expect(validateHistory(history)).toEqual([]);
        const result = repairHistory(history);
        expect(result.repairs).toEqual([]);
        expect(result.history).toHaveLength(history.length);
        result.history.forEach((message, index) => {
          expect(message).toBe(history[index]);
        });
      }),
      RUNS,
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(corruptedHistory({ structural: true }), ({ history }) => {
        const once = repairHistory(history).history;
        const twice = repairHistory(once);
        expect(twice.repairs).toEqual([]);
        expect(twice.history).toEqual(once);
      }),
      RUNS,
    );
  });

  it('does not mutate its input', () => {
    fc.assert(
      fc.property(corruptedHistory({ structural: true }), ({ history }) => {
        const before = structuredClone(history);
        repairHistory(history);
        expect(history).toEqual(before);
      }),
      RUNS,
    );
  });

  it('inserts a user message of cancelled results when the history ends after a call', () => {
    const call: ToolUseBlock = { type: 'tool_use', id: 'c1', name: 'read', input: {} };
    const history: Message[] = [
      { id: 'u1', role: 'user', content: [{ type: 'text', text: 'go' }] },
      { id: 'a1', role: 'assistant', content: [call] },
    ];
    const { history: repaired, repairs } = repairHistory(history, {
      reason: 'cancelled',
      newId: () => 'new-1',
    });
    expect(repaired[2]).toEqual({
      id: 'new-1',
      role: 'user',
      content: [
        {
          type: 'tool_result',
          toolUseId: 'c1',
          content: [{ type: 'text', text: interruptedResultText('cancelled') }],
          isError: true,
        },
      ],
    });
    expect(repairs.map((repair) => repair.kind)).toEqual([
      'inserted-result-message',
      'synthesized-result',
    ]);
  });

  it('adds a missing result right after the existing results of the next message', () => {
    const history: Message[] = [
      {
        id: 'a1',
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'c1', name: 'read', input: {} },
          { type: 'tool_use', id: 'c2', name: 'read', input: {} },
        ],
      },
      {
        id: 'u1',
        role: 'user',
        content: [
          { type: 'tool_result', toolUseId: 'c2', content: [], isError: false },
          { type: 'text', text: 'and then?' },
        ],
      },
    ];
    const repaired = repairHistory(history).history[1];
    expect(repaired?.content.map((block) => block.type)).toEqual([
      'tool_result',
      'tool_result',
      'text',
    ]);
    expect(repaired?.content[1]).toMatchObject({ toolUseId: 'c1', isError: true });
  });
});

describe('validateHistory', () => {
  const text = (value: string): ContentBlock => ({ type: 'text', text: value });
  const use = (id: string): ContentBlock => ({ type: 'tool_use', id, name: 'read', input: {} });
  const result = (id: string): ContentBlock => ({
    type: 'tool_result',
    toolUseId: id,
    content: [],
    isError: false,
  });
  const user = (id: string, ...content: ContentBlock[]): Message => ({ id, role: 'user', content });
  const assistant = (id: string, ...content: ContentBlock[]): Message => ({
    id,
    role: 'assistant',
    content,
  });

  it('returns nothing for a valid history', () => {
    const history = [
      user('u1', text('hi')),
      assistant('a1', text('let me look'), use('c1'), use('c2')),
      user('u2', result('c2'), result('c1'), text('also this')),
      assistant('a2', text('done')),
    ];
    expect(validateHistory(history)).toEqual([]);
  });

  it('reports missing-result when a call has no result in the next message', () => {
    const history = [
      user('u1', text('hi')),
      assistant('a1', use('c1'), use('c2')),
      user('u2', result('c1')),
    ];
    expect(validateHistory(history)).toEqual([
      expect.objectContaining({
        kind: 'missing-result',
        messageIndex: 1,
        messageId: 'a1',
        toolUseId: 'c2',
      }),
    ]);
  });

  it('reports missing-result when the history ends after a call', () => {
    const history = [user('u1', text('hi')), assistant('a1', use('c1'))];
    expect(validateHistory(history)).toEqual([
      expect.objectContaining({ kind: 'missing-result', messageId: 'a1', toolUseId: 'c1' }),
    ]);
  });

  it('reports orphan-result when a result answers no call of the previous message', () => {
    const history = [user('u1', text('hi')), assistant('a1', text('ok')), user('u2', result('c9'))];
    expect(validateHistory(history)).toEqual([
      expect.objectContaining({ kind: 'orphan-result', messageIndex: 2, toolUseId: 'c9' }),
    ]);
  });

  it('reports orphan-result when a result sits one message too late', () => {
    const history = [
      assistant('a1', use('c1')),
      user('u1', result('c1')),
      user('u2', result('c1')),
    ];
    expect(validateHistory(history)).toEqual([
      expect.objectContaining({ kind: 'orphan-result', messageId: 'u2', toolUseId: 'c1' }),
    ]);
  });

  it('reports duplicate-result when a call is answered twice', () => {
    const history = [assistant('a1', use('c1')), user('u1', result('c1'), result('c1'))];
    expect(validateHistory(history)).toEqual([
      expect.objectContaining({ kind: 'duplicate-result', messageId: 'u1', toolUseId: 'c1' }),
    ]);
  });

  it('reports duplicate-tool-use when a call id is used twice', () => {
    const history = [
      assistant('a1', use('c1')),
      user('u1', result('c1')),
      assistant('a2', text('again'), use('c1')),
      user('u2', result('c1')),
    ];
    expect(validateHistory(history)).toEqual([
      expect.objectContaining({ kind: 'duplicate-tool-use', messageId: 'a2', toolUseId: 'c1' }),
    ]);
  });

  it('reports misplaced-tool-use when a user message holds a call', () => {
    const history = [user('u1', text('hi'), use('c1'))];
    expect(validateHistory(history)).toEqual([
      expect.objectContaining({ kind: 'misplaced-tool-use', messageId: 'u1', toolUseId: 'c1' }),
    ]);
  });

  it('reports only misplaced-tool-use when a call in a user message reuses a later id', () => {
    const history = [
      user('u1', text('hi'), use('c1')),
      assistant('a1', use('c1')),
      user('u2', result('c1')),
    ];
    expect(validateHistory(history).map((violation) => violation.kind)).toEqual([
      'misplaced-tool-use',
    ]);
  });

  it('reports misplaced-result when an assistant message holds a result', () => {
    const history = [user('u1', text('hi')), assistant('a1', text('ok'), result('c1'))];
    expect(validateHistory(history)).toEqual([
      expect.objectContaining({ kind: 'misplaced-result', messageId: 'a1', toolUseId: 'c1' }),
    ]);
  });

  it('reports empty-message when a message has no content', () => {
    const history = [user('u1', text('hi')), assistant('a1')];
    expect(validateHistory(history)).toEqual([
      expect.objectContaining({ kind: 'empty-message', messageIndex: 1, messageId: 'a1' }),
    ]);
  });
});

describe('which blocks each role may hold', () => {
  const text = (value: string): ContentBlock => ({ type: 'text', text: value });
  const thinking: ContentBlock = { type: 'thinking', thinking: 'hmm', signature: 'sig' };
  const image: ContentBlock = { type: 'image', mediaType: 'image/png', data: 'iVBORw0' };
  const provider: ContentBlock = { type: 'provider', provider: 'anthropic', data: { type: 'x' } };
  const user = (id: string, ...content: ContentBlock[]): Message => ({ id, role: 'user', content });
  const assistant = (id: string, ...content: ContentBlock[]): Message => ({
    id,
    role: 'assistant',
    content,
  });

  it('reports a thinking block in a user message as misplaced-block', () => {
    expect(validateHistory([user('u1', text('hi'), thinking)])).toEqual([
      expect.objectContaining({ kind: 'misplaced-block', messageIndex: 0, messageId: 'u1' }),
    ]);
  });

  it('reports an image in an assistant message and a provider block in a user message', () => {
    const history = [user('u1', text('hi'), provider), assistant('a1', text('look'), image)];
    expect(
      validateHistory(history).map((violation) => [violation.kind, violation.messageId]),
    ).toEqual([
      ['misplaced-block', 'u1'],
      ['misplaced-block', 'a1'],
    ]);
  });

  it('accepts text, image and tool results from the user; text, thinking, tool calls and provider blocks from the assistant', () => {
    const history = [
      user('u1', text('hi'), image),
      assistant('a1', thinking, text('ok'), provider),
    ];
    expect(validateHistory(history)).toEqual([]);
  });

  it('repairs a misplaced thinking block by dropping it, reported, keeping the user text', () => {
    const { history, repairs } = repairHistory([user('u1', text('hi'), thinking, text('there'))]);
    expect(history).toEqual([user('u1', text('hi'), text('there'))]);
    expect(repairs).toEqual([
      expect.objectContaining({ kind: 'dropped-misplaced-block', messageId: 'u1' }),
    ]);
    expect(repairs[0]?.detail).toMatch(/thinking block .* user message/);
    expect(validateHistory(history)).toEqual([]);
  });

  it('drops a user message that held only a misplaced block, reporting both repairs', () => {
    const { history, repairs } = repairHistory([
      user('u1', text('hi')),
      assistant('a1', text('ok')),
      user('u2', thinking),
    ]);
    expect(history.map((message) => message.id)).toEqual(['u1', 'a1']);
    expect(repairs.map((repair) => repair.kind)).toEqual([
      'dropped-misplaced-block',
      'dropped-empty-message',
    ]);
  });
});
