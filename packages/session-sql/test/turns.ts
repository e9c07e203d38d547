import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CheckpointMeta, Message, ToolResultBlock } from '@mh/core';

/** A turn as `commit` takes it. */
export interface Turn {
  readonly messages: readonly Message[];
  readonly meta: CheckpointMeta;
}

/** A user prompt turn with deterministic ids. */
export function promptTurn(tag: string, text = `prompt ${tag}`): Turn {
  return {
    messages: [{ id: `user-${tag}`, role: 'user', content: [{ type: 'text', text }] }],
    meta: { model: 'fake', extra: { tag } },
  };
}

/** An assistant message calling `calls` tools, ids `call-<tag>-<i>`. */
export function assistantWithCalls(tag: string, calls = 2): Message {
  return {
    id: `assistant-${tag}`,
    role: 'assistant',
    content: [
      { type: 'text', text: `calling ${calls} tools for ${tag}` },
      ...Array.from({ length: calls }, (_, i) => ({
        type: 'tool_use' as const,
        id: `call-${tag}-${i}`,
        name: 'echo',
        input: { i, tag },
      })),
    ],
  };
}

/** The result of call `i` of turn `tag`. */
export function resultFor(tag: string, i: number): ToolResultBlock {
  return {
    type: 'tool_result',
    toolUseId: `call-${tag}-${i}`,
    content: [{ type: 'text', text: `result ${i} of ${tag}` }],
    isError: false,
  };
}

/** A tool-using turn: the assistant message and the user message with all its results. */
export function toolTurn(tag: string, calls = 2): Turn {
  return {
    messages: [
      assistantWithCalls(tag, calls),
      {
        id: `results-${tag}`,
        role: 'user',
        content: Array.from({ length: calls }, (_, i) => resultFor(tag, i)),
      },
    ],
    meta: {
      model: 'fake',
      usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
    },
  };
}

/** A temporary folder, removed by the returned function. */
export async function tempDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'mh-session-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
