import type { Permission, ToolUseBlock } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { callBatches } from './call-batches.js';

const permissions: Record<string, Permission> = { r: 'read', w: 'write', x: 'exec' };

function names(batches: ToolUseBlock[][]): string[][] {
  return batches.map((batch) => batch.map((call) => call.id));
}

function calls(...ids: string[]): ToolUseBlock[] {
  return ids.map((id) => ({ type: 'tool_use', id, name: id.charAt(0), input: {} }));
}

describe('callBatches', () => {
  it('groups consecutive reads and isolates each write or exec', () => {
    const batches = callBatches(calls('r1', 'r2', 'w3', 'r4'), (name) => permissions[name]);
    expect(names(batches)).toEqual([['r1', 'r2'], ['w3'], ['r4']]);
  });

  it('keeps consecutive writes in separate batches in order', () => {
    const batches = callBatches(calls('w1', 'x2', 'w3'), (name) => permissions[name]);
    expect(names(batches)).toEqual([['w1'], ['x2'], ['w3']]);
  });

  it('treats an unknown tool as a read', () => {
    const batches = callBatches(calls('r1', 'u2', 'r3'), (name) => permissions[name]);
    expect(names(batches)).toEqual([['r1', 'u2', 'r3']]);
  });
});
