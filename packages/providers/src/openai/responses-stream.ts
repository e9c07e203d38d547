import {
  CancelledError,
  type ContentBlock,
  newMessageId,
  ProviderError,
  type StopReason,
  type StreamEvent,
  type Usage,
  ZERO_USAGE,
} from '@mh/core';
import type {
  Response as OpenAIResponse,
  ResponseOutputItem,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses';
import type { StreamMapper } from '../stream-mapper.js';
import { type ErrorContext, errorFromBody } from './openai-error.js';
import { responsesUsage } from './openai-usage.js';
import { RESPONSES_BLOCK_PROVIDER } from './responses-request.js';
import { parseToolArguments } from './tool-arguments.js';

interface Streamed {
  readonly type: 'text-delta' | 'thinking-delta';
  readonly outputIndex: number;
  text: string;
  done: boolean;
}

interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly outputIndex: number;
  json: string;
  ended: boolean;
}

/**
 * Maps a Responses API stream into core events. Output items become blocks in `output_index`
 * order: `message` → text, `reasoning` → thinking (summary text; the item id as `signature`, its
 * encrypted content as `redacted`, so the next request can send it back), `function_call` → a
 * tool call keyed by `call_id`, anything else (hosted tools such as `web_search_call`) → a
 * `ProviderBlock`, never a tool call. `response.completed` / `response.incomplete` end the
 * message; `response.failed` and `error` events throw a `ProviderError`.
 */
export class ResponsesStreamMapper implements StreamMapper<ResponseStreamEvent> {
  readonly #context: ErrorContext;
  #started = false;
  #count = 0;
  #model: string | undefined;
  readonly #blocks = new Map<number, ContentBlock[]>();
  /** Tool calls by output item id. */
  readonly #calls = new Map<string, ToolCall>();
  /** Streamed text and thinking by output item id, until the item is done. */
  readonly #streamed = new Map<string, Streamed>();
  #refused = false;
  #settled = false;
  #stopReason: StopReason = 'end';
  #usage: Usage | undefined;

  /** A mapper for one call; `context` names the provider and endpoint in errors. */
  constructor(context: ErrorContext) {
    this.#context = context;
  }

  /** True once `response.completed` or `response.incomplete` arrived. */
  get settled(): boolean {
    return this.#settled;
  }

  /** The events of one stream event; throws a `ProviderError` for `error` / `response.failed`. */
  push(event: ResponseStreamEvent): StreamEvent[] {
    const events: StreamEvent[] = [];
    this.#count++;
    if (!this.#started) {
      this.#started = true;
      const response = event.type === 'response.created' ? event.response : undefined;
      this.#model = response?.model || undefined;
      events.push({ type: 'message-start', id: response?.id || undefined, model: this.#model });
    }
    switch (event.type) {
      case 'response.output_item.added':
        if (event.item.type === 'function_call')
          this.#startCall(event.item, event.output_index, events);
        break;
      case 'response.output_text.delta':
        this.#delta('text-delta', event, event.delta, events);
        break;
      case 'response.refusal.delta':
        this.#refused = true;
        this.#delta('text-delta', event, event.delta, events);
        break;
      case 'response.reasoning_summary_part.added':
        // Summary parts are paragraphs: keep them apart in the one thinking text.
        if (event.summary_index > 0) this.#delta('thinking-delta', event, '\n\n', events);
        break;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        this.#delta('thinking-delta', event, event.delta, events);
        break;
      case 'response.function_call_arguments.delta': {
        const call = this.#calls.get(event.item_id);
        if (call && !call.ended && event.delta !== '') {
          call.json += event.delta;
          events.push({ type: 'tool-call-delta', id: call.id, json: event.delta });
        }
        break;
      }
      case 'response.function_call_arguments.done': {
        const call = this.#calls.get(event.item_id);
        if (call && !call.ended) call.json = event.arguments;
        break;
      }
      case 'response.output_item.done':
        this.#itemDone(event.item, event.output_index, events);
        break;
      case 'response.completed':
      case 'response.incomplete':
        this.#finish(event.response, event.type === 'response.incomplete', events);
        break;
      case 'response.failed':
        throw errorFromBody(
          event.response.error ?? { message: 'the response failed without an error object' },
          this.#context,
          'in response.failed',
        );
      case 'error':
        throw errorFromBody(event, this.#context, 'event inside the stream');
    }
    return events;
  }

  /**
   * `usage` and `message-end`; a `CancelledError` when the caller's signal ended the stream; a
   * `network` `ProviderError` when no terminal event came.
   */
  end(): StreamEvent[] {
    if (this.#context.signal?.aborted) {
      throw new CancelledError(`${this.#context.provider}: call cancelled`);
    }
    if (!this.#settled) {
      throw new ProviderError(
        `${this.#context.provider}: the stream from ${this.#context.endpoint} ended without response.completed after ${this.#count} event${this.#count === 1 ? '' : 's'}; the answer is incomplete`,
        { kind: 'network', provider: this.#context.provider },
      );
    }
    const content = [...this.#blocks.entries()]
      .sort(([a], [b]) => a - b)
      .flatMap(([, blocks]) => blocks);
    const events: StreamEvent[] = [];
    if (this.#usage) events.push({ type: 'usage', usage: this.#usage });
    events.push({
      type: 'message-end',
      stopReason: this.#stopReason,
      message: { id: newMessageId(), role: 'assistant', content },
      usage: this.#usage ?? ZERO_USAGE,
      model: this.#model,
    });
    return events;
  }

  #delta(
    type: Streamed['type'],
    where: { readonly item_id: string; readonly output_index: number },
    text: string,
    events: StreamEvent[],
  ): void {
    if (text === '') return;
    const streamed = this.#streamed.get(where.item_id);
    if (streamed) streamed.text += text;
    else {
      this.#streamed.set(where.item_id, {
        type,
        outputIndex: where.output_index,
        text,
        done: false,
      });
    }
    events.push({ type, text });
  }

  #add(outputIndex: number, block: ContentBlock): void {
    const blocks = this.#blocks.get(outputIndex);
    if (blocks) blocks.push(block);
    else this.#blocks.set(outputIndex, [block]);
  }

  #startCall(
    item: { id?: string; call_id: string; name: string; arguments?: string },
    outputIndex: number,
    events: StreamEvent[],
  ): ToolCall {
    const call: ToolCall = {
      id: item.call_id,
      name: item.name,
      outputIndex,
      json: item.arguments ?? '',
      ended: false,
    };
    this.#calls.set(item.id ?? item.call_id, call);
    events.push({ type: 'tool-call-start', id: call.id, name: call.name });
    if (call.json !== '') events.push({ type: 'tool-call-delta', id: call.id, json: call.json });
    return call;
  }

  #endCall(call: ToolCall, events: StreamEvent[]): void {
    call.ended = true;
    const { input, rawInput } = parseToolArguments(call.json);
    events.push({ type: 'tool-call-end', id: call.id, name: call.name, input });
    this.#add(call.outputIndex, {
      type: 'tool_use',
      id: call.id,
      name: call.name,
      input,
      ...(rawInput === undefined ? {} : { rawInput }),
    });
  }

  /**
   * The item's final text: what was streamed, or else the text the item carries, emitted now as
   * a delta (some servers send only the finished item).
   */
  #catchUp(
    type: Streamed['type'],
    itemId: string,
    outputIndex: number,
    full: string,
    events: StreamEvent[],
  ): string {
    const streamed = this.#streamed.get(itemId);
    if (streamed) {
      streamed.done = true;
      return streamed.text;
    }
    this.#delta(type, { item_id: itemId, output_index: outputIndex }, full, events);
    const added = this.#streamed.get(itemId);
    if (added) added.done = true;
    return full;
  }

  #itemDone(item: ResponseOutputItem, outputIndex: number, events: StreamEvent[]): void {
    if (item.type === 'function_call') {
      const known = this.#calls.get(item.id ?? item.call_id);
      const call = known ?? this.#startCall({ ...item, arguments: '' }, outputIndex, events);
      if (call.ended) return;
      if (!known && item.arguments !== '') {
        events.push({ type: 'tool-call-delta', id: call.id, json: item.arguments });
      }
      call.json = item.arguments || call.json;
      this.#endCall(call, events);
    } else if (item.type === 'message') {
      let full = '';
      for (const part of item.content) {
        if (part.type === 'output_text') full += part.text;
        if (part.type === 'refusal') {
          full += part.refusal;
          this.#refused = true;
        }
      }
      const text = this.#catchUp('text-delta', item.id, outputIndex, full, events);
      if (text !== '') this.#add(outputIndex, { type: 'text', text });
    } else if (item.type === 'reasoning') {
      const summary = item.summary.map((part) => part.text).join('\n\n');
      const thinking = this.#catchUp('thinking-delta', item.id, outputIndex, summary, events);
      const redacted = item.encrypted_content ?? undefined;
      if (thinking === '' && redacted === undefined) return;
      this.#add(outputIndex, {
        type: 'thinking',
        thinking,
        signature: item.id,
        ...(redacted === undefined ? {} : { redacted }),
      });
    } else {
      this.#add(outputIndex, { type: 'provider', provider: RESPONSES_BLOCK_PROVIDER, data: item });
    }
  }

  #finish(response: OpenAIResponse, incomplete: boolean, events: StreamEvent[]): void {
    // A call still open here was cut off: it is kept (with its raw text) but never complete.
    for (const call of this.#calls.values()) if (!call.ended) this.#endCall(call, events);
    // Streamed text whose item never finished (a lax server, or a cut-off answer) is kept too.
    for (const streamed of this.#streamed.values()) {
      if (streamed.done || streamed.text === '') continue;
      this.#add(
        streamed.outputIndex,
        streamed.type === 'text-delta'
          ? { type: 'text', text: streamed.text }
          : { type: 'thinking', thinking: streamed.text },
      );
    }
    if (response.usage) this.#usage = responsesUsage(response.usage);
    if (incomplete || response.status === 'incomplete') {
      const reason = response.incomplete_details?.reason;
      this.#stopReason =
        reason === 'max_output_tokens'
          ? 'max-tokens'
          : reason === 'content_filter'
            ? 'refusal'
            : 'other';
    } else {
      this.#stopReason = this.#calls.size > 0 ? 'tool-use' : this.#refused ? 'refusal' : 'end';
    }
    this.#settled = true;
  }
}
