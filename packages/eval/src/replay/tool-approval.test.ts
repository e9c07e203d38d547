import { type ApprovalRequest, type ToolCallEvent, type ToolUseBlock, toolResult } from '@mh/core';
import { collect } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import { CountingExecutor, tempCassette } from '../../test/helpers.js';
import { openCassette } from '../cassette/cassette.js';
import type { ReplayToolExecutor } from './tool-executor.js';

const KEY = { case: 'approvals', repeat: 0 };
const ASK: ApprovalRequest = { reason: 'lookup needs approval', permission: 'write' };

const call = (id: string): ToolUseBlock => ({
  type: 'tool_use',
  id,
  name: 'lookup',
  input: { query: id },
});

/** `lookup` whose policy asks a person; it denies `denied-*` calls, as a denying policy did. */
class AskingExecutor extends CountingExecutor {
  approval(): Promise<ApprovalRequest | undefined> {
    return Promise.resolve(ASK);
  }

  override async *execute(
    calls: readonly ToolUseBlock[],
  ): AsyncGenerator<ToolCallEvent, void, undefined> {
    for (const one of calls) {
      if (!one.id.startsWith('denied')) {
        yield* super.execute([one]);
        continue;
      }
      yield { type: 'tool-start', call: one };
      const result = toolResult(one.id, 'Permission denied: lookup needs approval', true);
      yield {
        type: 'tool-end',
        outcome: { call: one, result, status: 'denied', attempts: 0, durationMs: 0 },
      };
    }
  }
}

/** A cassette holding an approved (ran) call and a denied one; returns its path. */
async function recorded(): Promise<string> {
  const path = tempCassette();
  const cassette = await openCassette(path, { mode: 'record' });
  const executor = cassette.tools(new AskingExecutor(), KEY);
  const signal = new AbortController().signal;
  await collect(executor.execute([call('ran-1'), call('denied-1')], { signal }));
  await cassette.close();
  return path;
}

describe('ReplayToolExecutor.approval', () => {
  it('asks where the current policy asks, for a call that ran or was never recorded', async () => {
    const cassette = await openCassette(await recorded(), { mode: 'lockdown' });
    const executor = cassette.tools(new AskingExecutor(), KEY) as ReplayToolExecutor;
    expect(await executor.approval(call('ran-1'))).toEqual(ASK);
    expect(await executor.approval(call('new-1'))).toEqual(ASK);
  });

  it('lets a call recorded as denied by the policy be served as denied, not wait', async () => {
    const cassette = await openCassette(await recorded(), { mode: 'lockdown' });
    const inner = new AskingExecutor();
    const executor = cassette.tools(inner, KEY) as ReplayToolExecutor;
    expect(await executor.approval(call('denied-1'))).toBeUndefined();
    const signal = new AbortController().signal;
    const events = await collect(executor.execute([call('ran-1'), call('denied-1')], { signal }));
    const statuses = events.flatMap((event) =>
      event.type === 'tool-end' ? [event.outcome.status] : [],
    );
    expect(statuses).toEqual(['ok', 'denied']);
    expect(inner.runs).toBe(0);
  });
});
