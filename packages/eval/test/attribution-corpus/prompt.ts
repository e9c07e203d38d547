// Corpus entries of the prompt layer: the wrong answer format, or a question back to the user.
import { matches } from '../../src/checks/text.js';
import { ANSWER, type CorpusEntry, graded, run, typedRun } from './kit.js';

const format = matches(/^ANSWER: \d+$/m, { tags: ['format'] });

export const PROMPT: CorpusEntry[] = [
  {
    name: 'typed output wrong twice',
    layer: 'prompt',
    rule: 'prompt/output-invalid',
    build: async () =>
      graded(await typedRun([{ text: 'Paris' }, { text: '{"town":"Paris"}' }]), ANSWER),
  },
  {
    name: 'typed output cut off at max tokens',
    layer: 'prompt',
    rule: 'prompt/output-invalid',
    build: async () =>
      graded(await typedRun([{ text: '{"city":"Pa', stopReason: 'max-tokens' }]), ANSWER),
  },
  ...['The answer is 42.', '42', 'answer: 42', 'ANSWER = 42', 'Result: 42'].map(
    (text): CorpusEntry => ({
      name: `format: ${text}`,
      layer: 'prompt',
      rule: 'prompt/format',
      build: async () => graded(await run([{ text }]), format),
    }),
  ),
  {
    name: 'case tagged format',
    layer: 'prompt',
    rule: 'prompt/format',
    build: async () => ({
      ...(await graded(await run([{ text: 'forty-two' }]), ANSWER)),
      tags: ['format'],
    }),
  },
  ...[
    'Which order do you mean?',
    'Could you give me the file name? I can then read it.',
    'Do you want the total with or without tax?',
    'What is the customer id?',
  ].map(
    (text): CorpusEntry => ({
      name: `asked back: ${text}`,
      layer: 'prompt',
      rule: 'prompt/asked-user',
      build: async () => graded(await run([{ text }]), ANSWER),
    }),
  ),
];
