// Hard faults: a compaction happened, but what the answer needs was kept (a faithful summary) or
// looked up again, so the fault is the model's or the prompt's, not the context's.
import { type Message, messageText, type Summarizer, toolResultText } from '@mh/core';
import { estimateMessageTokens } from '@mh/core/internal';
import { matches } from '@mh/eval';
import { agentOf, type Fault, type FaultContext, faultCase, lookupCall, totalOf } from './kit.js';

/** Summarises by keeping every tool result verbatim: nothing the check needs is lost. */
const faithful: Summarizer = {
  async summarize(request) {
    const input = request.messages.reduce(
      (sum, message) => sum + estimateMessageTokens(message),
      0,
    );
    const results = request.messages.flatMap((message) =>
      message.content.flatMap((block) =>
        block.type === 'tool_result' ? [toolResultText(block)] : [],
      ),
    );
    return {
      text: `The user asked about an order. Tool results so far: ${results.join(' | ')}`,
      usage: { inputTokens: input, outputTokens: 40, cacheReadTokens: 0, cacheWriteTokens: 0 },
    };
  },
};

/** Keeps the gist, drops names and details. */
const lossy: Summarizer = {
  async summarize() {
    return {
      text: 'The user asked about an order and we talked about delivery.',
      usage: { inputTokens: 500, outputTokens: 12, cacheReadTokens: 0, cacheWriteTokens: 0 },
    };
  },
};

const FILLER =
  'Delivery works like this: the parcel is packed, weighed, labelled and handed to the carrier. '.repeat(
    40,
  );

const PROMPTS = [
  'Look up order A-1.',
  'Tell me how delivery works.',
  'Tell me more about delivery.',
  'Now, about that order: what is its total?',
];

/** Everything the model sees in a request, as text (tool results unfenced). */
function visible(messages: readonly Message[]): string {
  return messages
    .map((message) =>
      message.content
        .map((block) =>
          block.type === 'tool_result'
            ? toolResultText(block)
            : block.type === 'text'
              ? block.text
              : '',
        )
        .join(' '),
    )
    .join('\n');
}

/**
 * A session that looks A-1 up, chats until compaction folds the lookup away, then answers the
 * last prompt with `say(what it sees)`; with `lookAgain` it first looks A-1 up again.
 */
function compacting(
  context: FaultContext,
  summarizer: Summarizer,
  say: (seen: string) => string,
  lookAgain = false,
) {
  return agentOf(
    context,
    [
      (request) => {
        const prompts = request.messages.filter(
          (message) =>
            message.role === 'user' && message.content.some((block) => block.type === 'text'),
        );
        const prompt = messageText(prompts.at(-1) as Message);
        const answered = request.messages.at(-1)?.content.some((b) => b.type === 'tool_result');
        if (prompt.startsWith('Look up')) return answered ? { text: 'Done.' } : lookupCall('A-1');
        if (prompt.startsWith('Tell me')) return { text: FILLER };
        if (lookAgain && !answered) return lookupCall('A-1');
        return { text: say(visible(request.messages)) };
      },
    ],
    { compaction: { contextWindow: 2_000, summarizer } },
  );
}

export const COMPACTED_FAULTS: readonly Fault[] = [
  {
    label: 'model',
    evalCase: faultCase('model-wrong-with-facts-in-summary', PROMPTS),
    agent: (context) => compacting(context, faithful, () => 'ANSWER: $14.50'),
  },
  {
    label: 'model',
    evalCase: faultCase('model-wrong-after-fresh-lookup', PROMPTS),
    agent: (context) => compacting(context, lossy, () => 'ANSWER: 2 items', true),
  },
  {
    label: 'prompt',
    evalCase: faultCase(
      'prompt-format-with-facts-in-summary',
      PROMPTS,
      matches(/^ANSWER: \$41\.50$/m, { tags: ['format'], facts: ['$41.50'] }),
    ),
    agent: (context) => compacting(context, faithful, (seen) => `The total is ${totalOf(seen)}.`),
  },
  {
    label: 'prompt',
    evalCase: faultCase(
      'prompt-format-after-compaction',
      PROMPTS,
      matches(/^ANSWER: \$41\.50$/m, { tags: ['format'] }),
    ),
    agent: (context) => compacting(context, faithful, () => 'Total: $41.50'),
  },
];
