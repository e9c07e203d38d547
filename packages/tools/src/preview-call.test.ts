import type { PermissionPolicy, PermissionRequest, ToolUseBlock } from '@mh/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineTool } from './define-tool.js';
import { FencingExecutor } from './fencing-executor.js';
import { PolicyToolExecutor } from './policy-tool-executor.js';

let runs = 0;

const shell = defineTool({
  name: 'shell',
  description: 'Runs a command.',
  input: z.object({ command: z.string() }),
  permission: 'exec',
  run: ({ command }) => {
    runs++;
    return command;
  },
});

const look = defineTool({
  name: 'look',
  description: 'Reads something.',
  input: z.object({ path: z.string() }),
  permission: 'read',
  run: ({ path }) => {
    runs++;
    return path;
  },
});

function call(name: string, input: unknown = { command: 'ls' }): ToolUseBlock {
  return { type: 'tool_use', id: 'c1', name, input };
}

describe('PolicyToolExecutor.preview', () => {
  it('says a granted call would run, with the tool permission, without running it', async () => {
    const executor = new PolicyToolExecutor({ tools: [shell], grants: ['exec'] });
    expect(await executor.preview(call('shell'))).toEqual({ decision: 'run', permission: 'exec' });
    expect(runs).toBe(0);
  });

  it('says a tool declares itself deterministic, whatever the decision', async () => {
    const pure = defineTool({
      name: 'pure',
      description: 'Formats a number.',
      input: z.object({ n: z.number() }),
      permission: 'write',
      deterministic: true,
      run: ({ n }) => n.toFixed(2),
    });
    const granted = new PolicyToolExecutor({ tools: [pure], grants: ['write'] });
    expect(await granted.preview(call('pure', { n: 1 }))).toEqual({
      decision: 'run',
      permission: 'write',
      deterministic: true,
    });
    const ungranted = new PolicyToolExecutor({ tools: [pure], grants: [] });
    const preview = await ungranted.preview(call('pure', { n: 1 }));
    expect(preview.decision).not.toBe('run');
    expect(preview).toHaveProperty('deterministic', true);
    expect(await granted.preview(call('shell'))).not.toHaveProperty('deterministic');
  });

  it('says an ungranted call would be denied, with the reason execute gives', async () => {
    const executor = new PolicyToolExecutor({ tools: [shell] });
    expect(await executor.preview(call('shell'))).toEqual({
      decision: 'denied',
      permission: 'exec',
      reason: "'exec' tools are not allowed in this session",
    });
  });

  it('says a call needs a human when the default policy would ask, and never asks', async () => {
    const asked: PermissionRequest[] = [];
    const executor = new PolicyToolExecutor({
      tools: [shell],
      approve: (request) => {
        asked.push(request);
        return true;
      },
    });
    expect(await executor.preview(call('shell'))).toEqual({ decision: 'ask', permission: 'exec' });
    expect(asked).toEqual([]);
  });

  it('says an unknown tool is unknown, with no permission', async () => {
    const executor = new PolicyToolExecutor({ tools: [shell] });
    expect(await executor.preview(call('rm'))).toEqual({
      decision: 'unknown-tool',
      reason: 'Unknown tool: rm. Available tools: shell',
    });
  });

  it('says invalid arguments are invalid before asking the policy', async () => {
    const checked: PermissionRequest[] = [];
    const policy: PermissionPolicy = {
      check: () => ({ allow: true }),
      preview: (request) => {
        checked.push(request);
        return { allow: true };
      },
    };
    const executor = new PolicyToolExecutor({ tools: [shell], policy });
    const preview = await executor.preview(call('shell', { command: 7 }));
    expect(preview).toMatchObject({ decision: 'invalid-arguments', permission: 'exec' });
    expect(preview.reason).toContain('command');
    expect(checked).toEqual([]);
  });

  it('says unparseable JSON arguments are invalid, as execute does', async () => {
    const executor = new PolicyToolExecutor({ tools: [shell], grants: ['exec'] });
    const broken: ToolUseBlock = { ...call('shell', {}), rawInput: '{"command": ' };
    expect(await executor.preview(broken)).toMatchObject({ decision: 'invalid-arguments' });
  });

  it('asks a custom policy for its preview with the validated arguments', async () => {
    const requests: PermissionRequest[] = [];
    const policy: PermissionPolicy = {
      check: () => ({ allow: true }),
      preview: (request) => {
        requests.push(request);
        return { allow: false, reason: 'no shells on Fridays' };
      },
    };
    const executor = new PolicyToolExecutor({ tools: [shell], policy });
    expect(await executor.preview(call('shell'))).toEqual({
      decision: 'denied',
      permission: 'exec',
      reason: 'no shells on Fridays',
    });
    expect(requests).toEqual([
      { toolName: 'shell', permission: 'exec', input: { command: 'ls' }, callId: 'c1' },
    ]);
  });

  it('says undecidable for a policy without preview, and never calls its check', async () => {
    let checks = 0;
    const executor = new PolicyToolExecutor({
      tools: [shell],
      policy: {
        check: () => {
          checks++;
          return { allow: true };
        },
      },
    });
    expect(await executor.preview(call('shell'))).toMatchObject({
      decision: 'undecidable',
      permission: 'exec',
    });
    expect(checks).toBe(0);
  });

  it('says denied when the policy preview throws, as execute denies when check throws', async () => {
    const policy: PermissionPolicy = {
      check: () => ({ allow: true }),
      preview: () => {
        throw new Error('policy file missing');
      },
    };
    const executor = new PolicyToolExecutor({ tools: [shell], policy });
    expect(await executor.preview(call('shell'))).toEqual({
      decision: 'denied',
      permission: 'exec',
      reason: 'the permission check failed: policy file missing',
    });
  });

  it('previews a read tool as run without any grant', async () => {
    const executor = new PolicyToolExecutor({ tools: [look] });
    expect(await executor.preview(call('look', { path: 'a' }))).toEqual({
      decision: 'run',
      permission: 'read',
    });
    expect(runs).toBe(0);
  });
});

describe('FencingExecutor.preview', () => {
  it('answers with the wrapped executor preview', async () => {
    const inner = new PolicyToolExecutor({ tools: [shell] });
    const executor = new FencingExecutor({ executor: inner, boundary: 'fence-abcdefgh' });
    expect(await executor.preview(call('shell'))).toEqual(await inner.preview(call('shell')));
  });

  it('says undecidable when the wrapped executor cannot preview', async () => {
    const executor = new FencingExecutor({
      executor: { specs: () => [], execute: async function* () {} },
      boundary: 'fence-abcdefgh',
    });
    expect(await executor.preview(call('shell'))).toMatchObject({ decision: 'undecidable' });
  });
});
