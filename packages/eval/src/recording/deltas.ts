import type { StreamEvent } from '@mh/core';
import type { RecordedEvent } from '../cassette/format.js';
import type { Scrubber } from './scrub.js';

type Delta = Extract<StreamEvent, { type: 'text-delta' | 'thinking-delta' | 'tool-call-delta' }>;

function pieceOf(event: Delta): string {
  return event.type === 'tool-call-delta' ? event.json : event.text;
}

function withPiece(event: Delta, piece: string): Delta {
  return event.type === 'tool-call-delta' ? { ...event, json: piece } : { ...event, text: piece };
}

/**
 * Scrubs secrets that a stream split across deltas. A provider streams text and tool-call
 * arguments in fragments, so a key the model repeats can arrive in pieces no pattern would match
 * one by one. Each channel (text, thinking, each tool call's arguments; a `stream-reset` starts
 * new channels) is joined, scrubbed, and, when that changed it, cut again into the same number of
 * events, each as long as before (the last takes the rest). Returns the events, changed or not.
 */
export function scrubDeltas(events: readonly RecordedEvent[], scrubber: Scrubber): RecordedEvent[] {
  const channels = new Map<string, number[]>();
  let attempt = 0;
  events.forEach(({ event }, index) => {
    if (event.type === 'stream-reset') attempt++;
    const channel =
      event.type === 'text-delta' || event.type === 'thinking-delta'
        ? `${attempt}:${event.type}`
        : event.type === 'tool-call-delta'
          ? `${attempt}:tool:${event.id}`
          : undefined;
    if (channel === undefined) return;
    const list = channels.get(channel) ?? [];
    list.push(index);
    channels.set(channel, list);
  });
  const out = events.slice();
  for (const indexes of channels.values()) {
    const deltas = indexes.map((index) => out[index]?.event as Delta);
    const pieces = deltas.map(pieceOf);
    const joined = pieces.join('');
    const isJson = deltas[0]?.type === 'tool-call-delta';
    const scrubbed = isJson ? scrubber.json(joined) : scrubber.text(joined);
    if (scrubbed === joined) continue;
    let position = 0;
    indexes.forEach((index, k) => {
      const length = pieces[k]?.length ?? 0;
      const piece =
        k === indexes.length - 1
          ? scrubbed.slice(position)
          : scrubbed.slice(position, position + length);
      position += length;
      const recorded = out[index] as RecordedEvent;
      out[index] = { ms: recorded.ms, event: withPiece(deltas[k] as Delta, piece) };
    });
  }
  return out;
}
