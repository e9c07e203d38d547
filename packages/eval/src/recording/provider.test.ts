import { readFileSync } from 'node:fs';
import { type Message, ProviderError, type StreamEvent } from '@mh/core';
import { collect, ScriptedProvider } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import { answerEvents, requestOf, tempCassette } from '../../test/helpers.js';
import { openCassette } from '../cassette/cassette.js';
import { readCassetteFile } from '../cassette/reader.js';

const KEY = { case: 'rec', repeat: 0 };

function user(text: string): Message {
  return { id: `u-${text}`, role: 'user', content: [{ type: 'text', text }] };
}

function assistant(text: string): Message {
  return { id: `a-${text}`, role: 'assistant', content: [{ type: 'text', text }] };
}

describe('RecordingProvider', () => {
  it('writes only the messages a request adds to the previous one, and reads back whole requests', async () => {
    const path = tempCassette();
    const cassette = await openCassette(path, { mode: 'record' });
    const provider = cassette.provider(
      new ScriptedProvider([
        { events: answerEvents('a') },
        { events: answerEvents('b') },
        { events: answerEvents('c') },
      ]),
      KEY,
    );
    const first = [user('one')];
    const second = [...first, assistant('a'), user('two')];
    // Same content, new objects (as after a compaction or a reload): stored in full.
    const third = second.map((message) => structuredClone(message));
    for (const messages of [first, second, third])
      await collect(provider.stream(requestOf('x', { messages })));
    await cassette.close();

    const lines = readFileSync(path, 'utf8')
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.sharedMessages, line.request.messages.length])).toEqual([
      [undefined, 1],
      [1, 2],
      [undefined, 3],
    ]);
    const { requests } = readCassetteFile(path);
    expect(requests.map((entry) => entry.request.messages)).toEqual([first, second, third]);
  });

  it('records a provider that throws before returning a stream', async () => {
    const path = tempCassette();
    const cassette = await openCassette(path, { mode: 'record' });
    const broken = {
      name: 'broken',
      stream(): AsyncIterable<StreamEvent> {
        throw new ProviderError('no route to host', { kind: 'network' });
      },
    };
    const error = await collect(cassette.provider(broken, KEY).stream(requestOf('x'))).catch(
      (e) => e,
    );
    expect(ProviderError.isInstance(error)).toBe(true);
    await cassette.close();
    const [entry] = readCassetteFile(path).requests;
    expect(entry).toMatchObject({
      outcome: 'error',
      error: { name: 'ProviderError', kind: 'network', message: 'no route to host' },
    });
  });

  it('fails a call whose exchange can no longer be written', async () => {
    const path = tempCassette();
    const cassette = await openCassette(path, { mode: 'record' });
    const provider = cassette.provider(new ScriptedProvider([{ events: answerEvents('a') }]), KEY);
    const stream = provider.stream(requestOf('x'));
    await cassette.close();
    // The file is closed: the exchange cannot be written, and the run must hear of it.
    const failure = await collect(stream).catch((e) => e);
    expect(failure.message).toMatch(/is closed; nothing more can be recorded/);
  });
});
