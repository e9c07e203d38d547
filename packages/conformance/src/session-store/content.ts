import type { CheckpointMeta, Message, ToolResultBlock, ToolUseBlock } from '@mh/core';
import fc from 'fast-check';
import type { StoreModel } from './store-model.js';

/** What a generated turn holds; ids are minted when it runs, so every message is new. */
export interface TurnSpec {
  /** A user prompt, a plain answer, or a tool-using turn (assistant calls and their results). */
  readonly kind: 'prompt' | 'answer' | 'tools';
  /** Text of the message(s): any Unicode, so bytes must survive the store. */
  readonly text: string;
  /** Calls of a tool-using turn. */
  readonly calls: number;
  readonly meta: CheckpointMeta;
}

/** Non-empty text of any graphemes (emoji, combining marks, right-to-left, control characters). */
export const textArb: fc.Arbitrary<string> = fc.string({
  unit: 'grapheme',
  minLength: 1,
  maxLength: 8,
});

const metaArb: fc.Arbitrary<CheckpointMeta> = fc.record(
  {
    model: fc.constantFrom('model-a', 'model-b'),
    costUsd: fc.integer({ min: 0, max: 10_000 }).map((cents) => cents / 100),
    extra: fc.record({
      note: textArb,
      n: fc.integer(),
      nested: fc.array(fc.boolean(), { maxLength: 3 }),
    }),
  },
  { requiredKeys: [] },
);

/** A turn to commit. */
export const turnSpecArb: fc.Arbitrary<TurnSpec> = fc.record({
  kind: fc.constantFrom('prompt', 'answer', 'tools'),
  text: textArb,
  calls: fc.integer({ min: 1, max: 3 }),
  meta: metaArb,
});

/** An assistant message calling `calls` tools, ids fresh from the model. */
export function buildAssistant(model: StoreModel, text: string, calls: number): Message {
  const uses: ToolUseBlock[] = Array.from({ length: calls }, (_, i) => ({
    type: 'tool_use',
    id: model.fresh('call'),
    name: i % 2 === 0 ? 'read' : 'write',
    input: { i, text },
  }));
  return { id: model.fresh('a'), role: 'assistant', content: [{ type: 'text', text }, ...uses] };
}

/** The result of `call`. */
export function resultOf(call: string, text: string, isError: boolean): ToolResultBlock {
  return { type: 'tool_result', toolUseId: call, content: [{ type: 'text', text }], isError };
}

/** The messages of a turn, with fresh ids: valid on top of any valid history. */
export function buildTurn(
  model: StoreModel,
  spec: TurnSpec,
): { readonly messages: Message[]; readonly meta: CheckpointMeta } {
  if (spec.kind === 'prompt') {
    const prompt: Message = {
      id: model.fresh('u'),
      role: 'user',
      content: [{ type: 'text', text: spec.text }],
    };
    return { messages: [prompt], meta: spec.meta };
  }
  if (spec.kind === 'answer') {
    const answer: Message = {
      id: model.fresh('a'),
      role: 'assistant',
      content: [{ type: 'text', text: spec.text }],
    };
    return { messages: [answer], meta: spec.meta };
  }
  const assistant = buildAssistant(model, spec.text, spec.calls);
  const results = assistant.content.flatMap((block) =>
    block.type === 'tool_use'
      ? [resultOf(block.id, `${spec.text} done`, block.name === 'write')]
      : [],
  );
  const user: Message = { id: model.fresh('r'), role: 'user', content: results };
  return { messages: [assistant, user], meta: spec.meta };
}
