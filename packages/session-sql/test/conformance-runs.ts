/** How a conformance test runs, overridable to replay a counterexample or to run longer. */
export interface ConformanceRuns {
  readonly numRuns: number;
  readonly maxCommands: number;
  readonly timeLimitMs: number;
  readonly seed?: number;
  readonly path?: string;
}

const numberFrom = (value: string | undefined): number | undefined =>
  value === undefined ? undefined : Number(value);

/**
 * The test's defaults, overridden by `MH_CONFORMANCE_SEED` and `MH_CONFORMANCE_PATH` (what a
 * counterexample prints, so a failure replays exactly), and by `MH_CONFORMANCE_RUNS`,
 * `MH_CONFORMANCE_MAX_COMMANDS` and `MH_CONFORMANCE_TIME_MS` for a longer hunt.
 */
export function conformanceRuns(defaults: ConformanceRuns): ConformanceRuns {
  const env = process.env;
  const overrides = {
    numRuns: numberFrom(env.MH_CONFORMANCE_RUNS),
    maxCommands: numberFrom(env.MH_CONFORMANCE_MAX_COMMANDS),
    timeLimitMs: numberFrom(env.MH_CONFORMANCE_TIME_MS),
    seed: numberFrom(env.MH_CONFORMANCE_SEED),
    path: env.MH_CONFORMANCE_PATH,
  };
  return {
    ...defaults,
    ...Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined)),
  };
}
