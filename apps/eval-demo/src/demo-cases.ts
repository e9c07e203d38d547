import { allOf, contains, EvalCase, matches, pathIs, toolCalled } from '@mh/eval';

/** The demo suite: arithmetic, orders, files, and a few cases that fail on purpose. */
export const DEMO_CASES: readonly EvalCase[] = [
  new EvalCase({
    name: 'multiply',
    prompt: 'What is 17 * 23?',
    check: allOf(contains('391'), toolCalled('calculator', { succeeded: true })),
    tags: ['math'],
  }),
  new EvalCase({
    name: 'percent',
    prompt: 'What is 15% of 240?',
    check: contains('36'),
    tags: ['math'],
  }),
  new EvalCase({
    name: 'power-format',
    prompt: 'What is 2 to the power of 10?',
    check: matches(/^ANSWER: 1024$/m, { tags: ['format'] }),
    tags: ['math'],
  }),
  new EvalCase({
    name: 'order-total',
    prompt: 'What is the total of order ORD-7731?',
    check: contains('$41.50'),
    tags: ['orders'],
  }),
  new EvalCase({
    name: 'order-status',
    prompts: ['Find order ORD-1002 for me.', 'Has it shipped yet?'],
    check: allOf(contains('ORD-1002'), contains('processing')),
    tags: ['orders'],
  }),
  new EvalCase({
    name: 'config-file',
    prompt: 'Which file sets the retry limit?',
    check: pathIs('config/retry.json'),
    tags: ['files'],
  }),
  new EvalCase({
    name: 'invoice',
    prompt: 'What is the amount of invoice INV-9?',
    check: contains('$'),
    tags: ['orders'],
  }),
  new EvalCase({
    name: 'refund',
    prompt: 'Please refund my order.',
    check: toolCalled('refund_order'),
    tags: ['orders'],
  }),
  new EvalCase({
    name: 'spotty-lookup',
    prompt: 'What is the total of order ORD-2040?',
    check: contains('$87.25'),
    tags: ['orders'],
  }),
  new EvalCase({
    name: 'busy-provider',
    prompt: 'What is 9 * 9?',
    check: contains('81'),
    tags: ['math'],
  }),
  new EvalCase({
    name: 'long-chat',
    prompts: [
      'Look up order ORD-5150.',
      'Write me a long note about how shipping works.',
      'Now a long note about returns.',
      'Who placed the order I asked about first?',
    ],
    check: contains('Margaret Hale'),
    tags: ['orders', 'context'],
  }),
];
