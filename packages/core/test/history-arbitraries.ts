import fc from 'fast-check';
import type {
  ContentBlock,
  ImageBlock,
  Message,
  Role,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
} from '../src/messages/message.js';

/**
 * What a block is, as the generator knows it: a genuine call or result of the valid conversation,
 * a block a corruption added, or anything else (text, images, thinking).
 */
export type BlockTag =
  | 'call'
  | 'result'
  | 'orphan'
  | 'dup-result'
  | 'stray-use'
  | 'stray-result'
  | 'dup-use'
  | 'other';

/** A corrupted history plus the ground truth of what was done to it. */
export interface CorruptedHistory {
  /** The history to repair. */
  readonly history: Message[];
  /** The tag of every block in `history`, by identity. */
  readonly tags: ReadonlyMap<ContentBlock, BlockTag>;
  /** Empty messages inserted. */
  readonly emptyMessages: number;
}

interface Draft {
  id: string;
  role: Role;
  content: ContentBlock[];
}

const userBlock: fc.Arbitrary<TextBlock | ImageBlock> = fc.oneof(
  fc.string({ maxLength: 6 }).map((text): TextBlock => ({ type: 'text', text })),
  fc
    .constantFrom('iVBORw0', 'R0lGOD')
    .map((data): ImageBlock => ({ type: 'image', mediaType: 'image/png', data })),
);

const toolStep = fc.record({
  text: fc.option(fc.string({ maxLength: 6 }), { nil: undefined }),
  thinking: fc.boolean(),
  calls: fc.integer({ min: 1, max: 4 }),
  resultOrder: fc.array(fc.nat(), { minLength: 4, maxLength: 4 }),
  extraUser: fc.array(fc.tuple(userBlock, fc.nat()), { maxLength: 2 }),
});

const exchange = fc.record({
  prompt: fc.array(userBlock, { minLength: 1, maxLength: 2 }),
  steps: fc.array(toolStep, { maxLength: 3 }),
  final: fc.option(fc.string({ maxLength: 6 }), { nil: undefined }),
});

type Exchange = typeof exchange extends fc.Arbitrary<infer T> ? T : never;

function build(exchanges: readonly Exchange[]): Message[] {
  let messageNumber = 0;
  let callNumber = 0;
  const messages: Message[] = [];
  const push = (role: Role, content: ContentBlock[]): void => {
    messages.push({ id: `m${++messageNumber}`, role, content });
  };
  for (const turn of exchanges) {
    push('user', [...turn.prompt]);
    for (const step of turn.steps) {
      const assistant: ContentBlock[] = [];
      if (step.thinking) assistant.push({ type: 'thinking', thinking: 'hmm', signature: 'sig' });
      if (step.text !== undefined) assistant.push({ type: 'text', text: step.text });
      const calls: ToolUseBlock[] = [];
      for (let index = 0; index < step.calls; index++) {
        const id = `call_${++callNumber}`;
        calls.push({ type: 'tool_use', id, name: 'tool', input: { n: callNumber } });
      }
      push('assistant', [...assistant, ...calls]);
      // Results in any order, with user blocks mixed in anywhere.
      const order = calls
        .map((call, index) => ({ call, key: step.resultOrder[index] ?? 0 }))
        .sort((a, b) => a.key - b.key);
      const user: ContentBlock[] = order.map(
        ({ call }): ToolResultBlock => ({
          type: 'tool_result',
          toolUseId: call.id,
          content: [{ type: 'text', text: `result of ${call.id}` }],
          isError: false,
        }),
      );
      for (const [block, position] of step.extraUser) {
        user.splice(position % (user.length + 1), 0, block);
      }
      push('user', user);
    }
    if (turn.final !== undefined) push('assistant', [{ type: 'text', text: turn.final }]);
  }
  return messages;
}

/** Valid conversations: prompts, assistant turns with parallel tool calls, their results. */
export const validHistory: fc.Arbitrary<Message[]> = fc
  .array(exchange, { maxLength: 5 })
  .map(build);

const plan = (structural: boolean) =>
  fc.record({
    cut: fc.option(fc.record({ at: fc.nat(), partial: fc.option(fc.nat(), { nil: undefined }) }), {
      nil: undefined,
    }),
    drops: fc.array(fc.nat(), { maxLength: 3 }),
    moves: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat()), { maxLength: 2 }),
    duplicates: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 2 }),
    orphans: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.option(fc.nat(), { nil: undefined })), {
      maxLength: 2,
    }),
    strayUses: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.option(fc.nat(), { nil: undefined })), {
      maxLength: 2,
    }),
    strayResults: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.boolean()), { maxLength: 2 }),
    dupUses: structural
      ? fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat()), { maxLength: 2 })
      : fc.constant([]),
    empties: structural
      ? fc.array(fc.tuple(fc.nat(), fc.constantFrom<Role>('user', 'assistant')), { maxLength: 2 })
      : fc.constant([]),
  });

type Plan = ReturnType<typeof plan> extends fc.Arbitrary<infer T> ? T : never;

function pick<T>(items: readonly T[], choice: number): T | undefined {
  return items.length === 0 ? undefined : items[choice % items.length];
}

function corrupt(valid: readonly Message[], steps: Plan): CorruptedHistory {
  const tags = new Map<ContentBlock, BlockTag>();
  for (const message of valid) {
    for (const block of message.content) {
      const tag =
        block.type === 'tool_use' ? 'call' : block.type === 'tool_result' ? 'result' : 'other';
      tags.set(block, tag);
    }
  }
  let drafts: Draft[] = valid.map((message) => ({ ...message, content: [...message.content] }));
  let fresh = 0;

  // A cancel point: the history ends anywhere, possibly inside a message.
  if (steps.cut !== undefined) {
    const at = steps.cut.at % (drafts.length + 1);
    const cutInside = drafts[at];
    drafts = drafts.slice(0, at);
    if (steps.cut.partial !== undefined && cutInside && cutInside.content.length > 1) {
      const keep = 1 + (steps.cut.partial % (cutInside.content.length - 1));
      drafts.push({ ...cutInside, content: cutInside.content.slice(0, keep) });
    }
  }
  const blocksTagged = (tag: BlockTag): { draft: Draft; block: ContentBlock }[] =>
    drafts.flatMap((draft) =>
      draft.content.filter((block) => tags.get(block) === tag).map((block) => ({ draft, block })),
    );
  const remove = (draft: Draft, block: ContentBlock): void => {
    draft.content.splice(draft.content.indexOf(block), 1);
    if (draft.content.length === 0) drafts = drafts.filter((other) => other !== draft);
  };
  const insert = (draft: Draft, block: ContentBlock, position: number, tag: BlockTag): void => {
    draft.content.splice(position % (draft.content.length + 1), 0, block);
    tags.set(block, tag);
  };
  const ofRole = (role: Role): Draft[] => drafts.filter((draft) => draft.role === role);
  const callIds = (): string[] =>
    blocksTagged('call').map(({ block }) => (block as ToolUseBlock).id);

  // Results lost (a crash between two parallel results).
  for (const choice of steps.drops) {
    const target = pick(blocksTagged('result'), choice);
    if (target) remove(target.draft, target.block);
  }
  // Results that ended up in the wrong user message. A move never empties its source message:
  // removing it would make the destination the answer of the source's assistant message.
  for (const [choice, destination, position] of steps.moves) {
    const movable = blocksTagged('result').filter(({ draft }) => draft.content.length > 1);
    const target = pick(movable, choice);
    if (!target) continue;
    const into = pick(
      ofRole('user').filter((draft) => draft !== target.draft),
      destination,
    );
    if (!into) continue;
    remove(target.draft, target.block);
    insert(into, { ...(target.block as ToolResultBlock) }, position, 'orphan');
  }
  // A result delivered twice.
  for (const [choice, position] of steps.duplicates) {
    const target = pick(blocksTagged('result'), choice);
    if (target)
      insert(target.draft, { ...(target.block as ToolResultBlock) }, position, 'dup-result');
  }
  // Results for calls that do not exist or belong to another turn.
  for (const [destination, position, idChoice] of steps.orphans) {
    const into = pick(ofRole('user'), destination);
    if (!into) continue;
    const previous = drafts[drafts.indexOf(into) - 1];
    const own = new Set(
      previous?.role === 'assistant'
        ? previous.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []))
        : [],
    );
    const candidates = callIds().filter((id) => !own.has(id));
    const id = idChoice === undefined ? undefined : pick(candidates, idChoice);
    insert(
      into,
      {
        type: 'tool_result',
        toolUseId: id ?? `ghost_${++fresh}`,
        content: [{ type: 'text', text: 'orphan' }],
        isError: false,
      },
      position,
      'orphan',
    );
  }
  // Tool calls in user messages, with a new id or an id of a real call.
  for (const [destination, position, idChoice] of steps.strayUses) {
    const into = pick(ofRole('user'), destination);
    if (!into) continue;
    const id = idChoice === undefined ? undefined : pick(callIds(), idChoice);
    insert(
      into,
      { type: 'tool_use', id: id ?? `stray_${++fresh}`, name: 'stray', input: {} },
      position,
      'stray-use',
    );
  }
  // Tool results in assistant messages, for the message's own call or for nothing.
  for (const [destination, position, ownCall] of steps.strayResults) {
    const into = pick(ofRole('assistant'), destination);
    if (!into) continue;
    const own = into.content.find((block) => block.type === 'tool_use');
    const id = ownCall && own?.type === 'tool_use' ? own.id : `ghost_${++fresh}`;
    insert(
      into,
      {
        type: 'tool_result',
        toolUseId: id,
        content: [{ type: 'text', text: 'x' }],
        isError: false,
      },
      position,
      'stray-result',
    );
  }
  // A call id used a second time, in the same assistant message or a later one.
  for (const [destination, choice, position] of steps.dupUses) {
    const into = pick(ofRole('assistant'), destination);
    if (!into) continue;
    const upTo = drafts.indexOf(into);
    const earlier = drafts
      .slice(0, upTo + 1)
      .flatMap((draft) =>
        draft.content.filter((block) => tags.get(block) === 'call'),
      ) as ToolUseBlock[];
    const original = pick(earlier, choice);
    if (!original) continue;
    const copy: ToolUseBlock = { ...original, input: { copy: true } };
    const at = into.content.indexOf(original);
    if (at === -1) insert(into, copy, position, 'dup-use');
    else {
      const after = at + 1 + (position % (into.content.length - at));
      into.content.splice(after, 0, copy);
      tags.set(copy, 'dup-use');
    }
  }
  // Empty messages anywhere.
  for (const [position, role] of steps.empties) {
    drafts.splice(position % (drafts.length + 1), 0, {
      id: `empty_${++fresh}`,
      role,
      content: [],
    });
  }
  return { history: drafts, tags, emptyMessages: steps.empties.length };
}

/**
 * Corrupted histories: a valid conversation cut at a random cancel point, with results dropped or
 * moved, orphan and duplicate results, and misplaced tool blocks. With `structural`, also
 * duplicate call ids and empty messages, which change which messages are adjacent.
 */
export function corruptedHistory(options: { structural: boolean }): fc.Arbitrary<CorruptedHistory> {
  return fc
    .tuple(validHistory, plan(options.structural))
    .map(([valid, steps]) => corrupt(valid, steps));
}

/** The text and image blocks of user messages, in order. */
export function userTextAndImages(history: readonly Message[]): ContentBlock[] {
  return history
    .filter((message) => message.role === 'user')
    .flatMap((message) =>
      message.content.filter((block) => block.type === 'text' || block.type === 'image'),
    );
}

/** Every block that is not a tool call or result, with its role, in order. */
export function nonToolBlocks(history: readonly Message[]): [Role, ContentBlock][] {
  return history.flatMap((message) =>
    message.content
      .filter((block) => block.type !== 'tool_use' && block.type !== 'tool_result')
      .map((block): [Role, ContentBlock] => [message.role, block]),
  );
}
