// Corpus entries of the context, tool, prompt and model layers (ten each).
import { allOf } from '../src/checks/logic.js';
import { contains, matches } from '../src/checks/text.js';
import {
  ANSWER,
  type CorpusEntry,
  compacted,
  failing,
  folded,
  graded,
  lookup,
  run,
} from './attribution-corpus-kit.js';
import { runFixture, type Turn } from './session-fixture.js';

export const CONTEXT: CorpusEntry[] = [
  ...[
    'ORD-7731',
    'INV-2024-0042',
    '7f3a9c2e',
    'carol@example.com',
    'src/billing/refund.ts',
    'CASE-88',
  ].map(
    (fact, index): CorpusEntry => ({
      name: `fact ${fact} only in compacted history`,
      layer: 'context',
      rule: 'context/compacted-fact',
      build: async () => {
        const session = await run([
          { text: 'I no longer have the identifier; the total was $41.' },
        ]);
        const originals = [
          folded(`msg_old_${index}`, `lookup result: record ${fact}, status open, total $41`),
        ];
        return graded(compacted(session, originals), allOf(contains(fact), contains('$41')));
      },
    }),
  ),
  ...[
    'summary dropped nothing needed',
    'trimmed old tool output',
    'summary of a long chat',
    'two compactions',
  ].map(
    (name, index): CorpusEntry => ({
      name: `compaction happened: ${name}`,
      layer: 'context',
      rule: 'context/compaction',
      build: async () => {
        const session = await run([{ text: `The answer is ${30 + index}.` }]);
        return graded(
          compacted(session, [folded(`msg_chat_${index}`, 'small talk about the weather')]),
          ANSWER,
        );
      },
    }),
  ),
];

export const TOOL: CorpusEntry[] = [
  ...[
    "ENOENT: no such file or directory, open '/data/orders-17.csv'",
    'connection refused 127.0.0.1:5432',
    'division by zero',
    'HTTP 500 from inventory service',
  ].map(
    (message): CorpusEntry => ({
      name: `tool throws: ${message}`,
      layer: 'tool',
      rule: 'tool/runtime-error',
      build: async () =>
        graded(
          await run(
            [
              { calls: [{ name: 'lookup', input: { id: 3 } }] },
              { text: 'The lookup failed, so I cannot say.' },
            ],
            { lookup: failing(message) },
          ),
          ANSWER,
        ),
    }),
  ),
  {
    name: 'tool times out',
    layer: 'tool',
    rule: 'tool/runtime-error',
    build: async () =>
      graded(
        await run(
          [{ calls: [{ name: 'search', input: { q: 'x' } }] }, { text: 'The search timed out.' }],
          { search: { timeout: true } },
        ),
        ANSWER,
      ),
  },
  ...['id: expected number, received string', 'path: required'].map(
    (problem): CorpusEntry => ({
      name: `invalid arguments: ${problem}`,
      layer: 'tool',
      rule: 'tool/invalid-arguments',
      build: async () =>
        graded(
          await run(
            [
              { calls: [{ name: 'lookup', input: { id: 'seven' } }] },
              { text: 'I could not look it up.' },
            ],
            { lookup: { validate: () => problem } },
          ),
          ANSWER,
        ),
    }),
  ),
  ...[3, 4, 5].map(
    (turns): CorpusEntry => ({
      name: `guard while the tool kept failing (${turns} turns)`,
      layer: 'tool',
      rule: 'tool/guard-while-failing',
      build: async () =>
        graded(
          await run(
            Array.from({ length: turns + 1 }, (_, id) => ({
              calls: [{ name: 'lookup', input: { id } }],
            })),
            { lookup: failing('database is locked') },
            { limits: { maxTurns: turns } },
          ),
          ANSWER,
        ),
    }),
  ),
];

const format = matches(/^ANSWER: \d+$/m, { tags: ['format'] });

export const PROMPT: CorpusEntry[] = [
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

export const MODEL: CorpusEntry[] = [
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
