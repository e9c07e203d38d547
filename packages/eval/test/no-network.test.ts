import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import tls from 'node:tls';
import {
  type ModelRequest,
  type Provider,
  ProviderError,
  type StreamEvent,
  type StreamOptions,
} from '@mh/core';
import { collect } from '@mh/core/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openCassette } from '../src/index.js';
import { cassetteAgent, lookupRuns, observed, PROMPT, scriptedModel } from './agent-fixture.js';
import { tempCassette } from './helpers.js';

/**
 * A provider that really goes over the network: each call POSTs the request to a loopback HTTP
 * server, which answers with the events of the next scripted turn.
 */
class HttpProvider implements Provider {
  readonly name = 'http';
  readonly #url: string;

  constructor(url: string) {
    this.#url = url;
  }

  async *stream(request: ModelRequest, options: StreamOptions = {}): AsyncGenerator<StreamEvent> {
    const response = await fetch(this.#url, {
      method: 'POST',
      body: JSON.stringify(request),
      signal: options.signal,
    }).catch((error: unknown) => {
      throw new ProviderError(`fetch failed: ${String(error)}`, { kind: 'network', cause: error });
    });
    for (const event of (await response.json()) as StreamEvent[]) yield event;
  }
}

let server: Server;
let url: string;

beforeAll(async () => {
  // The model behind the server: the scripted one, answering each posted request in turn.
  const model = scriptedModel();
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', async () => {
      const events = await collect(model.stream(JSON.parse(body) as ModelRequest));
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(events));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/turn`;
});

afterAll(async () => {
  server.close();
  await once(server, 'close');
});

/**
 * Makes every new connection (TCP, TLS, hence fetch) and every write on an open TCP socket (a
 * pooled keep-alive connection) throw, and counts the attempts. Pipes such as stdout have no
 * remote address and stay usable.
 */
function forbidSockets(): { attempts: string[]; restore(): void } {
  const attempts: string[] = [];
  const connect = net.Socket.prototype.connect;
  const write = net.Socket.prototype.write;
  const tlsConnect = tls.connect;
  net.Socket.prototype.connect = function forbidden(...args: unknown[]) {
    attempts.push(`net.Socket.connect ${JSON.stringify(args[0])}`);
    throw new Error('network access is forbidden during replay');
  } as typeof connect;
  net.Socket.prototype.write = function guarded(this: net.Socket, ...args: unknown[]) {
    if (this.remoteAddress !== undefined) {
      attempts.push(`net.Socket.write to ${this.remoteAddress}:${this.remotePort}`);
      throw new Error('network access is forbidden during replay');
    }
    return (write as (...rest: unknown[]) => boolean).apply(this, args);
  } as typeof write;
  (tls as { connect: unknown }).connect = (...args: unknown[]) => {
    attempts.push(`tls.connect ${JSON.stringify(args[0])}`);
    throw new Error('network access is forbidden during replay');
  };
  return {
    attempts,
    restore: () => {
      net.Socket.prototype.connect = connect;
      net.Socket.prototype.write = write;
      (tls as { connect: unknown }).connect = tlsConnect;
    },
  };
}

beforeEach(() => {
  lookupRuns.count = 0;
});

describe('replay with sockets forbidden', () => {
  it('replays a whole agent run recorded over HTTP without a single connection', async () => {
    const path = tempCassette();
    const recording = await openCassette(path, { mode: 'record' });
    const live = cassetteAgent(recording, { case: 'net', repeat: 0 }, new HttpProvider(url));
    const recorded = await live.agent.run(PROMPT);
    await recording.close();
    expect(recorded.status).toBe('completed');
    expect(recorded.turns).toBe(3);
    expect(lookupRuns.count).toBe(2);

    // Idle keep-alive connections would let a request through without a new connect.
    server.closeAllConnections();
    const ban = forbidSockets();
    try {
      // The ban is real: the same provider cannot reach even the loopback server now.
      const blocked = await new HttpProvider(url)
        .stream({ model: 'm', messages: [], tools: [] })
        [Symbol.asyncIterator]()
        .next()
        .catch((error: unknown) => error);
      expect(ProviderError.isInstance(blocked)).toBe(true);
      expect(ban.attempts.length).toBeGreaterThan(0);
      ban.attempts.length = 0;

      const cassette = await openCassette(path, { mode: 'lockdown' });
      const replay = cassetteAgent(cassette, { case: 'net', repeat: 0 }, undefined);
      const replayed = await replay.agent.run(PROMPT);
      const { drifts } = await cassette.close();

      expect(ban.attempts).toEqual([]);
      expect(drifts).toEqual([]);
      expect(observed(replayed, replay.tracer)).toEqual(observed(recorded, live.tracer));
      expect(lookupRuns.count).toBe(2);
    } finally {
      ban.restore();
    }
  });
});
