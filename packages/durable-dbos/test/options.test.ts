import { DBOS } from '@dbos-inc/dbos-sdk';
import { ConfigError, ProviderError, type RunResult, ZERO_USAGE } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { sendDecisions } from '../src/client.js';
import { dbosSteps } from '../src/dbos-steps.js';
import { durableAgents } from '../src/durable-agents.js';
import { recordRun, runOfRecord } from '../src/run-record.js';

const store = { commit: async () => undefined } as never;
const agent = () => ({
  run: async () => ({}) as RunResult,
  resume: async () => undefined,
});

const fieldOf = (thunk: () => unknown): string | undefined => {
  try {
    thunk();
  } catch (error) {
    if (ConfigError.isInstance(error)) return error.field;
    throw error;
  }
  return undefined;
};

describe('durableAgents options', () => {
  it('names the field of each mistake', () => {
    expect(fieldOf(() => durableAgents({ dbos: {} as never, store, agents: { a: agent } }))).toBe(
      'dbos',
    );
    expect(
      fieldOf(() => durableAgents({ dbos: DBOS, store: {} as never, agents: { a: agent } })),
    ).toBe('store');
    expect(fieldOf(() => durableAgents({ dbos: DBOS, store, agents: {} }))).toBe('agents');
    expect(fieldOf(() => durableAgents({ dbos: DBOS, store, agents: { 'bad name': agent } }))).toBe(
      'agents.bad name',
    );
    expect(fieldOf(() => durableAgents({ dbos: DBOS, store, agents: { a: 'x' as never } }))).toBe(
      'agents.a',
    );
    expect(
      fieldOf(() =>
        durableAgents({ dbos: DBOS, store, agents: { a: agent }, decisionTimeoutSeconds: 0 }),
      ),
    ).toBe('decisionTimeoutSeconds');
    expect(
      fieldOf(() =>
        durableAgents({ dbos: DBOS, store, agents: { a: agent }, queue: 'x' } as never),
      ),
    ).toBe('queue');
  });

  it('refuses a start for an unknown agent or a bad session before anything is enqueued', async () => {
    const durable = durableAgents({ dbos: DBOS, store, agents: { ok: agent } });
    await expect(durable.start('nope', 'hi', { session: 's' })).rejects.toMatchObject({
      field: 'name',
    });
    await expect(durable.start('ok', 'hi', { session: '' })).rejects.toMatchObject({
      field: 'options.session',
    });
    await expect(durable.start('ok', '  ', { session: 's' })).rejects.toMatchObject({
      field: 'prompt',
    });
    await expect(
      durable.start('ok', 'hi', { session: 's', que: 'x' } as never),
    ).rejects.toMatchObject({
      field: 'options.que',
    });
  });

  it('refuses decisions without a call id before sending', async () => {
    await expect(sendDecisions({} as never, 'wf', [])).rejects.toMatchObject({
      field: 'decisions',
    });
    await expect(
      sendDecisions({} as never, 'wf', [{ approve: true } as never]),
    ).rejects.toMatchObject({
      field: 'decisions[0].callId',
    });
  });
});

describe('dbosSteps ids', () => {
  it('are the same sequence for the same workflow and differ between workflows', () => {
    const ids = (workflowId: string) => {
      const steps = dbosSteps(DBOS, workflowId);
      return [steps.newId('msg'), steps.newId('run'), steps.newId('msg')];
    };
    expect(ids('wf-1')).toEqual(ids('wf-1'));
    expect(ids('wf-1')).toEqual(['msg_wf1_1', 'run_wf1_2', 'msg_wf1_3']);
    expect(ids('wf-2')[0]).not.toBe(ids('wf-1')[0]);
  });
});

describe('run records', () => {
  it('carry a run result through JSON with its typed error', () => {
    const result: RunResult = {
      runId: 'r',
      status: 'error',
      error: new ProviderError('overloaded', { kind: 'overloaded', status: 529 }),
      text: '',
      turns: 1,
      usage: ZERO_USAGE,
      costUsd: 0,
      durationMs: 3,
      messages: [],
      newMessages: [],
      repairs: [],
      compactions: [],
    };
    const back = runOfRecord(JSON.parse(JSON.stringify(recordRun(result))));
    expect(ProviderError.isInstance(back.error) && back.error.kind).toBe('overloaded');
    expect({ ...back, error: undefined }).toEqual({ ...result, error: undefined });
  });
});
