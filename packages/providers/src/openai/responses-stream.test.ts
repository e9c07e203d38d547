import { ProviderError, type StreamEvent } from '@mh/core';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { ResponsesStreamMapper } from './responses-stream.js';

const context = { provider: 'openai', endpoint: 'http://test' };

function play(events: readonly Record<string, unknown>[]): StreamEvent[] {
  const mapper = new ResponsesStreamMapper(context);
  return [
    ...events.flatMap((event) => mapper.push(event as unknown as ResponseStreamEvent)),
    ...mapper.end(),
  ];
}

function failure(events: readonly Record<string, unknown>[]): ProviderError {
  try {
    play(events);
  } catch (error) {
    expect(ProviderError.isInstance(error)).toBe(true);
    return error as ProviderError;
  }
  throw new Error('expected a ProviderError');
}

const created = { type: 'response.created', response: { id: 'resp_1', model: 'gpt-x' } };
const completed = (usage?: unknown) => ({
  type: 'response.completed',
  response: { id: 'resp_1', status: 'completed', usage },
});
type End = Extract<StreamEvent, { type: 'message-end' }>;
const endOf = (events: StreamEvent[]): End => events.at(-1) as End;

describe('ResponsesStreamMapper', () => {
  it('separates summary parts of one reasoning item and keeps id and encrypted content', () => {
    const events = play([
      created,
      {
        type: 'response.output_item.added',
        output_index: 0,
        item: { id: 'rs_1', type: 'reasoning', summary: [] },
      },
      {
        type: 'response.reasoning_summary_part.added',
        item_id: 'rs_1',
        output_index: 0,
        summary_index: 0,
      },
      {
        type: 'response.reasoning_summary_text.delta',
        item_id: 'rs_1',
        output_index: 0,
        delta: 'One',
      },
      {
        type: 'response.reasoning_summary_part.added',
        item_id: 'rs_1',
        output_index: 0,
        summary_index: 1,
      },
      {
        type: 'response.reasoning_summary_text.delta',
        item_id: 'rs_1',
        output_index: 0,
        delta: 'Two',
      },
      {
        type: 'response.output_item.done',
        output_index: 0,
        item: {
          id: 'rs_1',
          type: 'reasoning',
          encrypted_content: 'enc',
          summary: [
            { type: 'summary_text', text: 'One' },
            { type: 'summary_text', text: 'Two' },
          ],
        },
      },
      completed(),
    ]);
    const thinking = events
      .filter((event) => event.type === 'thinking-delta')
      .map((event) => (event.type === 'thinking-delta' ? event.text : ''))
      .join('');
    expect(thinking).toBe('One\n\nTwo');
    expect(endOf(events).message.content).toEqual([
      { type: 'thinking', thinking: 'One\n\nTwo', signature: 'rs_1', redacted: 'enc' },
    ]);
  });

  it('emits the text of items that arrive without deltas, and orders blocks by output_index', () => {
    const events = play([
      created,
      {
        type: 'response.output_item.done',
        output_index: 1,
        item: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Hi' }],
        },
      },
      {
        type: 'response.output_item.done',
        output_index: 0,
        item: {
          id: 'fc_1',
          type: 'function_call',
          call_id: 'call_1',
          name: 'f',
          arguments: '{"a":1}',
        },
      },
      completed({ input_tokens: 5, output_tokens: 3 }),
    ]);
    expect(events.map((event) => event.type)).toEqual([
      'message-start',
      'text-delta',
      'tool-call-start',
      'tool-call-delta',
      'tool-call-end',
      'usage',
      'message-end',
    ]);
    expect(endOf(events).message.content).toEqual([
      { type: 'tool_use', id: 'call_1', name: 'f', input: { a: 1 } },
      { type: 'text', text: 'Hi' },
    ]);
    expect(endOf(events).stopReason).toBe('tool-use');
  });

  it('keeps streamed text whose item never finished, as when max_output_tokens cuts the answer', () => {
    const events = play([
      created,
      { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, delta: 'Par' },
      { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, delta: 'tial' },
      {
        type: 'response.incomplete',
        response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
      },
    ]);
    expect(endOf(events).stopReason).toBe('max-tokens');
    expect(endOf(events).message.content).toEqual([{ type: 'text', text: 'Partial' }]);
  });

  it('keeps a refusal as text and stops with refusal', () => {
    const events = play([
      created,
      { type: 'response.refusal.delta', item_id: 'msg_1', output_index: 0, delta: 'No.' },
      {
        type: 'response.output_item.done',
        output_index: 0,
        item: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          content: [{ type: 'refusal', refusal: 'No.' }],
        },
      },
      completed(),
    ]);
    expect(endOf(events).stopReason).toBe('refusal');
    expect(endOf(events).message.content).toEqual([{ type: 'text', text: 'No.' }]);
  });

  it('maps response.incomplete for content_filter to refusal', () => {
    const events = play([
      created,
      {
        type: 'response.incomplete',
        response: { status: 'incomplete', incomplete_details: { reason: 'content_filter' } },
      },
    ]);
    expect(endOf(events).stopReason).toBe('refusal');
  });

  it('keeps unknown output items as openai provider blocks', () => {
    const item = { id: 'ig_1', type: 'image_generation_call', status: 'completed', result: 'AAAA' };
    const events = play([
      created,
      { type: 'response.output_item.done', output_index: 0, item },
      completed(),
    ]);
    expect(endOf(events).message.content).toEqual([
      { type: 'provider', provider: 'openai', data: item },
    ]);
  });

  it.each([
    [{ code: 'rate_limit_exceeded', message: 'slow' }, 'rate-limit', true],
    [{ code: 'server_error', message: 'oops' }, 'server', true],
    [{ code: 'invalid_prompt', message: 'flagged' }, 'bad-request', false],
    [{ code: 'insufficient_quota', message: 'quota' }, 'quota', false],
    [{ code: null, message: 'The server is overloaded' }, 'overloaded', true],
  ])('classifies response.failed with %j as %s', (error, kind, retryable) => {
    const thrown = failure([
      created,
      { type: 'response.failed', response: { status: 'failed', error } },
    ]);
    expect(thrown).toMatchObject({ kind, retryable, provider: 'openai' });
  });

  it('classifies a flat error event', () => {
    const thrown = failure([
      created,
      { type: 'error', code: 'context_length_exceeded', message: 'Too long', param: null },
    ]);
    expect(thrown).toMatchObject({ kind: 'context-overflow', retryable: false });
    expect(thrown.message).toContain('Too long');
  });

  it('settles on the terminal event and fails as network without one', () => {
    const mapper = new ResponsesStreamMapper(context);
    mapper.push(created as unknown as ResponseStreamEvent);
    expect(mapper.settled).toBe(false);
    expect(() => mapper.end()).toThrow(/ended without response.completed/);
    mapper.push(completed() as unknown as ResponseStreamEvent);
    expect(mapper.settled).toBe(true);
  });
});
