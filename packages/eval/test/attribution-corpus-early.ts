// Corpus entries of the infra, eval and harness layers (ten each).
import {
  CancelledError,
  ProviderError,
  type ProviderErrorKind,
  ReplayDriftError,
  type RunResult,
} from '@mh/core';
import { ANSWER, type CorpusEntry, graded, lookup, run } from './attribution-corpus-kit.js';
import { runFixture, type Turn } from './session-fixture.js';

const infra = (kind: ProviderErrorKind, status: number | undefined, atPrompt = 1): CorpusEntry => ({
  name: `provider ${kind}${atPrompt > 1 ? ' on the second prompt' : ''}`,
  layer: 'infra',
  rule: 'infra/provider-error',
  build: async () => {
    const error = new ProviderError(`${kind} from upstream`, {
      kind,
      ...(status ? { status } : {}),
      provider: 'fixture',
    });
    const turns: Turn[] = atPrompt > 1 ? [{ text: 'Noted.' }, { error }] : [{ error }];
    return graded(
      await runFixture({ prompts: atPrompt > 1 ? ['Hi.', 'Go.'] : ['Go.'], turns }),
      ANSWER,
    );
  },
});

export const INFRA: CorpusEntry[] = [
  infra('rate-limit', 429),
  infra('auth', 401),
  infra('quota', 402),
  infra('overloaded', 529),
  infra('server', 500),
  infra('network', undefined),
  infra('timeout', undefined),
  infra('server', 503, 2),
  infra('context-overflow', 400),
  infra('rate-limit', 429, 2),
];

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

const drift = (path: string, index: number): CorpusEntry => ({
  name: `replay drift at ${path}`,
  layer: 'harness',
  rule: 'harness/replay-drift',
  build: async () => {
    const error = new ReplayDriftError(`request ${index}: ${path} differs`, {
      path,
      recorded: 'a',
      actual: 'b',
      requestIndex: index,
    });
    const turns: Turn[] =
      index > 0 ? [{ calls: [{ name: 'lookup', input: { id: 7 } }] }, { error }] : [{ error }];
    return graded(await run(turns, { lookup }), ANSWER);
  },
});

export const HARNESS: CorpusEntry[] = [
  drift('system', 0),
  drift('messages[2].content[0].text', 1),
  drift('tools[0].inputSchema.properties.id.type', 0),
  {
    name: 'malformed message from the adapter',
    layer: 'harness',
    rule: 'harness/exception',
    build: async () =>
      graded(
        await run([
          { error: new TypeError("Cannot read properties of undefined (reading 'content')") },
        ]),
        ANSWER,
      ),
  },
  {
    name: 'the agent stream itself threw',
    layer: 'harness',
    rule: 'harness/exception',
    build: async () => ({
      results: [],
      events: [],
      spans: [],
      error: new RangeError('Maximum call stack size exceeded'),
      check: { status: 'skipped' },
    }),
  },
  {
    name: 'write denied by policy',
    layer: 'harness',
    rule: 'harness/permission-denied',
    build: async () =>
      graded(
        await run(
          [
            { calls: [{ name: 'write_file', input: { path: 'a.txt' } }] },
            { text: 'I could not write the file.' },
          ],
          { write_file: { denied: true } },
        ),
        ANSWER,
      ),
  },
  {
    name: 'shell denied, then gave up',
    layer: 'harness',
    rule: 'harness/permission-denied',
    build: async () =>
      graded(
        await run(
          [
            { calls: [{ name: 'exec', input: { cmd: 'ls' } }] },
            { text: 'Not allowed to run commands.' },
          ],
          { exec: { denied: true } },
        ),
        ANSWER,
      ),
  },
  {
    name: 'max-turns with healthy tools',
    layer: 'harness',
    rule: 'harness/guard',
    build: async () =>
      graded(
        await run(
          [1, 2, 3, 4].map((id) => ({ calls: [{ name: 'lookup', input: { id } }] })),
          { lookup },
          { limits: { maxTurns: 3 } },
        ),
        ANSWER,
      ),
  },
  {
    name: 'max-tokens budget',
    layer: 'harness',
    rule: 'harness/guard',
    build: async () =>
      graded(
        await run(
          [1, 2, 3].map((id) => ({
            calls: [{ name: 'lookup', input: { id } }],
            usage: { input: 400, output: 20 },
          })),
          { lookup },
          { limits: { maxTokens: 500 } },
        ),
        ANSWER,
      ),
  },
  {
    name: 'runner timeout, no tool errors',
    layer: 'harness',
    rule: 'harness/guard',
    build: async () => {
      const session = await run(
        [{ calls: [{ name: 'lookup', input: { id: 1 } }] }, { text: '…' }],
        { lookup },
      );
      const last = session.results.at(-1) as RunResult;
      const cancelled: RunResult = {
        ...last,
        status: 'cancelled',
        error: new CancelledError('Run cancelled'),
      };
      return { ...(await graded(session, ANSWER)), results: [cancelled], timedOut: true };
    },
  },
];
