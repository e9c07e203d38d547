import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, type Provider } from '@mh/core';
import {
  type CheckInput,
  type Comparison,
  check,
  EvalCase,
  EvalRunner,
  type ProgressSink,
  Report,
} from '@mh/eval';
import type { SuiteOptions } from '../cli/args.js';
import { type Grade, gradeSession } from '../grading/grade.js';
import { OracleProvider } from '../oracle/oracle-provider.js';
import { renderSummary } from '../report/summary-md.js';
import { selectTasks } from '../tasks/suite.js';
import type { Task } from '../tasks/task.js';
import {
  generateWorkspace,
  type Workspace,
  workspaceDigest,
  writeWorkspace,
} from '../workspace/generate-workspace.js';
import { writeRunFiles } from './run-files.js';
import { sessionAgent } from './session-agent.js';
import { SessionRecorder } from './session-recorder.js';
import {
  baselinePath,
  harnessCommit,
  outputFolder,
  realProvider,
  runPricing,
  systemPrompt,
} from './suite-setup.js';

/** What a finished suite run produced. */
export interface SuiteResult {
  /** The output folder. */
  readonly out: string;
  /** The report (also in `report.json`). */
  readonly report: Report;
  /** The comparison with the baseline, when there was one. */
  readonly comparison?: Comparison;
  /** Wall time of the run, ms. */
  readonly wallMs: number;
}

/** Collaborators of a run (tests give their own). */
export interface SuiteIo {
  /** The progress line (default: on stderr when it is a TTY). */
  readonly progress?: boolean | ProgressSink;
  /** Environment with the API keys (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
  /** The real provider, instead of building one from the options (tests). */
  readonly provider?: Provider;
}

interface Session {
  readonly task: Task;
  readonly recorder: SessionRecorder;
  grade?: Grade;
}

/** The check of a task: grades the session's recorder, keyed by the runs it saw. */
function gradeCheck(task: Task, workspace: Workspace, sessions: ReadonlyMap<string, Session>) {
  const expected = task.expected(workspace);
  const inFiles = [...workspace.files.values()].some((text) => text.includes(expected));
  return check(
    `final ANSWER line, ${task.comparator.description}`,
    (input: CheckInput) => {
      const runId = input.runs[0]?.runId;
      const session = [...sessions.values()].find((entry) =>
        entry.recorder.runIds.includes(runId ?? ''),
      );
      if (!session) throw new Error(`no recorded session for run ${runId}`);
      session.grade = gradeSession(task, workspace, session.recorder.trace());
      return {
        passed: session.grade.outcome === 'correct',
        reason: `${session.grade.outcome}: ${session.grade.reason}`,
      };
    },
    // A literal answer is a fact attribution can look for in compacted-away history.
    { facts: inFiles ? [expected] : [], tags: task.category === 'format' ? ['format'] : [] },
  );
}

/** The baseline report; a file that is missing or not a report is a `ConfigError` on `--baseline`. */
async function loadBaseline(path: string): Promise<Report> {
  try {
    return await Report.load(path);
  } catch (error) {
    if (!ConfigError.isInstance(error)) throw error;
    // Report.load names `path` with the path in its text, or a field of the file's content.
    const problem =
      error.field === 'path' ? error.message.slice('path: '.length) : `${path}: ${error.message}`;
    throw new ConfigError('--baseline', problem, { cause: error });
  }
}

/**
 * Runs the suite: writes the workspace to a temp folder, runs every selected task `repeats` times
 * through `EvalRunner` (a fresh real Agent per session, the oracle in a dry run), grades each
 * session, writes every run with its spans, `report.json`, a baseline comparison and `summary.md`.
 */
export async function runSuite(options: SuiteOptions, io: SuiteIo = {}): Promise<SuiteResult> {
  const started = performance.now();
  const startedAt = new Date();
  const tasks = selectTasks(options.cases);
  const pricing = runPricing(options);
  const system = await systemPrompt(options);
  const provider = options.dryRun
    ? undefined
    : (io.provider ?? (await realProvider(options, io.env)));
  const out = outputFolder(options, startedAt);
  if (existsSync(join(out, 'report.json')))
    throw new ConfigError('--out', `${out} already holds a report; choose another folder`);
  const baseline = baselinePath(options);
  // Read before any session runs: a bad --baseline found after the run has already paid a model.
  const baselineReport = baseline === undefined ? undefined : await loadBaseline(baseline);
  const workspace = generateWorkspace(options.seed);
  const root = await mkdtemp(join(tmpdir(), 'mh-evals-workspace-'));
  try {
    await writeWorkspace(workspace, root);
    await mkdir(out, { recursive: true });
    const mode = options.dryRun ? 'dry-run' : 'real';
    const facts: [string, string][] = [
      ['mode', options.dryRun ? 'DRY RUN (scripted oracle, offline)' : 'real model'],
      [
        'provider',
        options.dryRun
          ? 'oracle'
          : `${options.provider}${options.baseURL ? ` at ${options.baseURL}` : ''}`,
      ],
      ['model', options.model],
      [
        'sessions',
        `${tasks.length} task${tasks.length === 1 ? '' : 's'} × ${options.repeats} repeat${options.repeats === 1 ? '' : 's'}, ${options.concurrency} at once`,
      ],
      ['workspace seed', String(options.seed)],
      ['workspace files', workspaceDigest(workspace)],
      ['harness commit', harnessCommit()],
      ['prompt cache', options.cache ? 'on' : 'off (--no-cache)'],
      ['compaction', options.compaction ? 'on' : 'off (--no-compaction)'],
      ['injection defence', options.fencing ? 'on' : 'off (--no-injection-defense)'],
      ['system prompt', system.label],
      [
        'prices',
        pricing.price
          ? `${pricing.price.inputPerMTok}/${pricing.price.outputPerMTok} USD per M tokens in/out (${pricing.source})`
          : 'none known',
      ],
      ['started', startedAt.toISOString()],
    ];
    const labels = Object.fromEntries([
      ['mode', mode],
      ...facts.filter(([key]) => key !== 'mode' && key !== 'started'),
    ]);
    const sessions = new Map<string, Session>();
    const cases = tasks.map(
      (task) =>
        new EvalCase({
          name: task.id,
          prompts: task.prompts,
          tags: [task.category],
          check: gradeCheck(task, workspace, sessions),
        }),
    );
    const byId = new Map(tasks.map((task) => [task.id, task]));
    const runner = new EvalRunner(
      (evalCase, context) => {
        const task = byId.get(evalCase.name);
        if (!task) throw new ConfigError('case', `no task ${evalCase.name}`);
        const agent = sessionAgent(task, {
          workspaceRoot: root,
          provider: provider ?? new OracleProvider(task.oracle, task.prompts),
          model: options.model,
          system: system.text,
          pricing: pricing.table,
          fencing: options.fencing,
          compaction: options.compaction,
          tracer: context.tracer,
          timeoutMs: options.sessionTimeoutMs,
        });
        const recorder = new SessionRecorder(agent);
        recorder.spans = () => context.tracer.records();
        sessions.set(`${task.id}#${context.repeat}`, { task, recorder });
        return recorder;
      },
      cases,
      {
        concurrency: options.concurrency,
        repeats: options.repeats,
        timeoutMs: options.sessionTimeoutMs,
        labels,
        ...(io.progress === undefined ? {} : { progress: io.progress }),
        onRun: (run) => {
          const session = sessions.get(`${run.case}#${run.repeat}`);
          const task = byId.get(run.case);
          if (!task) return;
          writeRunFiles(
            out,
            {
              mode,
              case: run.case,
              category: task.category,
              repeat: run.repeat,
              ...(session?.grade ? { grade: session.grade } : {}),
              run,
            },
            session?.recorder,
          );
        },
      },
    );
    const report = await runner.run();
    await report.save(join(out, 'report.json'));
    let comparison: Comparison | undefined;
    if (baseline !== undefined && baselineReport !== undefined) {
      comparison = report.compare(baselineReport, {
        method: 'interval',
        allowMissing: true,
      });
      const data = { mode, baseline, ...comparison.toJSON() };
      await writeFile(join(out, 'comparison.json'), `${JSON.stringify(data, null, 2)}\n`);
    }
    const wallMs = performance.now() - started;
    const summary = renderSummary({
      dryRun: options.dryRun,
      model: options.model,
      repeats: options.repeats,
      tasks,
      report,
      facts,
      priced: pricing.price !== undefined,
      fencing: options.fencing,
      ...(baseline && comparison ? { baseline: { path: baseline, comparison } } : {}),
      wallMs,
    });
    await writeFile(join(out, 'summary.md'), summary);
    return { out, report, ...(comparison ? { comparison } : {}), wallMs };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
