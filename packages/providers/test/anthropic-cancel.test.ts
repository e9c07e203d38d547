import { CancelledError, type StreamEvent, userMessage } from '@mh/core';
import { afterEach, describe, expect, it } from 'vitest';
import { anthropic } from '../src/anthropic/index.js';
import { readFixture } from './fixtures.js';
import { type Loopback, startLoopback } from './loopback-server.js';

// Aborting the caller's signal must end the iteration promptly and close the HTTP connection.

const REQUEST = { model: 'claude-sonnet-4-5', messages: [userMessage('Hi', 'u1')], tools: [] };
/** The first events of a recorded stream: message_start, a text block start, ping, text. */
const HEAD = readFixture('anthropic-sdk-typescript/tool_use_response.txt')
  .split(/(?<=\n\n)/)
  .slice(0, 4)
  .join('');

let server: Loopback | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server that answers with `head` (or nothing, before headers) and then never finishes. */
async function hangingServer(head: string | undefined): Promise<{ closed: Promise<number> }> {
  let closedAt: (time: number) => void = () => {};
  const closed = new Promise<number>((resolve) => {
    closedAt = resolve;
  });
  server = await startLoopback((_request, response) => {
    response.on('close', () => closedAt(Date.now()));
    if (head === undefined) return;
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write(head);
  });
  return { closed };
}

describe('AnthropicProvider cancellation', () => {
  it('aborting mid-stream throws CancelledError promptly and closes the connection', async () => {
    const { closed } = await hangingServer(HEAD);
    const provider = anthropic({ apiKey: 'sk-ant-test', baseURL: server?.url });
    const controller = new AbortController();
    const events: StreamEvent[] = [];
    let abortedAt = 0;
    const outcome = (async () => {
      for await (const event of provider.stream(REQUEST, { signal: controller.signal })) {
        events.push(event);
        if (event.type === 'text-delta') {
          abortedAt = Date.now();
          controller.abort();
        }
      }
    })().catch((error: unknown) => error);
    const error = await outcome;
    expect(CancelledError.isInstance(error)).toBe(true);
    // The server never ends the stream: without the abort this would hang. 5 s leaves room for a
    // loaded CI machine.
    expect(Date.now() - abortedAt).toBeLessThan(5000);
    expect(events.map((event) => event.type)).toEqual(['message-start', 'usage', 'text-delta']);
    expect((await closed) - abortedAt).toBeLessThan(5000);
    expect(server?.requests).toHaveLength(1);
  });

  it('aborting before the response headers throws CancelledError and closes the connection', async () => {
    const { closed } = await hangingServer(undefined);
    const provider = anthropic({ apiKey: 'sk-ant-test', baseURL: server?.url });
    const signal = AbortSignal.timeout(100);
    const started = Date.now();
    const error = await (async () => {
      for await (const _event of provider.stream(REQUEST, { signal }));
    })().catch((caught: unknown) => caught);
    expect(CancelledError.isInstance(error)).toBe(true);
    // Well under the SDK's own timeout; generous because a loaded CI machine is slow.
    expect(Date.now() - started).toBeLessThan(5000);
    // On a loaded machine the abort can come before the request reaches the server at all:
    // then there is no connection to close.
    if ((server?.requests.length ?? 0) > 0) await closed;
  });

  it('an already-aborted signal sends no request', async () => {
    await hangingServer(undefined);
    const provider = anthropic({ apiKey: 'sk-ant-test', baseURL: server?.url });
    const controller = new AbortController();
    controller.abort();
    const error = await (async () => {
      for await (const _event of provider.stream(REQUEST, { signal: controller.signal }));
    })().catch((caught: unknown) => caught);
    expect(CancelledError.isInstance(error)).toBe(true);
    expect(server?.requests).toHaveLength(0);
  });

  it('a consumer that stops early closes the connection', async () => {
    const { closed } = await hangingServer(HEAD);
    const provider = anthropic({ apiKey: 'sk-ant-test', baseURL: server?.url });
    for await (const event of provider.stream(REQUEST)) {
      if (event.type === 'text-delta') break;
    }
    const stoppedAt = Date.now();
    // The server never closes it: only our side can, and 5 s leaves room for load.
    expect((await closed) - stoppedAt).toBeLessThan(5000);
  });
});
