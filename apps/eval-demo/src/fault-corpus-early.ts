// Injected faults of the infra, eval and harness layers, ten each.
import { join } from 'node:path';
import { type Provider, ProviderError, type ProviderErrorKind } from '@mh/core';
import { check, contains, openCassette, pathIs } from '@mh/eval';
import { scripted, withRetry } from '@mh/providers';
import { Agent } from '@mh/sdk';
import {
  agentOf,
  type Fault,
  faultCase,
  lookupThenAnswer,
  MODEL,
  PRICING,
  TOOLS,
} from './fault-kit.js';

function providerFault(
  kind: ProviderErrorKind,
  status: number | undefined,
  how: 'before' | 'mid-stream' | 'after-retries' = 'before',
): Fault {
  const error = new ProviderError(`${kind} from the provider`, {
    kind,
    ...(status ? { status } : {}),
    provider: 'scripted',
  });
  return {
    label: 'infra',
    evalCase: faultCase(`infra-${kind}-${how}`, 'What is the total of order A-1?'),
    agent: (context) => {
      if (how === 'after-retries') {
        const failing = scripted([{ error }], {
          whenExhausted: 'repeat-last',
          recordRequests: false,
        });
        return agentOf(context, [], {
          provider: withRetry(failing, { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 }),
        });
      }
      return agentOf(
        context,
        how === 'before'
          ? [{ error }]
          : [{ text: 'The total is $41.50 for order A-1.', failAfterEvents: 3, error }],
      );
    },
  };
}

const INFRA: Fault[] = [
  providerFault('rate-limit', 429),
  providerFault('auth', 401),
  providerFault('quota', 402),
  providerFault('overloaded', 529),
  providerFault('server', 500),
  providerFault('network', undefined, 'mid-stream'),
  providerFault('timeout', undefined, 'mid-stream'),
  providerFault('server', 503, 'after-retries'),
  providerFault('rate-limit', 429, 'after-retries'),
  providerFault('context-overflow', 400),
];

const answersRight = (context: Parameters<Fault['agent']>[0]) =>
  agentOf(context, lookupThenAnswer());

const EVAL: Fault[] = [
  ...[
    check(
      'reads a missing field',
      ({ runs }) =>
        (runs[0] as unknown as { details: { total: string } }).details.total === '$41.50',
    ),
    check('returns a string', () => 'yes' as unknown as boolean),
    check('parses the answer as JSON', ({ text }) => JSON.parse(text).total === '$41.50'),
    pathIs('orders/a-1.json', { from: () => 42 as unknown as string }),
    check('compares with a fixture', async () => {
      throw new Error('fixture orders.json not found');
    }),
  ].map(
    (broken, index): Fault => ({
      label: 'eval',
      evalCase: faultCase(`eval-check-${index}`, 'What is the total of order A-1?', broken),
      agent: answersRight,
    }),
  ),
  ...[
    (context: Parameters<Fault['agent']>[0]) => agentOf(context, [], { model: '' }),
    (context: Parameters<Fault['agent']>[0]) => agentOf(context, [], { limits: { maxTurns: 0 } }),
    (context: Parameters<Fault['agent']>[0]) =>
      agentOf(context, [], { tools: 'calculator' as never }),
    () => {
      throw new Error('workspace fixture missing: /fixtures/orders');
    },
    () => ({}) as never,
  ].map(
    (factory, index): Fault => ({
      label: 'eval',
      evalCase: faultCase(`eval-factory-${index}`, 'What is the total of order A-1?'),
      agent: factory,
    }),
  ),
];

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

const HARNESS: Fault[] = [
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

/** The infra, eval and harness faults. */
export const EARLY_FAULTS: readonly Fault[] = [...INFRA, ...EVAL, ...HARNESS];
