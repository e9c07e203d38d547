// Injected faults of the harness layer: replay drift, exceptions, denials, guards, timeouts.
import { join } from 'node:path';
import type { Provider } from '@mh/core';
import { contains, openCassette } from '@mh/eval';
import { scripted } from '@mh/providers';
import { Agent } from '@mh/sdk';
import { agentOf, type Fault, faultCase, lookupThenAnswer, MODEL, PRICING, TOOLS } from './kit.js';

/** A provider whose message-end carries a malformed assistant message. */
const malformed: Provider = {
  name: 'malformed',
  async *stream() {
    yield { type: 'message-start', id: 'm1', model: MODEL };
    yield {
      type: 'message-end',
      stopReason: 'end',
      message: { id: 'm1', role: 'user', content: [{ type: 'text', text: 'hi' }] },
      usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
    };
  },
};

/** Records a run with one system prompt, then replays it in lockdown with another: drift. */
function driftFault(name: string, recordedSystem: string, currentSystem: string): Fault {
  return {
    label: 'harness',
    evalCase: faultCase(`harness-drift-${name}`, 'What is the total of order A-1?'),
    agent: async (context) => {
      const path = join(context.dir, `${name}.cassette.jsonl`);
      const key = { case: name, repeat: 0 };
      const recording = await openCassette(path, { mode: 'record', overwrite: true });
      const recorder = agentOf(context, lookupThenAnswer(), {
        provider: recording.provider(scripted(lookupThenAnswer(), { recordRequests: false }), key),
        system: recordedSystem,
        tracer: undefined,
      });
      await recorder.run('What is the total of order A-1?');
      await recording.close();
      const replay = await openCassette(path, { mode: 'lockdown' });
      return new Agent({
        provider: replay.provider(undefined, key),
        model: MODEL,
        system: currentSystem,
        tools: TOOLS,
        tracer: context.tracer,
        pricing: PRICING,
      });
    },
  };
}

export const HARNESS_FAULTS: readonly Fault[] = [
  {
    label: 'harness',
    evalCase: faultCase('harness-denied-refund', 'Refund order A-1.', contains('refunded')),
    agent: (context) =>
      agentOf(context, [
        { toolCalls: [{ name: 'refund', input: { id: 'A-1' } }] },
        { text: 'I was not allowed to refund it.' },
      ]),
  },
  {
    label: 'harness',
    evalCase: faultCase('harness-denied-approval', 'Refund order A-2.', contains('refunded')),
    agent: (context) =>
      agentOf(
        context,
        [
          { toolCalls: [{ name: 'refund', input: { id: 'A-2' } }] },
          { text: 'The refund needs approval.' },
        ],
        {
          permissions: { approve: () => false },
        },
      ),
  },
  {
    label: 'harness',
    evalCase: faultCase('harness-max-turns', 'What is the total of order A-1?'),
    agent: (context) =>
      agentOf(
        context,
        [1, 2, 3, 4].map((n) => ({
          toolCalls: [{ name: 'calculator', input: { expression: `${n}+${n}` } }],
        })),
        { limits: { maxTurns: 3 } },
      ),
  },
  {
    label: 'harness',
    evalCase: faultCase('harness-max-turns-tight', 'What is the total of order A-1?'),
    agent: (context) => agentOf(context, lookupThenAnswer(), { limits: { maxTurns: 1 } }),
  },
  {
    label: 'harness',
    evalCase: faultCase('harness-max-cost', 'What is the total of order A-1?'),
    agent: (context) =>
      agentOf(
        context,
        [
          {
            toolCalls: [{ name: 'lookup', input: { id: 'A-1' } }],
            usage: { inputTokens: 400_000, outputTokens: 100 },
          },
          { text: '$41.50' },
        ],
        {
          limits: { maxCostUsd: 1 },
        },
      ),
  },
  {
    label: 'harness',
    evalCase: faultCase('harness-max-tokens', 'What is the total of order A-1?'),
    agent: (context) =>
      agentOf(
        context,
        [
          {
            toolCalls: [{ name: 'lookup', input: { id: 'A-1' } }],
            usage: { inputTokens: 9_000, outputTokens: 100 },
          },
          { text: '$41.50' },
        ],
        {
          limits: { maxTokens: 5_000 },
        },
      ),
  },
  {
    label: 'harness',
    evalCase: faultCase('harness-runner-timeout', 'What is the total of order A-1?'),
    // Streams a little, then hangs until the runner's timeout aborts it.
    agent: (context) => agentOf(context, [{ text: 'The total is $41.50.', hangAfterEvents: 2 }]),
  },
  driftFault(
    'system',
    'Answer questions about orders.',
    'Answer questions about orders and refunds.',
  ),
  driftFault('instructions', 'You are terse.', 'You are verbose.'),
  {
    label: 'harness',
    evalCase: faultCase('harness-malformed-message', 'What is the total of order A-1?'),
    agent: (context) => agentOf(context, [], { provider: malformed }),
  },
];
