// Injected faults of the context, tool, prompt and model layers, ten each. A few are confounded on
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
import { allOf, check, contains, matches, toolCalled } from '@mh/eval';
import { calculatorTool } from '@mh/tools';
import {
  agentOf,
  brokenTool,
  type Fault,
  type FaultContext,
  faultCase,
  lookupThenAnswer,
  lookupTool,
  slowTool,
} from './fault-kit.js';

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
function recall(context: FaultContext, pattern: RegExp, extra: { wrong?: boolean } = {}) {
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

const RECALL_PROMPTS = [
  'Look up order A-1.',
  'Tell me how delivery works.',
  'Tell me more about delivery.',
  'Now, about that order: answer my question.',
];

const CONTEXT: Fault[] = [
  ...[
    ['name', /Dana Reyes/, 'Dana Reyes'],
    ['ribbon', /blue ribbon/, 'blue ribbon'],
    ['total', /\$41\.50/, '$41.50'],
    ['items', /2 items/, '2 items'],
    ['customer-first', /Dana/, 'Dana'],
    ['wrap', /gift wrap: blue/, 'gift wrap: blue'],
  ].map(
    ([name, pattern, fact]): Fault => ({
      label: 'context',
      evalCase: faultCase(`context-lost-${name}`, RECALL_PROMPTS, contains(fact as string)),
      agent: (context) => recall(context, pattern as RegExp),
    }),
  ),
  // The check declares no facts: attribution can only see that a compaction happened.
  ...['name', 'ribbon', 'surname', 'gift'].map(
    (name): Fault => ({
      label: 'context',
      evalCase: faultCase(
        `context-undeclared-${name}`,
        RECALL_PROMPTS,
        check(`recalls the ${name}`, ({ text }) => /Dana|Reyes|ribbon/.test(text)),
      ),
      agent: (context) => recall(context, /Dana Reyes|blue ribbon/),
    }),
  ),
];

const TOOL: Fault[] = [
  ...[
    'inventory service returned HTTP 500',
    'ECONNREFUSED 10.0.0.7:5432',
    'permission denied reading /var/db/orders',
  ].map(
    (message, index): Fault => ({
      label: 'tool',
      evalCase: faultCase(`tool-throws-${index}`, 'What is the total of order A-1?'),
      agent: (context) =>
        agentOf(
          context,
          [
            { toolCalls: [{ name: 'inventory', input: { q: 'A-1' } }] },
            { text: 'The inventory service failed.' },
          ],
          {
            tools: [brokenTool('inventory', message), lookupTool],
          },
        ),
    }),
  ),
  ...['search', 'catalog'].map(
    (name): Fault => ({
      label: 'tool',
      evalCase: faultCase(`tool-timeout-${name}`, 'What is the total of order A-1?'),
      agent: (context) =>
        agentOf(
          context,
          [{ toolCalls: [{ name, input: { q: 'A-1' } }] }, { text: `The ${name} timed out.` }],
          { tools: [slowTool(name), lookupTool] },
        ),
    }),
  ),
  ...[{ id: 1 }, {}, { id: ['A-1'] }].map(
    (input, index): Fault => ({
      label: 'tool',
      evalCase: faultCase(`tool-invalid-args-${index}`, 'What is the total of order A-1?'),
      agent: (context) =>
        agentOf(context, [
          { toolCalls: [{ name: 'lookup', input }] },
          { text: 'The lookup rejected my request.' },
        ]),
    }),
  ),
  ...[3, 4].map(
    (turns): Fault => ({
      label: 'tool',
      evalCase: faultCase(`tool-guard-while-failing-${turns}`, 'What is the total of order A-1?'),
      agent: (context) =>
        agentOf(
          context,
          Array.from({ length: turns + 1 }, (_, n) => ({
            toolCalls: [{ name: 'inventory', input: { q: `A-1 try ${n}` } }],
          })),
          {
            tools: [brokenTool('inventory', 'database is locked')],
            limits: { maxTurns: turns },
          },
        ),
    }),
  ),
];

const answerLine = matches(/^ANSWER: \$41\.50$/m, { tags: ['format'] });

const PROMPT: Fault[] = [
  ...[
    'The total is $41.50.',
    '$41.50',
    'Answer: $41.50',
    '**ANSWER:** $41.50',
    'ANSWER - $41.50',
  ].map(
    (text, index): Fault => ({
      label: 'prompt',
      evalCase: faultCase(`prompt-format-${index}`, 'What is the total of order A-1?', answerLine),
      agent: (context) =>
        agentOf(
          context,
          lookupThenAnswer(() => text),
        ),
    }),
  ),
  ...[
    'Which order do you mean?',
    'Could you give me the order id?',
    'Do you want the total with tax or without?',
    'Sure — which of your orders?',
    'Is that order A-1 or A-2?',
  ].map(
    (text, index): Fault => ({
      label: 'prompt',
      evalCase: faultCase(`prompt-asked-back-${index}`, 'What is the total of my order?'),
      agent: (context) => agentOf(context, [{ text }]),
    }),
  ),
];

const MODEL_FAULTS: Fault[] = [
  ...['search_orders', 'get_order', 'lookup_order'].map(
    (name): Fault => ({
      label: 'model',
      evalCase: faultCase(`model-unknown-tool-${name}`, 'What is the total of order A-1?'),
      agent: (context) =>
        agentOf(context, [
          { toolCalls: [{ name, input: { id: 'A-1' } }] },
          { text: 'I could not find a tool for that.' },
        ]),
    }),
  ),
  ...[2, 3].map(
    (limit): Fault => ({
      label: 'model',
      evalCase: faultCase(`model-repeats-${limit}`, 'What is the total of order A-1?'),
      agent: (context) =>
        agentOf(context, [{ toolCalls: [{ name: 'lookup', input: { id: 'A-2' } }] }], {
          limits: { maxRepeatedCalls: limit },
        }),
    }),
  ),
  {
    label: 'model',
    evalCase: faultCase('model-wrong-order', 'What is the total of order A-1?'),
    agent: (context) =>
      agentOf(context, [
        { toolCalls: [{ name: 'lookup', input: { id: 'A-2' } }] },
        { text: 'ANSWER: $9.99' },
      ]),
  },
  {
    label: 'model',
    evalCase: faultCase(
      'model-arithmetic',
      'What is 17 * 23?',
      allOf(contains('391'), toolCalled('calculator')),
    ),
    agent: (context) => agentOf(context, [{ text: 'ANSWER: 381' }], { tools: [calculatorTool()] }),
  },
  {
    label: 'model',
    evalCase: faultCase('model-wrong-then-asks', 'What is the total of order A-1?'),
    agent: (context) =>
      agentOf(context, [{ text: 'It is $40.00. Anything else I can help with?' }]),
  },
  {
    label: 'model',
    evalCase: faultCase('model-wrong-after-tool-retry', 'What is the total of order A-1?'),
    agent: (context) =>
      agentOf(context, [
        { toolCalls: [{ name: 'lookup', input: { id: 'A-9' } }] },
        { toolCalls: [{ name: 'lookup', input: { id: 'A-1' } }] },
        { text: 'ANSWER: $14.50' },
      ]),
    confounded: true,
  },
  {
    label: 'model',
    evalCase: faultCase('model-wrong-after-compaction', RECALL_PROMPTS, contains('Dana Reyes')),
    agent: (context) => recall(context, /Dana Reyes/, { wrong: true }),
    confounded: true,
  },
];

/** The context, tool, prompt and model faults. */
export const LATE_FAULTS: readonly Fault[] = [...CONTEXT, ...TOOL, ...PROMPT, ...MODEL_FAULTS];
