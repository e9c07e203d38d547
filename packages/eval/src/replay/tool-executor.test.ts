import { ReplayDriftError, type ToolExecutor, type ToolOutcome, type ToolUseBlock } from '@mh/core';
import { collect } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import { CountingExecutor, tempCassette } from '../../test/helpers.js';
import { openCassette } from '../cassette/cassette.js';
import type { CassetteMode } from '../cassette/format.js';
import { RecordingToolExecutor } from '../recording/tool-executor.js';
import { ReplayToolExecutor, UNRECORDED_TOOL_TEXT } from './tool-executor.js';

const KEY = { case: 'tools', repeat: 0 };

function call(id: string, query: string): ToolUseBlock {
  return { type: 'tool_use', id, name: 'lookup', input: { query } };
}

/** The outcomes of `calls`; the ids of their `tool-start`s go to `starts`. */
async function run(
  executor: ToolExecutor,
  calls: ToolUseBlock[],
  starts: string[] = [],
): Promise<ToolOutcome[]> {
  const outcomes: ToolOutcome[] = [];
  for await (const event of executor.execute(calls, { signal: new AbortController().signal })) {
    if (event.type === 'tool-start') starts.push(event.call.id);
    else outcomes.push(event.outcome);
  }
  return outcomes;
}

/** Records two calls of `lookup`, returns the path. */
async function recorded(): Promise<string> {
  const path = tempCassette();
  const cassette = await openCassette(path, { mode: 'record' });
  const executor = cassette.tools(new CountingExecutor(), KEY);
  expect(executor).toBeInstanceOf(RecordingToolExecutor);
  await run(executor, [call('t1', 'orders'), call('t2', 'refunds')]);
  await cassette.close();
  return path;
}

async function replayer(path: string, mode: CassetteMode = 'lockdown', strict = true) {
  const cassette = await openCassette(path, { mode, strict });
  const inner = new CountingExecutor();
  const executor = cassette.tools(inner, KEY) as ReplayToolExecutor;
  expect(executor).toBeInstanceOf(ReplayToolExecutor);
  return { cassette, inner, executor };
}

describe('ReplayToolExecutor', () => {
  it('serves recorded results, each after its tool-start, without running the tool', async () => {
    const { inner, executor } = await replayer(await recorded());
    const starts: string[] = [];
    const outcomes = await run(executor, [call('t1', 'orders'), call('t2', 'refunds')], starts);
    expect(inner.runs).toBe(0);
    expect(starts).toEqual(['t1', 't2']);
    expect(outcomes.map((outcome) => [outcome.status, outcome.result])).toEqual([
      [
        'ok',
        {
          type: 'tool_result',
          toolUseId: 't1',
          content: [{ type: 'text', text: 'result of orders' }],
          isError: false,
        },
      ],
      [
        'ok',
        {
          type: 'tool_result',
          toolUseId: 't2',
          content: [{ type: 'text', text: 'result of refunds' }],
          isError: false,
        },
      ],
    ]);
    expect(outcomes[0]).toMatchObject({ attempts: 1, durationMs: 3, permission: 'write' });
    expect(executor.specs()).toEqual(inner.specs());
    expect(executor.finish()).toEqual([]);
  });

  it('fails a call whose input drifted in strict mode, naming the field', async () => {
    const { executor } = await replayer(await recorded());
    const error = await run(executor, [call('t1', 'customers')]).catch((e) => e);
    expect(ReplayDriftError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      path: 'toolCalls.t1.input.query',
      recorded: 'orders',
      actual: 'customers',
    });
  });

  it('serves the recorded result and reports the drift when not strict', async () => {
    const { executor } = await replayer(await recorded(), 'lockdown', false);
    const [outcome] = await run(executor, [call('t1', 'customers')]);
    expect(outcome?.result.content).toEqual([{ type: 'text', text: 'result of orders' }]);
    expect(executor.drifts.map((drift) => [drift.kind, drift.path])).toEqual([
      ['tool-call', 'toolCalls.t1.input.query'],
    ]);
  });

  it('answers an unrecorded call with an error result in a lenient lockdown', async () => {
    const { inner, executor } = await replayer(await recorded(), 'lockdown', false);
    const [outcome] = await run(executor, [call('t9', 'x')]);
    expect(inner.runs).toBe(0);
    expect(outcome).toMatchObject({ status: 'error', result: { isError: true, toolUseId: 't9' } });
    expect(outcome?.result.content).toEqual([{ type: 'text', text: UNRECORDED_TOOL_TEXT }]);
    expect(executor.drifts[0]).toMatchObject({
      kind: 'unrecorded-tool-call',
      path: 'toolCalls.t9',
    });
  });

  it('fails an unrecorded call in a strict lockdown', async () => {
    const { executor } = await replayer(await recorded());
    const error = await run(executor, [call('t9', 'x')]).catch((e) => e);
    expect(ReplayDriftError.isInstance(error)).toBe(true);
    expect(error.path).toBe('toolCalls.t9');
  });

  it('runs and records an unrecorded call in replay mode', async () => {
    const path = await recorded();
    const { inner, executor, cassette } = await replayer(path, 'replay');
    const [outcome] = await run(executor, [call('t3', 'stock')]);
    expect(inner.runs).toBe(1);
    expect(outcome?.result.content).toEqual([{ type: 'text', text: 'result of stock' }]);
    await cassette.close();

    const again = await replayer(path);
    await run(again.executor, [call('t1', 'orders'), call('t2', 'refunds'), call('t3', 'stock')]);
    expect(again.inner.runs).toBe(0);
    expect(again.executor.finish()).toEqual([]);
  });

  it('reports recorded calls that were never made', async () => {
    const { executor, cassette } = await replayer(await recorded());
    await run(executor, [call('t1', 'orders')]);
    const { drifts } = await cassette.close();
    expect(drifts).toMatchObject([
      { kind: 'unconsumed-tool-calls', path: 'toolCalls', recorded: 1, actual: 0 },
    ]);
    expect(drifts[0]?.message).toContain('["t2"]');
  });

  it('starts nothing once the batch is aborted', async () => {
    const { executor } = await replayer(await recorded());
    const events = await collect(
      executor.execute([call('t1', 'orders')], { signal: AbortSignal.abort() }),
    );
    expect(events).toEqual([]);
  });
});
