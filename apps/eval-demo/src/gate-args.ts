import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The app's folder (where the committed cassette and baseline live). */
export const APP_DIR: string = fileURLToPath(new URL('..', import.meta.url));

/** Default paths of the committed cassette and baseline, and of the report. */
export const DEFAULT_PATHS = {
  cassette: join(APP_DIR, 'recordings', 'demo.cassette.jsonl'),
  baseline: join(APP_DIR, 'recordings', 'baseline.json'),
  report: join(APP_DIR, 'reports', 'eval-gate.json'),
} as const;

/** Parsed command line of the gate and the recorder. */
export interface GateArgs {
  readonly cassette: string;
  readonly baseline: string;
  readonly report: string;
  readonly updateBaseline: boolean;
}

/**
 * Parses `--cassette FILE --baseline FILE --report FILE --update-baseline` (after an optional
 * leading `--`); throws an `Error` with a usage line for anything else.
 */
export function parseGateArgs(argv: readonly string[]): GateArgs {
  const values: Record<string, string> = { ...DEFAULT_PATHS };
  let updateBaseline = false;
  // `pnpm … eval -- --update-baseline` passes its `--` separator on to the script.
  const first = argv[0] === '--' ? 1 : 0;
  for (let index = first; index < argv.length; index++) {
    const flag = argv[index];
    if (flag === '--update-baseline') {
      updateBaseline = true;
      continue;
    }
    const name = flag?.startsWith('--') ? flag.slice(2) : '';
    const value = argv[index + 1];
    if (!(name in DEFAULT_PATHS) || value === undefined || value.startsWith('--')) {
      throw new Error(
        `unexpected argument ${flag}; usage: [--cassette FILE] [--baseline FILE] [--report FILE] [--update-baseline]`,
      );
    }
    values[name] = value;
    index++;
  }
  return {
    cassette: values.cassette ?? DEFAULT_PATHS.cassette,
    baseline: values.baseline ?? DEFAULT_PATHS.baseline,
    report: values.report ?? DEFAULT_PATHS.report,
    updateBaseline,
  };
}

/**
 * Checks `MH_EVAL_MODE`, which the turbo `eval` task declares (it is part of the task's cache
 * key): the gate replays in lockdown only, so unset, empty or `lockdown` is accepted and any
 * other value is refused rather than silently ignored; `record` would mean calling a model and
 * `replay` would run tools the recording lacks and append them to the committed cassette.
 */
export function assertGateMode(env: NodeJS.ProcessEnv): void {
  const mode = env.MH_EVAL_MODE;
  if (mode === undefined || mode === '' || mode === 'lockdown') return;
  throw new Error(
    `MH_EVAL_MODE=${mode}: the gate replays in lockdown only (unset MH_EVAL_MODE or set it to lockdown); to record the cassette again, run pnpm --filter @mh/eval-demo record`,
  );
}
