import {
  type AgentEvent,
  ConfigError,
  type InMemoryTracer,
  type RunResult,
  SPAN_ATTRIBUTES,
  SPAN_NAMES,
  ZERO_USAGE,
} from '@mh/core';
import { describe, expect, it } from 'vitest';
import { fixtureAgent, MODEL, PRICING } from '../../test/session-fixture.js';
import { check } from '../checks/check.js';
import { contains } from '../checks/text.js';
import type { EvalAgent } from './agent.js';
import { EvalCase } from './eval-case.js';
import { EvalRunner } from './runner.js';

const answers42 = new EvalCase({
  name: 'answers-42',
  prompt: 'What is 6*7?',
  check: contains('42'),
  tags: ['math'],
});

function answering(text: string): EvalAgent {
  return fixtureAgent({ turns: [{ text }] });
}

describe('EvalRunner', () => {
  it('runs every case repeats times, each session on a fresh agent and tracer', async () => {
    const tracers = new Set<InMemoryTracer>();
    const seen: string[] = [];
    const other = new EvalCase({ name: 'says-hi', prompt: 'Greet.', check: contains('hi') });
    const report = await new EvalRunner(
      (evalCase, { tracer, repeat }) => {
        tracers.add(tracer);
        seen.push(`${evalCase.name}#${repeat}`);
        return fixtureAgent({
          turns: [{ text: evalCase.name === 'says-hi' ? 'hi there' : '42' }],
          tracer,
        });
      },
      [answers42, other],
      { repeats: 3, concurrency: 2 },
    ).run();
    expect(tracers.size).toBe(6);
    expect(seen.sort()).toEqual([
      'answers-42#0',
      'answers-42#1',
      'answers-42#2',
      'says-hi#0',
      'says-hi#1',
      'says-hi#2',
    ]);
    expect(report.runs.map((run) => `${run.case}#${run.repeat}`)).toEqual([
      'answers-42#0',
      'answers-42#1',
      'answers-42#2',
      'says-hi#0',
      'says-hi#1',
      'says-hi#2',
    ]);
    expect(report.runs.every((run) => run.passed && run.completed && run.metrics.turns === 1)).toBe(
      true,
    );
    expect(report.meta).toMatchObject({ repeats: 3, concurrency: 2 });
  });

  it('never runs more sessions at once than its concurrency', async () => {
    let running = 0;
    let most = 0;
    const cases = ['a', 'b', 'c', 'd', 'e'].map(
      (name) => new EvalCase({ name, prompt: 'p', check: contains('ok') }),
    );
    await new EvalRunner(
      () => ({
        async *stream(prompt, options) {
          running++;
          most = Math.max(most, running);
          await new Promise((resolve) => setTimeout(resolve, 5));
          running--;
          yield* fixtureAgent({ turns: [{ text: 'ok' }] }).stream(prompt, options);
        },
      }),
      cases,
      { repeats: 2, concurrency: 3 },
    ).run();
    expect(most).toBe(3);
  });

  it('combines every run of a multi-prompt case; each run span keeps its own cost (SPEC defect 2)', async () => {
    const spans: InMemoryTracer[] = [];
    const session = new EvalCase({
      name: 'two-prompts',
      prompts: ['Open ORD-7.', 'Total?'],
      check: contains('$42'),
    });
    const report = await new EvalRunner(
      (_case, { tracer }) => {
        spans.push(tracer);
        return fixtureAgent({
          tracer,
          turns: [
            { text: 'Opened ORD-7.', usage: { input: 1000, output: 100 } },
            { text: 'The total is $42.', usage: { input: 2000, output: 300 } },
          ],
        });
      },
      [session],
      { repeats: 1 },
    ).run();
    const [run] = report.runs;
    expect(run?.metrics).toMatchObject({ runs: 2, turns: 2, tokens: { input: 3000, output: 400 } });
    const firstCost =
      PRICING.cost(MODEL, {
        inputTokens: 1000,
        outputTokens: 100,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      }) ?? 0;
    const secondCost =
      PRICING.cost(MODEL, {
        inputTokens: 2000,
        outputTokens: 300,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      }) ?? 0;
    expect(run?.metrics.costUsd).toBeCloseTo(firstCost + secondCost, 12);
    const runSpans = spans[0]?.records().filter((span) => span.name === SPAN_NAMES.run) ?? [];
    expect(runSpans.map((span) => span.attributes[SPAN_ATTRIBUTES.costUsd])).toEqual([
      firstCost,
      secondCost,
    ]);
    expect(run?.passed).toBe(true);
  });

  it('stops a session at the first prompt that does not complete', async () => {
    const session = new EvalCase({
      name: 'guarded',
      prompts: ['one', 'two'],
      check: contains('x'),
    });
    const report = await new EvalRunner(
      (_case, { tracer }) =>
        fixtureAgent({
          tracer,
          turns: [
            { calls: [{ name: 'lookup', input: { id: 1 } }] },
            { calls: [{ name: 'lookup', input: { id: 2 } }] },
          ],
          tools: { lookup: { run: () => 'ok' } },
          limits: { maxTurns: 1 },
        }),
      [session],
      { repeats: 1 },
    ).run();
    expect(report.runs[0]).toMatchObject({
      status: 'guard',
      guard: 'max-turns',
      completed: false,
      passed: false,
      metrics: { runs: 1 },
    });
    expect(report.runs[0]?.attribution).toMatchObject({ layer: 'harness', rule: 'harness/guard' });
  });

  it('counts a run that throws as an incomplete failure, attributed to the harness', async () => {
    const report = await new EvalRunner(
      () => ({
        // biome-ignore lint/correctness/useYield: an agent that fails before its first event
        async *stream(): AsyncGenerator<AgentEvent> {
          throw new TypeError('agent exploded');
        },
      }),
      [answers42],
      { repeats: 1 },
    ).run();
    expect(report.runs[0]).toMatchObject({
      status: 'threw',
      completed: false,
      passed: false,
      error: { name: 'TypeError' },
    });
    expect(report.runs[0]?.attribution?.rule).toBe('harness/exception');
  });

  it('attributes a factory that throws, and a check that throws, to eval', async () => {
    const broken = new EvalCase({
      name: 'broken-check',
      prompt: 'p',
      check: check('explodes', () => {
        throw new Error('bug in check');
      }),
    });
    const noAgent = new EvalCase({ name: 'no-agent', prompt: 'p', check: contains('x') });
    const report = await new EvalRunner(
      (evalCase) => {
        if (evalCase.name === 'no-agent') throw new Error('missing fixture');
        return answering('fine');
      },
      [broken, noAgent],
      { repeats: 1 },
    ).run();
    expect(report.runs[0]).toMatchObject({
      completed: true,
      passed: false,
      checkError: 'bug in check',
      attribution: { rule: 'eval/check-threw' },
    });
    expect(report.runs[1]).toMatchObject({
      status: 'factory-error',
      completed: false,
      attribution: { rule: 'eval/factory-threw' },
    });
  });

  it('times a session out through its signal', async () => {
    const slow = new EvalCase({ name: 'slow', prompt: 'p', check: contains('x') });
    const report = await new EvalRunner(
      (_case, { signal }) => ({
        async *stream() {
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          const result: RunResult = {
            runId: 'run_1',
            status: 'cancelled',
            text: '',
            turns: 0,
            usage: ZERO_USAGE,
            costUsd: 0,
            durationMs: 20,
            messages: [],
            newMessages: [],
            repairs: [],
            compactions: [],
          };
          yield { type: 'run-end', result } as AgentEvent;
        },
      }),
      [slow],
      { repeats: 1, timeoutMs: 20 },
    ).run();
    expect(report.runs[0]).toMatchObject({
      status: 'timeout',
      completed: false,
      attribution: { rule: 'harness/guard' },
    });
  });

  it('reports a session as timed out when its agent throws on the abort', async () => {
    // Agents that wrap fetch or a child process reject with an AbortError when aborted rather
    // than end the run as cancelled: that is still the runner's timeout, not an exception.
    const slow = new EvalCase({ name: 'slow', prompt: 'p', check: contains('x') });
    const report = await new EvalRunner(
      (_case, { signal }) => ({
        async *stream() {
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          throw new DOMException('This operation was aborted', 'AbortError');
        },
      }),
      [slow],
      { repeats: 1, timeoutMs: 20 },
    ).run();
    expect(report.runs[0]).toMatchObject({
      status: 'timeout',
      completed: false,
      attribution: { layer: 'harness', rule: 'harness/guard' },
    });
    expect(report.runs[0]?.attribution?.summary).toContain('runner timeout');
  });

  it('treats a malformed run result as a harness failure, not a crash', async () => {
    const report = await new EvalRunner(
      () => ({
        async *stream() {
          yield {
            type: 'run-end',
            result: { status: 'completed', text: '42' },
          } as unknown as AgentEvent;
        },
      }),
      [answers42],
      { repeats: 1 },
    ).run();
    expect(report.runs[0]).toMatchObject({
      status: 'threw',
      attribution: { rule: 'harness/exception' },
    });
  });

  it('leaves behind an agent that ignores the abort', async () => {
    const stuck = new EvalCase({ name: 'stuck', prompt: 'p', check: contains('x') });
    const report = await new EvalRunner(
      () => ({
        async *stream() {
          await new Promise(() => {});
        },
      }),
      [stuck],
      { repeats: 1, timeoutMs: 10 },
    ).run();
    expect(report.runs[0]).toMatchObject({ status: 'timeout', completed: false });
  });

  it('keeps the process alive while it waits out an agent that ignores the abort', async () => {
    // An agent stuck on a promise nothing settles holds no timer or socket, so only the runner's
    // grace timer keeps Node running until the session is given up. Unreferenced, it let the
    // process exit mid-run (code 13 under a top-level await) with no report at all.
    const stuck = new EvalCase({ name: 'stuck', prompt: 'p', check: contains('x') });
    const timers = (): number =>
      process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;
    let seeAbort: () => void = () => {};
    const aborted = new Promise<void>((resolve) => {
      seeAbort = resolve;
    });
    const before = timers();
    const running = new EvalRunner(
      (_case, { signal }) => {
        signal.addEventListener('abort', () => seeAbort(), { once: true });
        return {
          async *stream() {
            await new Promise(() => {});
          },
        };
      },
      [stuck],
      { repeats: 1, timeoutMs: 10 },
    ).run();
    await aborted;
    const whileWaiting = timers();
    const report = await running;
    expect(whileWaiting).toBeGreaterThan(before);
    expect(report.runs[0]).toMatchObject({ status: 'timeout', completed: false });
  });

  it('lets a session waiting on a timer finish while agents that never wait keep the runner busy', async () => {
    const order: string[] = [];
    const busy = Array.from(
      { length: 60 },
      (_, index) => new EvalCase({ name: `busy-${index}`, prompt: 'p', check: contains('ok') }),
    );
    const waiting = new EvalCase({ name: 'waits', prompt: 'p', check: contains('ok') });
    await new EvalRunner(
      (evalCase) => ({
        async *stream(prompt, options) {
          // A retry backoff or a tool timeout: a real timer, not a microtask.
          if (evalCase.name === 'waits') await new Promise((resolve) => setTimeout(resolve, 1));
          yield* fixtureAgent({ turns: [{ text: 'ok' }] }).stream(prompt, options);
        },
      }),
      [waiting, ...busy],
      { repeats: 1, concurrency: 4, onRun: (run) => order.push(run.case) },
    ).run();
    expect(order.indexOf('waits')).toBeLessThan(order.length - 1);
    expect(order.indexOf('waits')).toBeLessThan(20);
  });

  it('draws a progress line only on the sink it is given', async () => {
    const written: string[] = [];
    const report = await new EvalRunner(() => answering('42'), [answers42], {
      repeats: 2,
      progress: { write: (text) => written.push(text) },
    }).run();
    expect(written.filter((text) => text.startsWith('\r'))).toHaveLength(2);
    expect(written.at(-2)).toContain('eval 2/2 · 2 passed · 0 failed');
    expect(written.at(-1)).toBe('\n');
    expect(report.runs).toHaveLength(2);
  });

  it('reports each session to onRun as it finishes, and rejects with what onRun threw', async () => {
    const names: string[] = [];
    await new EvalRunner(() => answering('42'), [answers42], {
      repeats: 2,
      onRun: (run) => names.push(run.case),
    }).run();
    expect(names).toEqual(['answers-42', 'answers-42']);
    await expect(
      new EvalRunner(() => answering('42'), [answers42], {
        repeats: 2,
        onRun: () => {
          throw new Error('sink full');
        },
      }).run(),
    ).rejects.toThrow('sink full');
  });

  it('rejects bad arguments with the field', () => {
    const factory = (): EvalAgent => answering('x');
    expect(() => new EvalRunner('x' as never, [answers42])).toThrow(/factory/);
    expect(() => new EvalRunner(factory, [])).toThrow(/cases/);
    expect(() => new EvalRunner(factory, [answers42, answers42])).toThrow(/cases\[1\]\.name/);
    expect(() => new EvalRunner(factory, [{} as never])).toThrow(/cases\[0\]/);
    expect(() => new EvalRunner(factory, [answers42], { repeats: 0 })).toThrow(/options\.repeats/);
    expect(() => new EvalRunner(factory, [answers42], { concurrency: 1.5 })).toThrow(
      /options\.concurrency/,
    );
    expect(() => new EvalRunner(factory, [answers42], { timeoutMs: -1 })).toThrow(
      /options\.timeoutMs/,
    );
    expect(() => new EvalRunner(factory, [answers42], { progress: 'yes' as never })).toThrow(
      /options\.progress/,
    );
    expect(() => new EvalRunner(factory, [answers42], { labels: { a: 1 } as never })).toThrow(
      /options\.labels/,
    );
    expect(() => new EvalRunner(factory, [answers42], { retries: 1 } as never)).toThrow(
      ConfigError,
    );
  });
});
