import { type EvalCase, EvalRunner, type EvalRunnerOptions, type Report } from '@mh/eval';
import { DEMO_CASES } from './demo-cases.js';
import { demoProvider } from './demo-model.js';
import type { HarnessVersion } from './demo-tools.js';
import { buildDemoAgent } from './harness.js';

/** Runs the demo suite live (the offline demo model) on a harness version. */
export function runDemoSuite(
  version: HarnessVersion,
  options: EvalRunnerOptions = {},
  cases: readonly EvalCase[] = DEMO_CASES,
): Promise<Report> {
  const runner = new EvalRunner(
    (evalCase, { tracer, repeat }) =>
      buildDemoAgent({ version, provider: demoProvider(evalCase.name, repeat), tracer }),
    cases,
    {
      repeats: 3,
      concurrency: 4,
      ...options,
      labels: { harness: version, model: 'demo-model (offline)', ...options.labels },
    },
  );
  return runner.run();
}
