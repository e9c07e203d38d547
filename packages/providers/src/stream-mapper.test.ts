import type { StreamEvent } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { mapStream, type StreamMapper } from './stream-mapper.js';

/** Maps each string to a text delta and settles on `'stop'`. */
class TextMapper implements StreamMapper<string> {
  settled = false;
  pushed: string[] = [];

  push(chunk: string): StreamEvent[] {
    this.pushed.push(chunk);
    if (chunk === 'stop') this.settled = true;
    return [{ type: 'text-delta', text: chunk }];
  }

  end(): StreamEvent[] {
    return [{ type: 'text-delta', text: 'end' }];
  }
}

/** A source that records how far it was read and whether it was closed early. */
function source(chunks: readonly string[], failure?: Error) {
  const state = { read: 0, returned: false };
  async function* generate(): AsyncGenerator<string> {
    for (const chunk of chunks) {
      state.read++;
      yield chunk;
    }
    if (failure) throw failure;
  }
  const iterable: AsyncIterable<string> = {
    [Symbol.asyncIterator]: () => {
      const iterator = generate();
      const close = iterator.return.bind(iterator);
      iterator.return = (value) => {
        state.returned = true;
        return close(value);
      };
      return iterator;
    },
  };
  return { iterable, state };
}

function opened(chunks: readonly string[], failure?: Error) {
  const { iterable } = source(chunks, failure);
  return async (): Promise<AsyncIterable<string>> => iterable;
}

async function texts(stream: AsyncIterable<StreamEvent>): Promise<string[]> {
  const out: string[] = [];
  for await (const event of stream) if (event.type === 'text-delta') out.push(event.text);
  return out;
}

describe('mapStream', () => {
  it('yields the events of every chunk, then the closing events', async () => {
    const { iterable } = source(['a', 'b']);
    expect(await texts(mapStream(async () => iterable, new TextMapper()))).toEqual([
      'a',
      'b',
      'end',
    ]);
  });

  it('stops reading once the mapper settled, by default', async () => {
    const { iterable, state } = source(['a', 'stop', 'late']);
    expect(await texts(mapStream(async () => iterable, new TextMapper()))).toEqual([
      'a',
      'stop',
      'end',
    ]);
    expect(state).toEqual({ read: 2, returned: true });
  });

  it('drains the rest unmapped, failures included, when asked to', async () => {
    const mapper = new TextMapper();
    const { iterable, state } = source(['a', 'stop', 'late'], new TypeError('terminated'));
    const events = await texts(mapStream(async () => iterable, mapper, { afterSettled: 'drain' }));
    expect(events).toEqual(['a', 'stop', 'end']);
    expect(mapper.pushed).toEqual(['a', 'stop']);
    expect(state.read).toBe(3);
  });

  it('throws a failure before settling through toError, or as is without it', async () => {
    const reset = new TypeError('terminated');
    const mapped = new Error('mapped');
    await expect(
      texts(mapStream(opened(['a'], reset), new TextMapper(), { toError: () => mapped })),
    ).rejects.toBe(mapped);
    await expect(texts(mapStream(opened(['a'], reset), new TextMapper()))).rejects.toBe(reset);
  });

  it('throws what open throws as is, without toError', async () => {
    const refused = new Error('refused');
    const open = () => Promise.reject(refused);
    const toError = () => new Error('mapped');
    await expect(texts(mapStream(open, new TextMapper(), { toError }))).rejects.toBe(refused);
  });
});
