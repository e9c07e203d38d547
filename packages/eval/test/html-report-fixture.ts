// A real eval run (core's loop, scripted models, fixture tools) for the HTML report's tests: a
// baseline and a current run with a regressed case, an improved case, a tool failure, a flaky
// case and a case whose name and answer carry markup.
import { contains } from '../src/checks/text.js';
import type { Report } from '../src/report/report.js';
import { EvalCase } from '../src/runner/eval-case.js';
import { EvalRunner } from '../src/runner/runner.js';
import { type FixtureTool, fixtureAgent, type Turn } from './session-fixture.js';

/** A case name that would run a script if the page did not escape it. */
export const HOSTILE_CASE = `<script>document.body.setAttribute('data-pwned','1')</script>`;
/** An answer that would inject an element if the page did not escape it. */
export const HOSTILE_ANSWER = '<img id="pwned-img" src="x"> the total is <b>unknown</b>';

const CASES = [
  new EvalCase({ name: 'sum', prompt: 'What is 40+2?', check: contains('42'), tags: ['math'] }),
  new EvalCase({
    name: 'order-total',
    prompt: 'What is the total of order A-1?',
    check: contains('$30'),
    tags: ['orders'],
  }),
  new EvalCase({
    name: 'coin',
    prompt: 'Heads or tails?',
    check: contains('heads'),
    tags: ['math'],
  }),
  new EvalCase({ name: HOSTILE_CASE, prompt: 'Say 7.', check: contains('7'), tags: ['<b>tag'] }),
  new EvalCase({ name: 'greeting', prompt: 'Greet me.', check: contains('hello') }),
];

/** Which harness: `v1` (the baseline) or `v2` (the lookup tool broke; the greeting got fixed). */
export type FixtureVersion = 'v1' | 'v2';

function turnsOf(name: string, version: FixtureVersion, repeat: number): Turn[] {
  switch (name) {
    case 'sum':
      return [{ text: '42' }];
    case 'order-total':
      return [
        { text: 'Looking it up.', calls: [{ name: 'lookup_order', input: { id: 'A-1' } }] },
        { text: version === 'v1' ? 'The total is $30.' : 'I could not find the order.' },
      ];
    case 'coin':
      return [{ text: repeat === 0 ? 'heads' : 'tails' }];
    case 'greeting':
      return [{ text: version === 'v1' ? 'Good day.' : 'hello there' }];
    default:
      return [{ text: HOSTILE_ANSWER }];
  }
}

function toolsOf(version: FixtureVersion): Record<string, FixtureTool> {
  return {
    lookup_order: {
      run: () => {
        if (version === 'v2') throw new Error("ENOENT: no such file '/data/orders/A-1.json'");
        return 'order A-1: 3 items, total $30';
      },
    },
  };
}

/** Runs the fixture suite on `version` (2 repeats each). */
export function runFixtureSuite(version: FixtureVersion): Promise<Report> {
  return new EvalRunner(
    (evalCase, { tracer, repeat }) =>
      fixtureAgent({
        turns: turnsOf(evalCase.name, version, repeat),
        tools: toolsOf(version),
        tracer,
      }),
    CASES,
    { repeats: 2, concurrency: 2, progress: false, labels: { harness: version } },
  ).run();
}
