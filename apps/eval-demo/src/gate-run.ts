import { type Cassette, openCassette, Report } from '@mh/eval';
import { DEMO_CASES } from './demo-cases.js';
import { runCassetteSuite } from './replay-suite.js';

/** Exit codes of the gate: no regression, a regression, no verdict possible. */
export const GATE_EXIT = { ok: 0, regressed: 1, noVerdict: 2 } as const;

/** Where the gate reads and writes, and where it prints. */
export interface GateOptions {
  /** The committed cassette (replayed in lockdown: no model, no network). */
  readonly cassette: string;
  /** The committed baseline report. */
  readonly baseline: string;
  /** Where to save this run's report. */
  readonly report: string;
  /** Write this run's report as the new baseline instead of comparing (after a deliberate change). */
  readonly updateBaseline?: boolean;
  /** Most infra-attributed runs tolerated, as a share of all runs, before "no verdict" (default 0.5). */
  readonly maxInfraShare?: number;
  /** Prints a line of output. */
  readonly out: (line: string) => void;
  /** Prints a line of diagnostics. */
  readonly err: (line: string) => void;
}

function repeatsOf(cassette: Cassette): { repeats: number; missing: string[] } {
  const byCase = new Map<string, number>();
  for (const key of cassette.keys())
    byCase.set(key.case, Math.max(byCase.get(key.case) ?? 0, key.repeat + 1));
  const missing = DEMO_CASES.filter((evalCase) => !byCase.has(evalCase.name)).map(
    (evalCase) => evalCase.name,
  );
  const counts = [...byCase.values()];
  return { repeats: counts.length === 0 ? 0 : Math.min(...counts), missing };
}

/**
 * The CI eval gate: replays the committed cassette through the current harness in lockdown mode
 * (deterministic, zero cost), compares with the committed baseline at tolerance 0 (a replay has no
 * noise: any changed outcome is a finding), and returns the exit code.
 */
export async function runGate(options: GateOptions): Promise<number> {
  const started = performance.now();
  let cassette: Cassette;
  try {
    cassette = await openCassette(options.cassette, { mode: 'lockdown' });
  } catch (error) {
    options.err(`eval gate: cannot replay: ${(error as Error).message}`);
    return GATE_EXIT.noVerdict;
  }
  const { repeats, missing } = repeatsOf(cassette);
  if (missing.length > 0 || repeats === 0) {
    options.err(
      `eval gate: the cassette has no recording of ${missing.join(', ') || 'any case'}; record it (pnpm --filter @mh/eval-demo record)`,
    );
    await cassette.close();
    return GATE_EXIT.noVerdict;
  }
  const report = await runCassetteSuite(cassette, DEMO_CASES, { repeats, progress: false });
  const { drifts, warnings } = await cassette.close();
  await report.save(options.report);
  options.out(report.render());
  for (const warning of warnings) options.err(`warning: ${warning}`);
  if (drifts.length > 0)
    options.out(`\n${drifts.length} replay drift finding(s); first: ${JSON.stringify(drifts[0])}`);
  if (options.updateBaseline) {
    await report.save(options.baseline);
    options.out(`\nbaseline written to ${options.baseline}`);
    return GATE_EXIT.ok;
  }
  let baseline: Report;
  try {
    baseline = await Report.load(options.baseline);
  } catch (error) {
    options.err(`eval gate: cannot read the baseline: ${(error as Error).message}`);
    return GATE_EXIT.noVerdict;
  }
  const comparison = report.compare(baseline, { tolerance: 0 });
  options.out(`\n${comparison.render()}`);
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  const infraShare = comparison.infraRuns.current / Math.max(1, report.runs.length);
  if (infraShare > (options.maxInfraShare ?? 0.5)) {
    options.err(
      `eval gate: no verdict, ${comparison.infraRuns.current} of ${report.runs.length} runs failed in the infrastructure (${seconds} s)`,
    );
    return GATE_EXIT.noVerdict;
  }
  options.out(
    `\neval gate: ${comparison.ok ? 'OK' : 'REGRESSED'} in ${seconds} s (${report.runs.length} replayed sessions)`,
  );
  return comparison.ok ? GATE_EXIT.ok : GATE_EXIT.regressed;
}
