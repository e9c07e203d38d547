import { ReplayDriftError } from '@mh/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { attribute, openCassette } from '../src/index.js';
import {
  type AgentSettings,
  cassetteAgent,
  lookupRuns,
  PROMPT,
  scriptedModel,
} from './agent-fixture.js';
import { tempCassette } from './helpers.js';

const KEY = { case: 'orders', repeat: 0 };

/** Records one run of the default agent (`lookup` is a `write` tool, `write` granted). */
async function recordRun(): Promise<string> {
  const path = tempCassette();
  const cassette = await openCassette(path, { mode: 'record' });
  const { agent } = cassetteAgent(cassette, KEY, scriptedModel());
  expect((await agent.run(PROMPT)).status).toBe('completed');
  await cassette.close();
  return path;
}

async function replayRun(path: string, settings: AgentSettings, strict: boolean) {
  const cassette = await openCassette(path, { mode: 'lockdown', strict });
  const { agent } = cassetteAgent(cassette, KEY, undefined, settings);
  const result = await agent.run(PROMPT);
  const { drifts } = await cassette.close();
  return { result, drifts };
}

beforeEach(() => {
  lookupRuns.count = 0;
});

describe('replaying an agent run after a permission change', () => {
  it('lists every served call the current grants would deny, and still answers as recorded', async () => {
    const path = await recordRun();
    const { result, drifts } = await replayRun(path, { grants: [] }, false);
    expect(result.status).toBe('completed');
    expect(lookupRuns.count).toBe(2);
    expect(drifts.map((drift) => [drift.kind, drift.path])).toEqual([
      ['tool-decision', 'toolCalls.toolu_1.status'],
      ['tool-decision', 'toolCalls.toolu_2.status'],
    ]);
    expect(drifts[0]?.message).toContain(
      "recorded: ran (ok); now: denied — 'write' tools are not allowed in this session",
    );
  });

  it('fails a strict replay and attributes it to the harness, clustered by field', async () => {
    const path = await recordRun();
    const { result } = await replayRun(path, { grants: [] }, true);
    expect(result.status).toBe('error');
    expect(ReplayDriftError.isInstance(result.error)).toBe(true);
    expect(result.error).toMatchObject({ path: 'toolCalls.toolu_1.status', requestIndex: 0 });
    const verdict = attribute({
      results: [result],
      error: result.error,
      check: { status: 'skipped' },
    });
    expect(verdict).toMatchObject({ layer: 'harness', rule: 'harness/replay-drift' });
    expect(verdict.signature).toContain('toolCalls.<call>.status');
  });

  it('attributes a changed tool permission to the harness at the permission field', async () => {
    const path = await recordRun();
    const { result } = await replayRun(path, { lookupPermission: 'read' }, true);
    expect(result.error).toMatchObject({ path: 'toolCalls.toolu_1.permission' });
    const verdict = attribute({
      results: [result],
      error: result.error,
      check: { status: 'skipped' },
    });
    expect(verdict).toMatchObject({ layer: 'harness', rule: 'harness/replay-drift' });
    expect(verdict.signature).toContain('toolCalls.<call>.permission');
  });

  it('finds nothing when the grants and tools are those recorded', async () => {
    const path = await recordRun();
    const { result, drifts } = await replayRun(path, {}, true);
    expect(result.status).toBe('completed');
    expect(drifts).toEqual([]);
  });
});
