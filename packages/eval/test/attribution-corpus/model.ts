// Corpus entries of the model layer: unknown tools, repeated calls, wrong answers.
import { runFixture, type Turn } from '../session-fixture.js';
import { ANSWER, type CorpusEntry, graded, lookup, run, typedRun } from './kit.js';

export const MODEL: CorpusEntry[] = [
  {
    name: 'refused the typed output',
    layer: 'model',
    rule: 'model/refused',
    build: async () =>
      graded(await typedRun([{ text: 'I cannot help with that.', stopReason: 'refusal' }]), ANSWER),
  },
  ...['search_web', 'read_files', 'calculator'].map(
    (name): CorpusEntry => ({
      name: `called nonexistent ${name}`,
      layer: 'model',
      rule: 'model/unknown-tool',
      build: async () =>
        graded(
          await run([{ calls: [{ name, input: { q: 'x' } }] }, { text: 'The tool is missing.' }], {
            lookup,
          }),
          ANSWER,
        ),
    }),
  ),
  {
    name: 'same call until the repeat guard',
    layer: 'model',
    rule: 'model/repeated-call',
    build: async () =>
      graded(
        await runFixture({
          turns: [{ calls: [{ name: 'lookup', input: { id: 9 } }] }],
          tools: { lookup },
          repeatLast: true,
          limits: { maxRepeatedCalls: 2 },
        }),
        ANSWER,
      ),
  },
  {
    name: 'same call three times, then a wrong answer',
    layer: 'model',
    rule: 'model/repeated-call',
    build: async () =>
      graded(
        await run(
          [
            ...[1, 2, 3].map((): Turn => ({ calls: [{ name: 'lookup', input: { id: 9 } }] })),
            { text: 'The total is $41.' },
          ],
          { lookup },
        ),
        ANSWER,
      ),
  },
  ...[
    'The answer is 41.',
    'It is 24.',
    'About forty.',
    'I believe the total is $41 after checking.',
    'Done.',
  ].map(
    (text, index): CorpusEntry => ({
      name: `wrong answer: ${text}`,
      layer: 'model',
      rule: 'model/wrong-answer',
      build: async () =>
        graded(
          await run(
            index % 2
              ? [{ text }]
              : [{ calls: [{ name: 'lookup', input: { id: index } }] }, { text }],
            { lookup },
          ),
          ANSWER,
        ),
    }),
  ),
];
