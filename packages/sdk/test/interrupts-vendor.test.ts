import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropic } from '@mh/providers/anthropic';
import { openai } from '@mh/providers/openai';
import { defineTool } from '@mh/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../src/agent.js';

/**
 * Interrupts through the real vendor SDKs, on a loopback server that streams in the vendors' wire
 * shapes: the tool call is held for approval, then resumed, and the result reaches the vendor.
 */
let server: Server | undefined;
afterEach(
  () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
);

/** Serves `bodies[i]` as the i-th SSE response; keeps each request's JSON body. */
async function serve(bodies: readonly string[]): Promise<{ url: string; requests: unknown[] }> {
  const requests: unknown[] = [];
  const listening = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += String(chunk);
    });
    request.on('end', () => {
      requests.push(JSON.parse(body));
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(bodies[requests.length - 1] ?? bodies.at(-1));
    });
  });
  server = listening;
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(listening.address() as AddressInfo).port}`, requests };
}

const data = (payload: unknown): string => `data: ${JSON.stringify(payload)}\n\n`;
const event = (payload: { type: string } & Record<string, unknown>): string =>
  `event: ${payload.type}\n${data(payload)}`;

function chatChunks(delta: Record<string, unknown>, finish: string): string {
  const chunk = (choice: Record<string, unknown>) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4.1-mini',
    choices: [{ index: 0, logprobs: null, finish_reason: null, ...choice }],
  });
  return [
    data(chunk({ delta: { role: 'assistant', content: null, ...delta } })),
    data(chunk({ delta: {}, finish_reason: finish })),
    data({ ...chunk({}), choices: [], usage: { prompt_tokens: 9, completion_tokens: 3 } }),
    'data: [DONE]\n\n',
  ].join('');
}

function anthropicMessage(block: Record<string, unknown>, deltas: string[], stop: string): string {
  const deltaType = block.type === 'tool_use' ? 'input_json_delta' : 'text_delta';
  const field = block.type === 'tool_use' ? 'partial_json' : 'text';
  return [
    event({
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [],
        stop_reason: null,
        usage: { input_tokens: 9, output_tokens: 1 },
      },
    }),
    event({ type: 'content_block_start', index: 0, content_block: block }),
    ...deltas.map((piece) =>
      event({ type: 'content_block_delta', index: 0, delta: { type: deltaType, [field]: piece } }),
    ),
    event({ type: 'content_block_stop', index: 0 }),
    event({ type: 'message_delta', delta: { stop_reason: stop }, usage: { output_tokens: 3 } }),
    event({ type: 'message_stop' }),
  ].join('');
}

function writer(runs: string[]) {
  return defineTool({
    name: 'write_file',
    description: 'Writes a file',
    input: z.object({ path: z.string() }),
    permission: 'write',
    needsApproval: true,
    run: async ({ path }) => {
      runs.push(path);
      return `wrote ${path}`;
    },
  });
}

describe('interrupts through the vendor SDKs', () => {
  it('OpenAI Chat: the held call runs once approved, and its result goes back to the API', async () => {
    const call = {
      tool_calls: [
        {
          index: 0,
          id: 'call_1',
          type: 'function',
          function: { name: 'write_file', arguments: '{"path":"notes.md"}' },
        },
      ],
    };
    const loopback = await serve([
      chatChunks(call, 'tool_calls'),
      chatChunks({ content: 'Saved.' }, 'stop'),
    ]);
    const runs: string[] = [];
    const agent = new Agent({
      provider: openai({ baseURL: `${loopback.url}/v1`, apiKey: 'k' }),
      model: 'gpt-4.1-mini',
      tools: [writer(runs)],
      permissions: { grants: ['write'] },
    });
    const first = await agent.run('Save notes');
    expect(first.status).toBe('interrupted');
    expect(first.interrupts?.map((interrupt) => interrupt.callId)).toEqual(['call_1']);
    expect(loopback.requests).toHaveLength(1);
    const resumed = await agent.resume({ decisions: [{ callId: 'call_1', approve: true }] });
    expect(resumed?.text).toBe('Saved.');
    expect(runs).toEqual(['notes.md']);
    const second = loopback.requests[1] as { messages: { role: string; tool_call_id?: string }[] };
    expect(second.messages.filter((message) => message.role === 'tool')).toHaveLength(1);
    expect(second.messages.find((message) => message.role === 'tool')?.tool_call_id).toBe('call_1');
  });

  it('Anthropic: a denied call never runs; the denial reaches the API as an error result', async () => {
    const loopback = await serve([
      anthropicMessage(
        { type: 'tool_use', id: 'toolu_1', name: 'write_file', input: {} },
        ['{"path":', '"notes.md"}'],
        'tool_use',
      ),
      anthropicMessage({ type: 'text', text: '' }, ['Understood.'], 'end_turn'),
    ]);
    const runs: string[] = [];
    const agent = new Agent({
      provider: anthropic({ baseURL: loopback.url, apiKey: 'k' }),
      model: 'claude-sonnet-4-5',
      tools: [writer(runs)],
      permissions: { grants: ['write'] },
    });
    const first = await agent.run('Save notes');
    expect(first.interrupts?.[0]).toMatchObject({ callId: 'toolu_1', input: { path: 'notes.md' } });
    const resumed = await agent.resume({
      decisions: [{ callId: 'toolu_1', approve: false, message: 'not now' }],
    });
    expect(resumed?.text).toBe('Understood.');
    expect(runs).toEqual([]);
    const second = loopback.requests[1] as {
      messages: {
        role: string;
        content: { type: string; is_error?: boolean; tool_use_id?: string }[] | string;
      }[];
    };
    const results = second.messages.flatMap((message) =>
      Array.isArray(message.content)
        ? message.content.filter((block) => block.type === 'tool_result')
        : [],
    );
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ tool_use_id: 'toolu_1', is_error: true });
    expect(JSON.stringify(results[0])).toContain('not now');
  });
});
