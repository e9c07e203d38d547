import { describe, expect, it } from 'vitest';
import { ProviderError } from '../errors.js';
import { runLoop } from '../loop/run-loop.js';
import type { RunResult } from '../loop/run-result.js';
import { type Message, userMessage } from '../messages/message.js';
import type { ToolSchema } from '../ports/tool.js';
import type { ToolExecutor } from '../ports/tool-executor.js';
import { SessionConflictError } from '../session-errors.js';
import { collectSettled } from '../testing/collect.js';
import {
  MemoryStepRunner,
  type RecordedStep,
  SimulatedCrashError,
} from '../testing/memory-step-runner.js';
import { ScriptedProvider, type ScriptedTurn } from '../testing/scripted-provider.js';
import { StubExecutor } from '../testing/stub-executor.js';
import { recordError, reviveError } from './error-record.js';
import { UNKNOWN_OUTCOME_TEXT } from './step-executor.js';

/** Two tool turns (a write and a read, then a second write) and an answer. */
const SCRIPT: readonly ScriptedTurn[] = [
  {
    toolCalls: [
      { id: 'w1', name: 'write', input: { n: 1 } },
      { id: 'r1', name: 'read', input: {} },
    ],
  },
  { text: ['thinking ', 'about it'], toolCalls: [{ id: 'w2', name: 'write', input: { n: 2 } }] },
  { text: ['done', '.'] },
];

interface Counts {
  write: number;
  read: number;
  /** Runs of each write, by its `n`. */
  writes?: Record<string, number>;
}

/** `write` is not idempotent, `read` is read-only: the preview says so, as `@mh/tools`' does. */
function tools(counts: Counts): ToolExecutor {
  const stub = new StubExecutor({
    write: async (input) => {
      counts.write++;
      const n = String((input as { n: number }).n);
      counts.writes = { ...counts.writes, [n]: (counts.writes?.[n] ?? 0) + 1 };
      return `wrote ${JSON.stringify(input)}`;
    },
    read: async () => {
      counts.read++;
      return 'data';
    },
  });
  return {
    specs: () => stub.specs(),
    execute: (calls, context) => stub.execute(calls, context),
    preview: async (call) => ({
      decision: 'run',
      permission: call.name === 'read' ? 'read' : 'write',
    }),
  };
}

async function attempt(
  provider: ScriptedProvider,
  counts: Counts,
  runner: MemoryStepRunner,
): Promise<RunResult> {
  const settled = await collectSettled(
    runLoop({
      provider,
      model: 'm',
      history: [userMessage('go', 'u1')],
      tools: tools(counts),
      steps: runner,
    }),
  );
  const end = settled.items.at(-1);
  if (end?.type !== 'run-end') throw settled.error ?? new Error('the run did not end');
  return end.result;
}

/** The history without ids, to compare runs whose model calls were made again. */
const contentOf = (history: readonly Message[]): unknown =>
  history.map(({ role, content }) => ({ role, content }));

describe('a durable run (LoopOptions.steps)', () => {
  it('takes each model call, claim and tool call as a named step, in order', async () => {
    const counts = { write: 0, read: 0 };
    const runner = new MemoryStepRunner('run-a');
    const result = await attempt(new ScriptedProvider(SCRIPT), counts, runner);
    expect(result.status).toBe('completed');
    expect(runner.log.map((step) => step.name)).toEqual([
      'model',
      'claim:write',
      'tool:write',
      'tool:read',
      'model',
      'claim:write',
      'tool:write',
      'model',
    ]);
    expect(counts).toMatchObject({ write: 2, read: 1 });
    // Ids come from the runner: the same on every replay.
    expect(result.runId).toBe('run_run-a_1');
    expect(result.messages.filter((m) => m.role === 'user').map((m) => m.id)).toEqual([
      'u1',
      'msg_run-a_2',
      'msg_run-a_3',
    ]);
  });

  it('replays a finished run from its record without calling the provider or a tool', async () => {
    const counts = { write: 0, read: 0 };
    const first = new MemoryStepRunner('run-b');
    const done = await attempt(new ScriptedProvider(SCRIPT), counts, first);
    const provider = new ScriptedProvider([]);
    const replayed = await attempt(provider, counts, new MemoryStepRunner('run-b', first.log));
    expect(provider.calls).toBe(0);
    expect(counts).toMatchObject({ write: 2, read: 1 });
    expect(replayed.messages).toEqual(done.messages);
    expect(replayed.usage).toEqual(done.usage);
  });

  // Every point a worker can die: before each step's body, and after it but before its record.
  const points = Array.from({ length: 8 }, (_, at) =>
    (['before', 'after'] as const).map((when) => ({ at, when })),
  ).flat();

  it.each(points)(
    'recovers a crash at step $at ($when its body) without running a write twice or paying twice for a recorded model call',
    async (crash) => {
      const baselineRunner = new MemoryStepRunner('run-c');
      const baseline = await attempt(
        new ScriptedProvider(SCRIPT),
        { write: 0, read: 0 },
        baselineRunner,
      );
      const counts: Counts = { write: 0, read: 0 };
      const provider = new ScriptedProvider(
        // Answers by the turn the request is at, however many calls were made before.
        (_index, request) =>
          SCRIPT[request.messages.filter((m) => m.role === 'assistant').length] as ScriptedTurn,
      );
      const crashed = new MemoryStepRunner('run-c', [], crash);
      const failed = await attempt(provider, counts, crashed);
      // The crash surfaces as the run's error (in-process stand-in for a dead worker).
      expect(failed.status).toBe('error');
      expect(failed.error?.message).toMatch(/simulated crash/);
      const recorded: readonly RecordedStep[] = crashed.log;
      const callsBefore = provider.calls;
      const replay = new MemoryStepRunner('run-c', recorded);
      const result = await attempt(provider, counts, replay);
      expect(result.status).toBe('completed');
      // A recorded model call is never made again; only one cut off before its record is.
      const recordedModelCalls = recorded.filter((step) => step.name === 'model').length;
      expect(provider.calls - callsBefore).toBe(3 - recordedModelCalls);
      // A non-idempotent write runs at most once. One whose claim was recorded and whose
      // outcome was not (the crash came in its step) is not run again: its outcome is unknown.
      const cutWrite = baselineRunner.log[crash.at]?.name === 'tool:write';
      const cutN = cutWrite ? (crash.at < 4 ? '1' : '2') : undefined;
      const expected = { '1': 1, '2': 1 };
      if (cutN !== undefined && crash.when === 'before') delete expected[cutN as '1' | '2'];
      expect(counts.writes).toEqual(expected);
      if (cutWrite) {
        // The cut-off write is not run again: the model reads that its outcome is unknown.
        expect(JSON.stringify(result.messages)).toContain(UNKNOWN_OUTCOME_TEXT);
      } else {
        expect(contentOf(result.messages)).toEqual(contentOf(baseline.messages));
        expect(JSON.stringify(result.messages)).not.toContain(UNKNOWN_OUTCOME_TEXT);
      }
      // Before its body, nothing ran twice: the run's own ids are the ones a crash-free attempt gives.
      if (crash.when === 'before') {
        const ours = (messages: readonly Message[]): string[] =>
          messages.filter((m) => m.role === 'user').map((m) => m.id);
        expect(ours(result.messages)).toEqual(ours(baseline.messages));
        expect(result.runId).toBe(baseline.runId);
      }
    },
  );

  it('records a model call that failed and throws the same typed error on a replay', async () => {
    const provider = new ScriptedProvider([
      { error: new ProviderError('overloaded', { kind: 'overloaded', status: 529 }) },
    ]);
    const runner = new MemoryStepRunner('run-d');
    const first = await attempt(provider, { write: 0, read: 0 }, runner);
    expect(first.status).toBe('error');
    const again = await attempt(
      new ScriptedProvider([]),
      { write: 0, read: 0 },
      new MemoryStepRunner('run-d', runner.log),
    );
    expect(again.status).toBe('error');
    const error = again.error;
    expect(ProviderError.isInstance(error) && error.kind).toBe('overloaded');
    expect(ProviderError.isInstance(error) && error.status).toBe(529);
  });

  it('refuses a wall-clock timeout: a replay returns recorded steps at once, so it would fall elsewhere', async () => {
    await expect(
      runLoop({
        provider: new ScriptedProvider([]),
        model: 'm',
        history: [userMessage('go', 'u1')],
        limits: { timeoutMs: 1000 },
        steps: new MemoryStepRunner('run-t'),
      }).next(),
    ).rejects.toMatchObject({ field: 'limits.timeoutMs' });
  });

  it("takes a typed answer's correction id from the runner, so a replay writes the same message", async () => {
    const schema: ToolSchema<{ n: number }> = {
      jsonSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      parse: (input) =>
        typeof (input as { n?: unknown })?.n === 'number'
          ? { success: true, value: input as { n: number } }
          : { success: false, issues: ['n: expected a number'] },
    };
    const output = { schema, strategy: 'native' as const };
    const script = (): ScriptedProvider =>
      new ScriptedProvider([{ text: '{"n":"x"}' }, { text: '{"n":1}' }], { nativeOutput: true });
    const ids = async (): Promise<string[]> => {
      const settled = await collectSettled(
        runLoop({
          provider: script(),
          model: 'm',
          history: [userMessage('go', 'u1')],
          output,
          steps: new MemoryStepRunner('run-o'),
        }),
      );
      const end = settled.items.at(-1);
      if (end?.type !== 'run-end') throw new Error('no end');
      expect(end.result.output).toEqual({ n: 1 });
      return end.result.messages.filter((m) => m.role === 'user').map((m) => m.id);
    };
    const first = await ids();
    expect(first).toHaveLength(2);
    expect(first[1]).toMatch(/^msg_run-o_/);
    expect(await ids()).toEqual(first);
  });

  it('refuses a steps option that is not a StepRunner, naming the field', async () => {
    await expect(
      runLoop({
        provider: new ScriptedProvider([]),
        model: 'm',
        history: [],
        steps: {} as never,
      }).next(),
    ).rejects.toMatchObject({ field: 'steps' });
  });
});

describe('recordError / reviveError', () => {
  it('keeps brands, name and data fields, so isInstance still recognises the error', () => {
    const revived = reviveError(
      JSON.parse(JSON.stringify(recordError(new SessionConflictError('s1', 'a', 'b')))),
    );
    expect(SessionConflictError.isInstance(revived)).toBe(true);
    expect(revived.name).toBe('SessionConflictError');
    expect(revived).toMatchObject({ sessionId: 's1', expectedHead: 'a', actualHead: 'b' });
  });

  it('records a thrown non-error as an Error with its text', () => {
    const record = recordError('boom');
    expect(record).toMatchObject({ name: 'Error', brands: [] });
    expect(reviveError(record).message).toContain('boom');
  });

  it('is not thrown by a crash of the engine itself', () => {
    expect(new SimulatedCrashError(3).message).toBe('simulated crash at step 3');
  });
});
