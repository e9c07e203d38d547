// A labelled corpus for measuring attribution: faults (ten per layer, and hard ones) injected into real agent
// runs (the sdk Agent, @mh/tools, scripted models, real compaction, a real replay), run through
// the EvalRunner, and the attributed layer compared with the injected one.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EvalRunner, LAYERS, type Layer, type Report } from '@mh/eval';
import { COMPACTED_FAULTS } from './compaction-kept-facts.js';
import { CONTEXT_FAULTS } from './context.js';
import { EVAL_FAULTS } from './eval.js';
import { HARNESS_FAULTS } from './harness.js';
import { INFRA_FAULTS } from './infra.js';
import type { Fault } from './kit.js';
import { MODEL_FAULTS } from './model.js';
import { LOOP_FAULTS } from './model-loops.js';
import { PROMPT_FAULTS } from './prompt.js';
import { RECOVERED_FAULTS } from './recovered-errors.js';
import { TOOL_FAULTS } from './tool.js';

/**
 * The hard faults: symptoms of one layer next to the fault of another, as real runs show them. A
 * tool error that an identical call then recovered from, a model that repeats a successful call
 * until a limit stops it, a compaction that kept every fact the check needs. Each has a control
 * whose symptom is the real cause (the tool keeps failing, the limit stops a model making progress).
 */
export const HARD_FAULTS: readonly Fault[] = [
  ...RECOVERED_FAULTS,
  ...LOOP_FAULTS,
  ...COMPACTED_FAULTS,
];

/** Every fault: ten per layer in the attribution order, then the hard ones. */
export const FAULTS: readonly Fault[] = [
  ...INFRA_FAULTS,
  ...EVAL_FAULTS,
  ...HARNESS_FAULTS,
  ...CONTEXT_FAULTS,
  ...TOOL_FAULTS,
  ...PROMPT_FAULTS,
  ...MODEL_FAULTS,
  ...HARD_FAULTS,
];

/** How attribution did on the corpus. */
export interface AccuracyResult {
  /** The runner's report of the faulty runs. */
  readonly report: Report;
  /** Faults, and faults whose attributed layer is the injected one. */
  readonly total: number;
  readonly correct: number;
  /** The same over the faults that are not confounded. */
  readonly clean: { readonly total: number; readonly correct: number };
  /** Per injected layer: faults and correct ones. */
  readonly byLayer: Readonly<Record<Layer, { total: number; correct: number }>>;
  /** Each miss: the fault, the injected and the attributed layer, the rule. */
  readonly misses: readonly {
    fault: string;
    label: Layer;
    got: string;
    rule: string;
    confounded: boolean;
  }[];
  /** Faults whose run unexpectedly passed (no attribution at all). */
  readonly passed: readonly string[];
}

/** Runs the corpus and scores the top-1 layer of each attribution against its label. */
export async function measureAttribution(): Promise<AccuracyResult> {
  const dir = await mkdtemp(join(tmpdir(), 'mh-fault-corpus-'));
  try {
    const byName = new Map(FAULTS.map((fault) => [fault.evalCase.name, fault]));
    const report = await new EvalRunner(
      (evalCase, { tracer, signal }) => {
        const fault = byName.get(evalCase.name);
        if (!fault) throw new Error(`no fault ${evalCase.name}`);
        return fault.agent({ tracer, signal, dir });
      },
      FAULTS.map((fault) => fault.evalCase),
      // Far above any healthy fault's run time (milliseconds), so only the hanging fault meets it.
      { repeats: 1, concurrency: 4, timeoutMs: 3_000, progress: false },
    ).run();
    const byLayer = Object.fromEntries(
      LAYERS.map((layer) => [layer, { total: 0, correct: 0 }]),
    ) as Record<Layer, { total: number; correct: number }>;
    const misses: AccuracyResult['misses'][number][] = [];
    const passed: string[] = [];
    let correct = 0;
    let cleanTotal = 0;
    let cleanCorrect = 0;
    for (const run of report.runs) {
      const fault = byName.get(run.case);
      if (!fault) continue;
      const got = run.attribution?.layer;
      const hit = got === fault.label;
      byLayer[fault.label].total++;
      if (hit) {
        byLayer[fault.label].correct++;
        correct++;
      } else if (got === undefined) {
        passed.push(run.case);
      } else {
        misses.push({
          fault: run.case,
          label: fault.label,
          got,
          rule: run.attribution?.rule ?? '',
          confounded: fault.confounded === true,
        });
      }
      if (!fault.confounded) {
        cleanTotal++;
        if (hit) cleanCorrect++;
      }
    }
    return {
      report,
      total: report.runs.length,
      correct,
      clean: { total: cleanTotal, correct: cleanCorrect },
      byLayer,
      misses,
      passed,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The result as a few lines for a terminal. */
export function renderAccuracy(result: AccuracyResult): string {
  const percent = (a: number, b: number): string => `${((a / Math.max(1, b)) * 100).toFixed(1)}%`;
  const lines = [
    `attribution top-1 accuracy: ${result.correct}/${result.total} = ${percent(result.correct, result.total)} (unconfounded faults: ${result.clean.correct}/${result.clean.total} = ${percent(result.clean.correct, result.clean.total)})`,
    `per layer: ${LAYERS.map((layer) => `${layer} ${result.byLayer[layer].correct}/${result.byLayer[layer].total}`).join(' · ')}`,
  ];
  for (const miss of result.misses)
    lines.push(
      `  miss: ${miss.fault} injected ${miss.label}, attributed ${miss.got} (${miss.rule})${miss.confounded ? ' [confounded]' : ''}`,
    );
  for (const name of result.passed) lines.push(`  not failed: ${name}`);
  return lines.join('\n');
}
