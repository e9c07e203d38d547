// Corpus entries of the harness layer: replay drift, exceptions, denials, limit guards.
import { CancelledError, ReplayDriftError, type RunResult } from '@mh/core';
import type { Turn } from '../session-fixture.js';
import { ANSWER, type CorpusEntry, graded, lookup, run } from './kit.js';

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
