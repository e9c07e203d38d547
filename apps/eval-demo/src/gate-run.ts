import { type Cassette, type DriftFinding, openCassette, Report } from '@mh/eval';
import type { Tool } from '@mh/sdk';
import { DEMO_CASES } from './demo-cases.js';
import type { HarnessVersion } from './demo-tools.js';
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
  /** The tools of a version (default `demoTools`): a test seeds a regression in a tool here. */
  readonly tools?: (version: HarnessVersion) => Tool[];
  /** The agent's turn limit (default the demo's): a test seeds a lower one here. */
  readonly maxTurns?: number;
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
 * noise: any changed outcome is a finding), and returns the exit code. Any replay drift fails it
 * too, whatever the pass rates say: the recording no longer tests the current code.
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
  const report = await runCassetteSuite(cassette, DEMO_CASES, {
    repeats,
    progress: false,
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}),
  });
  const { drifts, warnings } = await cassette.close();
  await report.save(options.report);
  options.out(report.render());
  for (const warning of warnings) options.err(`warning: ${warning}`);
  // A drift means the recording no longer tests the current code: a case that failed anyway
  // (or whose check does not read the drifted part) keeps its pass rate, so the comparison
  // alone would let the change through, and a baseline taken from it would bless it.
  const drifted = drifts.length > 0;
  if (drifted) reportDrift(drifts, options.err);
  if (options.updateBaseline) {
    if (drifted) {
      options.err('eval gate: not writing the baseline from a replay that drifted');
      return GATE_EXIT.regressed;
    }
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
  const ok = comparison.ok && !drifted;
  options.out(
    `\neval gate: ${ok ? 'OK' : 'REGRESSED'} in ${seconds} s (${report.runs.length} replayed sessions${drifted ? `, ${drifts.length} drift finding(s)` : ''})`,
  );
  return ok ? GATE_EXIT.ok : GATE_EXIT.regressed;
}

/** Most drift lines printed; a changed system prompt drifts in every request of every case. */
const MAX_DRIFT_LINES = 12;

/** Prints the drift findings, one line per case, kind and field, with how often it recurred. */
function reportDrift(drifts: readonly DriftFinding[], err: (line: string) => void): void {
  const groups = new Map<string, DriftFinding[]>();
  for (const drift of drifts) {
    const group = `${drift.key.case}\u0000${drift.kind}\u0000${drift.path}`;
    groups.set(group, [...(groups.get(group) ?? []), drift]);
  }
  err(
    `eval gate: the replay drifted from the recording (${drifts.length} finding(s)): the current code no longer sends what was recorded, so those sessions do not test it`,
  );
  for (const [first, ...more] of [...groups.values()].slice(0, MAX_DRIFT_LINES))
    err(
      `  ${first?.message}${first && !first.message.includes(first.path) ? ` [${first.path}]` : ''}${more.length > 0 ? ` (and ${more.length} more like it)` : ''}`,
    );
  if (groups.size > MAX_DRIFT_LINES) err(`  … ${groups.size - MAX_DRIFT_LINES} more`);
  err(
    'eval gate: if the change is deliberate, record the cassette and baseline again (pnpm --filter @mh/eval-demo record) and commit them',
  );
}
