// Hard faults: symptoms of one layer next to the fault of another, as real runs show them. A tool
// error that an identical call then recovered from, a model that repeats a successful call until
// a limit stops it, a compaction that kept every fact the check needs. Each has a control whose
// symptom is the real cause (the tool keeps failing, the limit stops a model making progress).
import { type Message, messageText, type Summarizer, toolResultText } from '@mh/core';
import { estimateMessageTokens } from '@mh/core/internal';
import { contains, matches } from '@mh/eval';
import type { ScriptStep } from '@mh/providers';
import {
  agentOf,
  type Fault,
  type FaultContext,
  faultCase,
  flakyLookup,
  refundTool,
} from './fault-kit.js';

const QUESTION = 'What is the total of order A-1?';

/** The text of the last tool result in a request ('' when there is none). */
function lastResult(messages: readonly Message[]): string {
  const block = messages.at(-1)?.content.find((item) => item.type === 'tool_result');
  return block?.type === 'tool_result' ? toolResultText(block) : '';
}

/** Calls `lookup` for A-1 `tries` times (the same call each time), then says `say(result)`. */
function retryThenAnswer(tries: number, say: (result: string) => string): ScriptStep[] {
  return [
    ...Array.from({ length: tries }, () => ({
      toolCalls: [{ name: 'lookup', input: { id: 'A-1' } }],
    })),
    (request) => ({ text: say(lastResult(request.messages)) }),
  ];
}

/** A session with `lookup` failing `failures` times, retried identically `tries` times. */
function recovering(
  name: string,
  label: Fault['label'],
  options: { failures: number; tries: number; message?: string; format?: boolean },
  say: (result: string) => string,
): Fault {
  return {
    label,
    evalCase: faultCase(
      name,
      QUESTION,
      options.format ? matches(/^ANSWER: \$41\.50$/m, { tags: ['format'] }) : contains('$41.50'),
    ),
    agent: (context) =>
      agentOf(context, retryThenAnswer(options.tries, say), {
        tools: [flakyLookup(options.failures, options.message), refundTool],
      }),
  };
}

const totalOf = (result: string): string => result.match(/\$[\d.]+/)?.[0] ?? '?';

const RECOVERED: Fault[] = [
  recovering(
    'model-wrong-after-recovered-error',
    'model',
    { failures: 1, tries: 2, message: 'HTTP 503 from the order service' },
    () => 'ANSWER: $14.50',
  ),
  recovering(
    'model-wrong-after-recovered-timeout',
    'model',
    { failures: 1, tries: 2 },
    () => 'ANSWER: 2 items',
  ),
  recovering(
    'prompt-format-after-recovered-error',
    'prompt',
    { failures: 1, tries: 2, message: 'ECONNRESET talking to orders-db', format: true },
    (result) => `The total is ${totalOf(result)}.`,
  ),
  recovering(
    'prompt-format-after-two-recovered-errors',
    'prompt',
    { failures: 2, tries: 3, message: 'HTTP 502 Bad Gateway', format: true },
    (result) => `Total: ${totalOf(result)}`,
  ),
  // Control: the same retries, but the service never comes back. The tool is the cause.
  recovering(
    'tool-fails-on-every-retry',
    'tool',
    { failures: 5, tries: 2, message: 'HTTP 503 from the order service' },
    () => 'The order service keeps failing; I cannot tell the total.',
  ),
];

const lookupCall = (id: string) => ({ toolCalls: [{ name: 'lookup', input: { id } }] });
const calculatorCall = (expression: string) => ({
  toolCalls: [{ name: 'calculator', input: { expression } }],
});

const LOOPS: Fault[] = [
  {
    label: 'model',
    evalCase: faultCase('model-loops-until-max-turns', QUESTION),
    agent: (context) => agentOf(context, [lookupCall('A-1')], { limits: { maxTurns: 4 } }),
  },
  {
    label: 'model',
    evalCase: faultCase('model-alternates-until-max-turns', QUESTION),
    // Two successful calls, again and again: the repeat guard (same call twice in a row) misses it.
    agent: (context) => alternating(context),
  },
  {
    label: 'model',
    evalCase: faultCase('model-loops-after-one-step', QUESTION),
    agent: (context) =>
      agentOf(context, [lookupCall('A-2'), lookupCall('A-1')], { limits: { maxTurns: 5 } }),
  },
  // Control: every call moves the task on (one re-check among them); the limit is too tight.
  {
    label: 'harness',
    evalCase: faultCase('harness-max-turns-progressing', QUESTION),
    agent: (context) =>
      agentOf(
        context,
        [
          lookupCall('A-1'),
          calculatorCall('41.50 * 2'),
          lookupCall('A-2'),
          calculatorCall('9.99 * 2'),
          lookupCall('A-1'),
          calculatorCall('83 + 19.98'),
          { text: 'ANSWER: $41.50' },
        ],
        { limits: { maxTurns: 5 } },
      ),
  },
];

/** A model that alternates two successful calls forever. */
function alternating(context: FaultContext) {
  let turn = 0;
  return agentOf(
    context,
    [() => (turn++ % 2 === 0 ? lookupCall('A-1') : calculatorCall('41.50 * 1'))],
    { limits: { maxTurns: 6 } },
  );
}

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

const COMPACTED: Fault[] = [
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

/** The hard faults. */
export const HARD_FAULTS: readonly Fault[] = [...RECOVERED, ...LOOPS, ...COMPACTED];
