import type { Cassette } from '@mh/eval';
import { type EvalCase, EvalRunner, type EvalRunnerOptions, type Report } from '@mh/eval';
import { PolicyToolExecutor, type Tool } from '@mh/sdk';
import { demoProvider } from './demo-model.js';
import { demoTools, type HarnessVersion } from './demo-tools.js';
import { buildDemoAgent } from './harness.js';

/**
 * Runs `cases` through a cassette: in `record` mode around the demo model (and the real tools),
 * in `replay`/`lockdown` mode from the recording alone (no model, recorded tool results), through
 * the current harness code. One provider and one tool executor per (case, repeat). On replay,
 * `read` tools run live and their results are compared with the recorded ones.
 */
export function runCassetteSuite(
  cassette: Cassette,
  cases: readonly EvalCase[],
  options: EvalRunnerOptions & {
    readonly version?: HarnessVersion;
    /** The tools of a version (default `demoTools`); tests pass changed tools. */
    readonly tools?: (version: HarnessVersion) => Tool[];
    /** The agent's turn limit (default the demo's); tests lower it. */
    readonly maxTurns?: number;
  } = {},
): Promise<Report> {
  const { version = 'v1', tools = demoTools, maxTurns, ...runnerOptions } = options;
  const runner = new EvalRunner(
    (evalCase, { tracer, repeat }) => {
      const key = { case: evalCase.name, repeat };
      const inner = cassette.mode === 'record' ? demoProvider(evalCase.name, repeat) : undefined;
      // The agent gets the cassette's provider itself, so the loop hands it each run's result
      // (`Provider.settle`): a strict replay that stops before its recording does ends its run
      // with the drift, with no wrapper around the agent's events.
      return buildDemoAgent({
        version,
        provider: cassette.provider(inner, key),
        tools: cassette.tools(new PolicyToolExecutor({ tools: tools(version) }), key),
        tracer,
        maxTurns,
      });
    },
    cases,
    {
      repeats: 3,
      concurrency: 4,
      ...runnerOptions,
      labels: { harness: version, mode: cassette.mode, ...runnerOptions.labels },
    },
  );
  return runner.run();
}
