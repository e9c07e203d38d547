// The README's "Eval" example, verbatim: readme-examples.test.ts checks the README still holds
// this text, and type-checking the tests compiles it.
import { allOf, contains, EvalCase, EvalRunner, Report, toolCalled } from '@mh/eval';
import { anthropic } from '@mh/providers/anthropic';
import { Agent, calculatorTool } from '@mh/sdk';

const provider = anthropic();
const cases = [new EvalCase({ name: 'mul', prompt: 'What is 6*7?', check: allOf(contains('42'), toolCalled('calculator')), tags: ['math'] })];
const runner = new EvalRunner((evalCase, { tracer }) => new Agent({ provider, model: 'claude-sonnet-4-5', tools: [calculatorTool()], tracer }), cases, { concurrency: 4, repeats: 3, timeoutMs: 60_000 });
const report = await runner.run();                 // a progress line on stderr when it is a TTY
console.log(report.render());                      // success [95% Wilson], completion, p50/p95, turns, tokens, cache, cost, tags, clusters
const comparison = report.compare(await Report.load('baseline.json'), { tolerance: 0.34 });
console.log(comparison.render()); if (!comparison.ok) process.exitCode = 1;
