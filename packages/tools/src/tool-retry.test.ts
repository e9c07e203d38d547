import { ConfigError, type ToolUseBlock } from '@mh/core';
import { MAX_TIMEOUT_MS } from '@mh/core/internal';
import { collectOutcomes, ManualClock } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineTool } from './define-tool.js';
import { PolicyToolExecutor } from './policy-tool-executor.js';
import type { ToolRetryOptions } from './tool-retry.js';

const flaky = defineTool({
  name: 'flaky',
  description: 'Fails once with a transient error, then answers.',
  input: z.object({}),
  permission: 'read',
  idempotent: true,
  run: () => 'ok',
});

function configErrorOf(retry: unknown): ConfigError | undefined {
  try {
    new PolicyToolExecutor({ tools: [flaky], retry: retry as ToolRetryOptions });
  } catch (error) {
    if (ConfigError.isInstance(error)) return error;
    throw error;
  }
  return undefined;
}

describe('PolicyToolExecutor retry options', () => {
  it('rejects a misspelt retry key with ConfigError naming retry.<key>', () => {
    const error = configErrorOf({ baseDelayMs: 100 });
    expect(error?.field).toBe('retry.baseDelayMs');
    expect(error?.message).toContain('baseMs');
  });

  it('rejects a retry that is not an object', () => {
    expect(configErrorOf(3)?.field).toBe('retry');
    expect(configErrorOf(null)?.field).toBe('retry');
  });

  it('rejects a delay longer than a Node timer can wait, naming the field', () => {
    for (const key of ['baseMs', 'capMs', 'maxRetryAfterMs'] as const) {
      const error = configErrorOf({ [key]: MAX_TIMEOUT_MS + 1 });
      expect([key, error?.field]).toEqual([key, `retry.${key}`]);
      expect(error?.message).toContain(String(MAX_TIMEOUT_MS));
    }
    expect(configErrorOf({ baseMs: MAX_TIMEOUT_MS, capMs: MAX_TIMEOUT_MS })).toBeUndefined();
  });

  it('rejects a random that is not a function at construction, not at the first retry', () => {
    expect(configErrorOf({ random: 0.5 })?.field).toBe('retry.random');
  });

  it('never asks the clock for a wait longer than a timer can hold', async () => {
    const clock = new ManualClock(Date.now(), { instant: true });
    let calls = 0;
    const tool = defineTool({
      name: 'flaky',
      description: 'Fails with a transient error twice.',
      input: z.object({}),
      permission: 'read',
      idempotent: true,
      run: () => {
        calls += 1;
        if (calls < 3) throw Object.assign(new Error('reset'), { code: 'ECONNRESET' });
        return 'ok';
      },
    });
    const executor = new PolicyToolExecutor({
      tools: [tool],
      clock,
      retry: { baseMs: MAX_TIMEOUT_MS, capMs: MAX_TIMEOUT_MS, random: () => 1 - Number.EPSILON },
    });
    const call: ToolUseBlock = { type: 'tool_use', id: 'c1', name: 'flaky', input: {} };
    const signal = new AbortController().signal;
    for (const outcome of await collectOutcomes(executor.execute([call], { signal })))
      expect(outcome.status).toBe('ok');
    expect(clock.sleeps).toHaveLength(2);
    for (const ms of clock.sleeps) expect(ms).toBeLessThanOrEqual(MAX_TIMEOUT_MS);
  });
});
