// Corpus entries of the eval layer: the check or the agent factory threw.
import { ANSWER, type CorpusEntry, graded, run } from './kit.js';

export const EVAL: CorpusEntry[] = [
  ...[
    'Cannot read properties of undefined',
    'regex is not a function',
    'expected.trim is not a function',
    'fixture file missing',
    'JSON.parse: bad input',
    'check timed out',
  ].map(
    (message, index): CorpusEntry => ({
      name: `check throws: ${message}`,
      layer: 'eval',
      rule: 'eval/check-threw',
      build: async () => {
        const session = await run([{ text: index % 2 ? 'The answer is 42.' : 'I think 41.' }]);
        return {
          ...(await graded(session, ANSWER)),
          check: { status: 'threw', error: new TypeError(message) },
          checkName: 'broken-check',
        };
      },
    }),
  ),
  ...[
    'ConfigError: model: expected a non-empty model id',
    'cannot open fixtures.db',
    'no cassette for case',
    'ENOENT workspace',
  ].map(
    (message): CorpusEntry => ({
      name: `factory throws: ${message}`,
      layer: 'eval',
      rule: 'eval/factory-threw',
      build: async () => ({
        results: [],
        events: [],
        spans: [],
        factoryError: new Error(message),
        check: { status: 'skipped' },
      }),
    }),
  ),
];
