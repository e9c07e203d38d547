// Hard faults: tool errors an identical call then recovered from, so the fault is the model's or
// the prompt's, and a control whose service never comes back (the tool's).
import { type Message, toolResultText } from '@mh/core';
import { contains, matches } from '@mh/eval';
import type { ScriptStep } from '@mh/providers';
import {
  agentOf,
  type Fault,
  faultCase,
  flakyLookup,
  QUESTION,
  refundTool,
  totalOf,
} from './kit.js';

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

export const RECOVERED_FAULTS: readonly Fault[] = [
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
