import { readFileSync, writeFileSync } from 'node:fs';
import { ReplayDriftError } from '@mh/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { type CassetteOptions, openCassette } from '../src/index.js';
import {
  type AgentSettings,
  cassetteAgent,
  lookupRuns,
  lookupText,
  PROMPT,
  scriptedModel,
} from './agent-fixture.js';
import { tempCassette } from './helpers.js';

const KEY = { case: 'orders', repeat: 0 };

async function recordRun(settings: AgentSettings): Promise<string> {
  const path = tempCassette();
  const cassette = await openCassette(path, { mode: 'record' });
  const { agent } = cassetteAgent(cassette, KEY, scriptedModel(), settings);
  expect((await agent.run(PROMPT)).status).toBe('completed');
  await cassette.close();
  lookupRuns.count = 0;
  return path;
}

async function replayRun(
  path: string,
  settings: AgentSettings,
  options: Partial<CassetteOptions> = {},
) {
  const cassette = await openCassette(path, { mode: 'lockdown', ...options });
  const { agent } = cassetteAgent(cassette, KEY, undefined, settings);
  const result = await agent.run(PROMPT);
  const { drifts } = await cassette.close();
  return { result, drifts };
}

/** `lookup` v2: a regression in the tool's output (the total becomes the count). */
const changedLookup = (query: string): string =>
  lookupText(query).replace('status shipped', 'status delivered');

const READ: AgentSettings = { lookupPermission: 'read' };

beforeEach(() => {
  lookupRuns.count = 0;
});

describe('per-tool replay modes', () => {
  it('runs a read tool live on replay and finds no drift when its result is unchanged', async () => {
    const path = await recordRun(READ);
    const { result, drifts } = await replayRun(path, READ);
    expect(result.status).toBe('completed');
    expect(lookupRuns.count).toBe(2);
    expect(drifts).toEqual([]);
  });

  it('fails a strict replay with a drift at toolCalls.<id>.result when a read tool now returns another result', async () => {
    const path = await recordRun(READ);
    const { result, drifts } = await replayRun(path, { ...READ, lookupText: changedLookup });
    expect(result.status).toBe('error');
    expect(ReplayDriftError.isInstance(result.error)).toBe(true);
    expect(drifts.map((drift) => [drift.kind, drift.path])).toContainEqual([
      'tool-result',
      'toolCalls.toolu_1.result',
    ]);
  });

  it('names where the result changed in a readable diff, and serves the recording when lenient', async () => {
    const path = await recordRun(READ);
    const { result, drifts } = await replayRun(
      path,
      { ...READ, lookupText: changedLookup },
      { strict: false },
    );
    expect(result.status).toBe('completed');
    expect(result.text).toBe('Both orders shipped; together they cost 42.');
    const found = drifts.filter((drift) => drift.kind === 'tool-result');
    expect(found.map((drift) => drift.path)).toEqual([
      'toolCalls.toolu_1.result',
      'toolCalls.toolu_2.result',
    ]);
    expect(found[0]?.message).toContain('tool call toolu_1 (lookup) ran live');
    expect(found[0]?.message).toContain('recorded "Order A-1: status shipped');
    expect(found[0]?.message).toContain('now "Order A-1: status delivered');
    // Served: the next requests match the recording, so nothing else drifted.
    expect(drifts.length).toBe(2);
  });

  it('keeps serving write tools: they never run on replay', async () => {
    const path = await recordRun({});
    const { result, drifts } = await replayRun(path, { lookupText: changedLookup });
    expect(result.status).toBe('completed');
    expect(lookupRuns.count).toBe(0);
    expect(drifts).toEqual([]);
  });

  it('runs a write tool that declares itself deterministic live, and finds its changed result', async () => {
    const pure: AgentSettings = { lookupDeterministic: true };
    const path = await recordRun(pure);
    const same = await replayRun(path, pure);
    expect([same.result.status, lookupRuns.count, same.drifts]).toEqual(['completed', 2, []]);
    lookupRuns.count = 0;
    const changed = await replayRun(
      path,
      { ...pure, lookupText: changedLookup },
      { strict: false },
    );
    expect(lookupRuns.count).toBe(2);
    expect(changed.drifts.map((drift) => [drift.kind, drift.path])).toEqual([
      ['tool-result', 'toolCalls.toolu_1.result'],
      ['tool-result', 'toolCalls.toolu_2.result'],
    ]);
  });

  it('lets an option serve a read tool or run a write tool live', async () => {
    const readPath = await recordRun(READ);
    const served = await replayRun(
      readPath,
      { ...READ, lookupText: changedLookup },
      { toolModes: { lookup: 'served' } },
    );
    expect([served.result.status, lookupRuns.count, served.drifts]).toEqual(['completed', 0, []]);

    const writePath = await recordRun({});
    const live = await replayRun(
      writePath,
      { lookupText: changedLookup },
      { toolModes: { lookup: 'live' }, strict: false },
    );
    expect(lookupRuns.count).toBe(2);
    expect(live.drifts.map((drift) => drift.path)).toEqual([
      'toolCalls.toolu_1.result',
      'toolCalls.toolu_2.result',
    ]);
  });

  it('refuses a tool mode other than live or served', async () => {
    const path = await recordRun(READ);
    await expect(
      openCassette(path, {
        mode: 'lockdown',
        toolModes: { lookup: 'sometimes' as 'live' },
      }),
    ).rejects.toThrow(/toolModes\.lookup/);
  });

  it('serves a read call whose recorded decision differs from the current one: one finding, no run', async () => {
    const path = await recordRun(READ);
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    const denied = lines.map((line) => {
      const entry = JSON.parse(line);
      if (entry.type === 'tool' && entry.call.id === 'toolu_1') entry.outcome.status = 'denied';
      return JSON.stringify(entry);
    });
    writeFileSync(path, `${denied.join('\n')}\n`);
    const { drifts } = await replayRun(path, READ, { strict: false });
    const toolFindings = drifts.filter((drift) => drift.kind.startsWith('tool-'));
    expect(toolFindings.map((drift) => [drift.kind, drift.path])).toEqual([
      ['tool-decision', 'toolCalls.toolu_1.status'],
    ]);
    expect(lookupRuns.count).toBe(1);
  });
});
