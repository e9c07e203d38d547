import {
  type Permission,
  type PermissionPolicy,
  ReplayDriftError,
  type ToolExecutor as ToolExecutorPort,
  type ToolOutcome,
  type ToolUseBlock,
} from '@mh/core';
import { collectOutcomes } from '@mh/core/testing';
import { defineTool, ToolExecutor, z } from '@mh/tools';
import { describe, expect, it } from 'vitest';
import { tempCassette } from '../../test/helpers.js';
import { openCassette } from '../cassette/cassette.js';
import type { ReplayToolExecutor } from './tool-executor.js';

const KEY = { case: 'shell', repeat: 0 };

/** Real runs of the `shell` tool: a replay must never add to them. */
let runs = 0;

function shellTool(permission: Permission = 'exec') {
  return defineTool({
    name: 'shell',
    description: 'Runs a command.',
    input: z.object({ command: z.string() }),
    permission,
    run: ({ command }) => {
      runs++;
      return `ran ${command}`;
    },
  });
}

const CALL: ToolUseBlock = { type: 'tool_use', id: 't1', name: 'shell', input: { command: 'ls' } };

async function run(executor: ToolExecutorPort): Promise<ToolOutcome[]> {
  return collectOutcomes(executor.execute([CALL], { signal: new AbortController().signal }));
}

/** Records one `shell` call through `executor`; returns the cassette path. */
async function recordWith(executor: ToolExecutorPort): Promise<string> {
  const path = tempCassette();
  const cassette = await openCassette(path, { mode: 'record' });
  await run(cassette.tools(executor, KEY));
  await cassette.close();
  return path;
}

/** Replays the recording through `executor`, leniently unless `strict`. */
async function replayWith(path: string, executor: ToolExecutorPort, strict = false) {
  const cassette = await openCassette(path, { mode: 'lockdown', strict });
  const replay = cassette.tools(executor, KEY) as ReplayToolExecutor;
  const before = runs;
  const outcomes = await run(replay);
  expect(runs).toBe(before);
  const { drifts } = await cassette.close();
  return { outcomes, drifts };
}

const shellWith = (grants: Permission[], permission: Permission = 'exec') =>
  new ToolExecutor({ tools: [shellTool(permission)], grants });

describe('ReplayToolExecutor with a previewing executor', () => {
  it('finds a recorded run that the current grants would deny, at the status field', async () => {
    const path = await recordWith(shellWith(['exec']));
    const { outcomes, drifts } = await replayWith(path, shellWith([]));
    expect(outcomes[0]?.status).toBe('ok');
    expect(drifts).toMatchObject([
      { kind: 'tool-decision', path: 'toolCalls.t1.status', recorded: 'ok', actual: 'denied' },
    ]);
    expect(drifts[0]?.message).toContain(
      "tool call t1 (shell): recorded: ran (ok); now: denied — 'exec' tools are not allowed in this session",
    );
  });

  it('finds a recorded denial that the current grants would run', async () => {
    const path = await recordWith(shellWith([]));
    const { outcomes, drifts } = await replayWith(path, shellWith(['exec']));
    expect(outcomes[0]?.status).toBe('denied');
    expect(drifts).toMatchObject([
      { kind: 'tool-decision', path: 'toolCalls.t1.status', recorded: 'denied', actual: 'run' },
    ]);
    expect(drifts[0]?.message).toContain('recorded: denied; now: would run');
  });

  it('finds a tool whose permission changed from exec to read, at the permission field', async () => {
    const path = await recordWith(shellWith(['exec']));
    const { drifts } = await replayWith(path, shellWith(['exec'], 'read'));
    expect(drifts).toMatchObject([
      {
        kind: 'tool-permission',
        path: 'toolCalls.t1.permission',
        recorded: 'exec',
        actual: 'read',
      },
    ]);
    expect(drifts[0]?.message).toContain("recorded: permission 'exec'; now: permission 'read'");
  });

  it('finds a permission change and the decision it flips, each at its field', async () => {
    const path = await recordWith(shellWith([]));
    const { drifts } = await replayWith(path, shellWith([], 'read'));
    expect(drifts.map((drift) => drift.path)).toEqual([
      'toolCalls.t1.permission',
      'toolCalls.t1.status',
    ]);
  });

  it('finds a recorded run of a tool that no longer exists', async () => {
    const path = await recordWith(shellWith(['exec']));
    const { drifts } = await replayWith(path, new ToolExecutor({ tools: [] }));
    expect(drifts).toMatchObject([
      {
        kind: 'tool-decision',
        path: 'toolCalls.t1.status',
        recorded: 'ok',
        actual: 'unknown-tool',
      },
    ]);
    expect(drifts[0]?.message).toContain('recorded: ran (ok); now: unknown tool');
  });

  it('finds nothing when tools and grants are unchanged', async () => {
    for (const grants of [['exec'], []] as Permission[][]) {
      const path = await recordWith(shellWith(grants));
      expect((await replayWith(path, shellWith(grants))).drifts).toEqual([]);
    }
  });

  it('compares no decision under a policy without preview', async () => {
    const path = await recordWith(shellWith(['exec']));
    const policy: PermissionPolicy = { check: () => ({ allow: false, reason: 'never' }) };
    const executor = new ToolExecutor({ tools: [shellTool()], policy });
    expect((await replayWith(path, executor)).drifts).toEqual([]);
  });

  it('compares no decision where the policy would ask a human, and never asks', async () => {
    const path = await recordWith(shellWith(['exec']));
    let asked = 0;
    const executor = new ToolExecutor({ tools: [shellTool()], approve: () => ++asked > 0 });
    expect((await replayWith(path, executor)).drifts).toEqual([]);
    expect(asked).toBe(0);
  });

  it('fails a strict replay with ReplayDriftError naming the status field', async () => {
    const path = await recordWith(shellWith(['exec']));
    const error = await replayWith(path, shellWith([]), true).catch((caught) => caught);
    expect(ReplayDriftError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ path: 'toolCalls.t1.status', recorded: 'ok', actual: 'denied' });
  });

  it('fails a strict replay with ReplayDriftError naming the permission field', async () => {
    const path = await recordWith(shellWith(['exec']));
    const error = await replayWith(path, shellWith(['exec'], 'read'), true).catch((c) => c);
    expect(ReplayDriftError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ path: 'toolCalls.t1.permission' });
  });

  it('reports a preview that throws as a finding and keeps serving a lenient replay', async () => {
    const path = await recordWith(shellWith(['exec']));
    const inner = shellWith(['exec']);
    const broken: ToolExecutorPort = {
      specs: () => inner.specs(),
      execute: (calls, context) => inner.execute(calls, context),
      preview: async () => {
        throw new Error('policy service unreachable');
      },
    };
    const { outcomes, drifts } = await replayWith(path, broken);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['ok']);
    expect(drifts).toMatchObject([
      {
        kind: 'tool-decision',
        path: 'toolCalls.t1.status',
        recorded: 'ok',
        actual: 'preview-failed',
      },
    ]);
    expect(drifts[0]?.message).toContain('policy service unreachable');
    const error = await replayWith(path, broken, true).catch((caught) => caught);
    expect(ReplayDriftError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ path: 'toolCalls.t1.status', actual: 'preview-failed' });
  });

  it('forwards preview to the inner executor', async () => {
    const path = await recordWith(shellWith(['exec']));
    const cassette = await openCassette(path, { mode: 'lockdown' });
    const replay = cassette.tools(shellWith([]), KEY);
    expect(await replay.preview(CALL)).toMatchObject({ decision: 'denied', permission: 'exec' });
    await cassette.close().catch(() => undefined);
  });
});
