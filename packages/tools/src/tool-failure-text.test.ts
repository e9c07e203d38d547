import { type Tool, type ToolOutcome, type ToolUseBlock, toolResultText } from '@mh/core';
import { collectOutcomes } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import { HOSTILE_THROWS, throwingTool } from '../test/hostile-throws.js';
import { PolicyToolExecutor } from './policy-tool-executor.js';

const call: ToolUseBlock = { type: 'tool_use', id: 'c1', name: 'boom', input: {} };

function outcomesOf(tool: Tool): Promise<ToolOutcome[]> {
  const executor = new PolicyToolExecutor({ tools: [tool], retry: { baseMs: 0, capMs: 0 } });
  return collectOutcomes(executor.execute([call], { signal: new AbortController().signal }));
}

describe('a tool that throws a value that resists being turned into text', () => {
  for (const [label, make] of HOSTILE_THROWS) {
    for (const idempotent of [false, true]) {
      it(`answers ${label} with an isError result (idempotent: ${idempotent})`, async () => {
        const outcomes = await outcomesOf(throwingTool(make, { idempotent }));
        expect(outcomes).toHaveLength(1);
        const [outcome] = outcomes as [ToolOutcome];
        expect(outcome.status).toBe('error');
        expect(outcome.result.isError).toBe(true);
        const text = toolResultText(outcome.result);
        expect(text).toMatch(/\S/);
        expect(text).toContain('boom');
      });
    }
  }

  it('still quotes a plain thrown string', async () => {
    const [outcome] = await outcomesOf(throwingTool(() => 'disk full'));
    expect(toolResultText((outcome as ToolOutcome).result)).toBe('disk full');
  });
});
