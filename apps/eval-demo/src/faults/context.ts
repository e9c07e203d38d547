// Injected faults of the context layer: compaction loses a fact the answer needs.
import { check, contains } from '@mh/eval';
import { type Fault, faultCase } from './kit.js';
import { RECALL_PROMPTS, recall } from './recall.js';

export const CONTEXT_FAULTS: readonly Fault[] = [
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
