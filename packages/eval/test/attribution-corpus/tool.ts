// Corpus entries of the tool layer: failures, timeouts and invalid arguments.
import { ANSWER, type CorpusEntry, failing, graded, run } from './kit.js';

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
