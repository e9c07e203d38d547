// Injected faults of the prompt layer: answers in the wrong format, questions back to the user.
import { matches } from '@mh/eval';
import { agentOf, type Fault, faultCase, lookupThenAnswer } from './kit.js';

const answerLine = matches(/^ANSWER: \$41\.50$/m, { tags: ['format'] });

export const PROMPT_FAULTS: readonly Fault[] = [
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
