import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Message,
  type ModelRequest,
  type Provider,
  type StreamEvent,
  type ToolCallEvent,
  type ToolExecutor,
  type ToolOutcome,
  type ToolUseBlock,
  toolResult,
  type Usage,
} from '@mh/core';
import { afterEach } from 'vitest';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh cassette path in a temporary folder removed after the test. */
export function tempCassette(name = 'run.cassette.jsonl'): string {
  const dir = mkdtempSync(join(tmpdir(), 'mh-eval-'));
  made.push(dir);
  return join(dir, name);
}

export const USAGE: Usage = {
  inputTokens: 120,
  outputTokens: 30,
  cacheReadTokens: 900,
  cacheWriteTokens: 40,
};

/** The events of a text answer, as an adapter streams them. */
export function answerEvents(text: string, id = 'msg_1', usage: Usage = USAGE): StreamEvent[] {
  const message: Message = { id, role: 'assistant', content: [{ type: 'text', text }] };
  return [
    { type: 'message-start', id, model: 'claude-sonnet-4-5' },
    { type: 'text-delta', text: text.slice(0, 3) },
    { type: 'text-delta', text: text.slice(3) },
    { type: 'usage', usage },
    { type: 'message-end', stopReason: 'end', message, usage, model: 'claude-sonnet-4-5' },
  ];
}

/** A provider that must never be called. */
export const forbiddenProvider: Provider = {
  name: 'forbidden',
  stream(): AsyncIterable<StreamEvent> {
    throw new Error('the inner provider was called');
  },
};

/** A request with one user message. */
export function requestOf(text: string, overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'claude-sonnet-4-5',
    system: 'Be brief.',
    messages: [{ id: `u_${Math.random()}`, role: 'user', content: [{ type: 'text', text }] }],
    tools: [],
    ...overrides,
  };
}

/** An executor whose one tool, `lookup`, answers `result of <query>` and counts its runs. */
export class CountingExecutor implements ToolExecutor {
  runs = 0;

  specs() {
    return [
      {
        name: 'lookup',
        description: 'Looks something up.',
        inputSchema: { type: 'object', properties: { query: { type: 'string' } } },
      },
    ];
  }

  async *execute(calls: readonly ToolUseBlock[]): AsyncGenerator<ToolCallEvent, void, undefined> {
    for (const call of calls) {
      yield { type: 'tool-start', call };
      this.runs++;
      const query = (call.input as { query?: string }).query ?? '';
      const outcome: ToolOutcome = {
        call,
        result: toolResult(call.id, `result of ${query}`),
        status: 'ok',
        attempts: 1,
        durationMs: 3,
        permission: 'write',
      };
      yield { type: 'tool-end', outcome };
    }
  }
}
