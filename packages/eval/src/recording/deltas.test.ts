import type { StreamEvent } from '@mh/core';
import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../cassette/format.js';
import { scrubDeltas } from './deltas.js';
import { createScrubber } from './scrub.js';

const KEY = `sk-ant-api03-${'k'.repeat(30)}`;
const scrubber = createScrubber(['hunter2-password'], {});

function recorded(events: StreamEvent[]): RecordedEvent[] {
  return events.map((event, index) => ({ ms: index, event }));
}

function joined(events: RecordedEvent[], type: string): string {
  return events
    .filter(({ event }) => event.type === type)
    .map(({ event }) => ('text' in event ? event.text : 'json' in event ? event.json : ''))
    .join('');
}

describe('scrubDeltas', () => {
  it('masks a key split across text deltas and keeps the number of events', () => {
    const events = recorded([
      { type: 'message-start' },
      { type: 'text-delta', text: `Your key is ${KEY.slice(0, 10)}` },
      { type: 'text-delta', text: KEY.slice(10, 30) },
      { type: 'text-delta', text: `${KEY.slice(30)}, keep it safe.` },
    ]);
    const scrubbed = scrubDeltas(events, scrubber);
    expect(scrubbed).toHaveLength(4);
    expect(joined(scrubbed, 'text-delta')).toBe(
      'Your key is [REDACTED:anthropic-key], keep it safe.',
    );
    expect(scrubbed.map(({ ms }) => ms)).toEqual([0, 1, 2, 3]);
    expect(JSON.stringify(scrubbed)).not.toContain('kkkk');
  });

  it("masks a literal split across one tool call's argument deltas, and not another's", () => {
    const events = recorded([
      { type: 'tool-call-start', id: 'a', name: 'login' },
      { type: 'tool-call-delta', id: 'a', json: '{"password":"hunter2' },
      { type: 'tool-call-start', id: 'b', name: 'echo' },
      { type: 'tool-call-delta', id: 'b', json: '{"text":"-password"}' },
      { type: 'tool-call-delta', id: 'a', json: '-password"}' },
    ]);
    const scrubbed = scrubDeltas(events, scrubber);
    const json = (id: string) =>
      scrubbed
        .map(({ event }) => (event.type === 'tool-call-delta' && event.id === id ? event.json : ''))
        .join('');
    expect(json('a')).toBe('{"password":"[REDACTED:secret]"}');
    expect(json('b')).toBe('{"text":"-password"}');
  });

  it('treats the attempts before and after a stream-reset separately', () => {
    const events = recorded([
      { type: 'thinking-delta', text: 'hunter2-pass' },
      { type: 'stream-reset', attempt: 2, reason: 'overloaded' },
      { type: 'thinking-delta', text: 'word' },
    ]);
    expect(scrubDeltas(events, scrubber)).toEqual(events);
  });

  it('returns the events unchanged when there is nothing to mask', () => {
    const events = recorded([{ type: 'text-delta', text: 'Hello' }]);
    expect(scrubDeltas(events, scrubber)).toEqual(events);
  });
});
