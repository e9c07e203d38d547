import type { ToolUseBlock } from '@mh/core';
import { collectOutcomes, ManualClock } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineTool } from './define-tool.js';
import { PolicyToolExecutor } from './policy-tool-executor.js';

const call = (name: string, id = `call_${name}`): ToolUseBlock => ({
  type: 'tool_use',
  id,
  name,
  input: {},
});

/** A write tool that asks two questions, logging what it does, then answers with both answers. */
function asker(log: string[], options: { idempotent?: boolean; swallow?: boolean } = {}) {
  return defineTool({
    name: 'deploy',
    description: 'Asks where and when, then deploys.',
    input: z.object({}),
    permission: 'write',
    idempotent: options.idempotent,
    async run(_input, context) {
      log.push('run deploy');
      const where = await context.interrupt?.({ question: 'Where?', schema: { type: 'string' } });
      let when: unknown;
      try {
        when = await context.interrupt?.('When?');
      } catch (error) {
        if (!options.swallow) throw error;
        when = 'never mind';
      }
      log.push(`deployed ${String(where)} ${String(when)}`);
      return `deployed to ${String(where)} at ${String(when)}`;
    },
  });
}

function logging(name: string, permission: 'read' | 'write', log: string[]) {
  return defineTool({
    name,
    description: name,
    input: z.object({}),
    permission,
    run: () => {
      log.push(`run ${name}`);
      return name;
    },
  });
}

function executorWith(log: string[], options: { idempotent?: boolean; swallow?: boolean } = {}) {
  return new PolicyToolExecutor({
    tools: [asker(log, options), logging('look', 'read', log), logging('write', 'write', log)],
    grants: ['write'],
    clock: new ManualClock(Date.now(), { instant: true }),
  });
}

const run = (
  executor: PolicyToolExecutor,
  calls: ToolUseBlock[],
  answers?: ReadonlyMap<string, readonly unknown[]>,
) => collectOutcomes(executor.execute(calls, { signal: new AbortController().signal, answers }));

describe('PolicyToolExecutor and a tool that asks (context.interrupt)', () => {
  it('ends the call interrupted with the question and the answers so far, without a side effect', async () => {
    const log: string[] = [];
    const [outcome] = await run(executorWith(log), [call('deploy')]);
    expect(outcome?.status).toBe('interrupted');
    expect(outcome?.result.isError).toBe(true);
    expect(outcome?.question).toEqual({
      question: 'Where?',
      schema: { type: 'string' },
      answers: [],
    });
    expect(log).toEqual(['run deploy']);
  });

  it('gives the n-th question the n-th answer and asks the next one', async () => {
    const log: string[] = [];
    const executor = executorWith(log);
    const [second] = await run(executor, [call('deploy')], new Map([['call_deploy', ['eu']]]));
    expect(second?.question).toEqual({ question: 'When?', answers: ['eu'] });
    const [done] = await run(executor, [call('deploy')], new Map([['call_deploy', ['eu', 9]]]));
    expect(done?.status).toBe('ok');
    expect(done?.question).toBeUndefined();
    expect(log.at(-1)).toBe('deployed eu 9');
  });

  it('is interrupted even when the tool catches the rejection and returns', async () => {
    const log: string[] = [];
    const executor = executorWith(log, { swallow: true });
    const [outcome] = await run(executor, [call('deploy')], new Map([['call_deploy', ['eu']]]));
    expect(outcome?.status).toBe('interrupted');
    expect(outcome?.question?.question).toBe('When?');
  });

  it('does not retry an idempotent tool that asked', async () => {
    const log: string[] = [];
    const [outcome] = await run(executorWith(log, { idempotent: true }), [call('deploy')]);
    expect(outcome?.status).toBe('interrupted');
    expect(log).toEqual(['run deploy']);
  });

  it('starts only reads after a call stopped on a question: later writes wait, unstarted', async () => {
    const log: string[] = [];
    const events = [];
    const executor = executorWith(log);
    const signal = new AbortController().signal;
    for await (const event of executor.execute([call('deploy'), call('write'), call('look')], {
      signal,
    }))
      events.push(
        event.type === 'tool-start' ? `start ${event.call.name}` : `end ${event.outcome.call.name}`,
      );
    expect(events).toEqual(['start deploy', 'end deploy', 'start look', 'end look']);
    expect(log).toEqual(['run deploy', 'run look']);
  });
});
