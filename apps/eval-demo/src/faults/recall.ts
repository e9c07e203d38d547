// A recall session: facts told in early prompts, asked for after filler has forced a compaction
// with a lossy summary. The context faults use it, and so does a model fault confounded by it.
// purpose: their symptoms also fit another layer, as real failures often do.
import {
  type Message,
  type ModelRequest,
  messageText,
  type Summarizer,
  toolResultText,
  unfenceUntrusted,
} from '@mh/core';
import { estimateMessageTokens } from '@mh/core/internal';
import { agentOf, type FaultContext } from './kit.js';

/** Keeps the gist, drops names and details: the compaction fault. */
const lossy: Summarizer = {
  async summarize(request) {
    const input = request.messages.reduce(
      (sum, message) => sum + estimateMessageTokens(message),
      0,
    );
    return {
      text: 'The user asked about an order and we talked about delivery.',
      usage: { inputTokens: input, outputTokens: 12, cacheReadTokens: 0, cacheWriteTokens: 0 },
    };
  },
};

function visible(request: ModelRequest): string {
  return request.messages
    .map((message: Message) =>
      message.content
        .map((block) =>
          block.type === 'tool_result'
            ? unfenceUntrusted(toolResultText(block))
            : block.type === 'text'
              ? block.text
              : '',
        )
        .join(' '),
    )
    .join('\n');
}

const FILLER =
  'Delivery works like this: the parcel is packed, weighed, labelled and handed to the carrier. '.repeat(
    40,
  );

/**
 * A session that looks order A-1 up, chats at length (compaction folds the lookup away), then
 * asks for `pattern`'s match: the model answers it only if it can still see it.
 */
export function recall(context: FaultContext, pattern: RegExp, extra: { wrong?: boolean } = {}) {
  return agentOf(
    context,
    [
      (request) => {
        const prompt = messageText(
          request.messages
            .filter(
              (message) =>
                message.role === 'user' && message.content.some((block) => block.type === 'text'),
            )
            .at(-1) as Message,
        );
        if (prompt.startsWith('Look up')) {
          const looked = request.messages.some((message) =>
            message.content.some((block) => block.type === 'tool_result'),
          );
          return looked
            ? { text: 'Done, I have the order.' }
            : { toolCalls: [{ name: 'lookup', input: { id: 'A-1' } }] };
        }
        if (prompt.startsWith('Tell me')) return { text: FILLER };
        const found = visible(request).match(pattern)?.[0];
        if (extra.wrong) return { text: 'ANSWER: 41' };
        return { text: found ? `ANSWER: ${found}` : 'I do not have that detail any more.' };
      },
    ],
    { compaction: { contextWindow: 2_000, summarizer: lossy } },
  );
}

export const RECALL_PROMPTS = [
  'Look up order A-1.',
  'Tell me how delivery works.',
  'Tell me more about delivery.',
  'Now, about that order: answer my question.',
];
