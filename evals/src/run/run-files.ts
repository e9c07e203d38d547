import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CaseRun } from '@mh/eval';
import type { Grade } from '../grading/grade.js';
import type { Category } from '../tasks/task.js';
import type { SessionRecorder } from './session-recorder.js';

/** What is written for one session besides its spans. */
export interface RunFile {
  /** `dry-run` for the oracle, `real` for a model. */
  readonly mode: 'dry-run' | 'real';
  readonly case: string;
  readonly category: Category;
  readonly repeat: number;
  /** The grade (absent when the session never got to grading: it threw or timed out). */
  readonly grade?: Grade;
  /** The runner's record: status, answer, check, attribution, metrics. */
  readonly run: CaseRun;
  /** Each prompt's run: status, turns, usage, cost, compactions, and its new messages. */
  readonly prompts: readonly unknown[];
}

/** The folder of one session's files: `runs/<case>/repeat-<n>`. */
export function runFolder(out: string, caseName: string, repeat: number): string {
  return join(out, 'runs', caseName, `repeat-${repeat + 1}`);
}

/**
 * Writes `run.json` (grade, record, every prompt's messages and compactions) and `spans.json`
 * (`{ mode, spans }`: the session's finished spans) for one session; both carry the mode, so a
 * dry run's files say so. Synchronous: it runs in the runner's callback.
 */
export function writeRunFiles(
  out: string,
  file: Omit<RunFile, 'prompts'>,
  recorder: SessionRecorder | undefined,
): void {
  const folder = runFolder(out, file.case, file.repeat);
  mkdirSync(folder, { recursive: true });
  const prompts = (recorder?.results ?? []).map((result) => ({
    runId: result.runId,
    status: result.status,
    ...(result.guard ? { guard: result.guard } : {}),
    ...(result.error ? { error: { name: result.error.name, message: result.error.message } } : {}),
    turns: result.turns,
    usage: result.usage,
    costUsd: result.costUsd,
    durationMs: result.durationMs,
    compactions: result.compactions,
    newMessages: result.newMessages,
  }));
  const record: RunFile = { ...file, prompts };
  writeFileSync(join(folder, 'run.json'), `${JSON.stringify(record, null, 2)}\n`);
  const spans = { mode: file.mode, spans: recorder?.spans() ?? [] };
  writeFileSync(join(folder, 'spans.json'), `${JSON.stringify(spans, null, 2)}\n`);
}
