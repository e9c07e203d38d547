import {
  type ContentBlock,
  type Message,
  newMessageId,
  ProviderError,
  type StopReason,
  type StreamEvent,
  type Usage,
  ZERO_USAGE,
} from '@mh/core';
import { toStopReason } from './stop-reason.js';
import { parseToolInput } from './tool-input.js';

type RawObject = Readonly<Record<string, unknown>>;

/** A content block while it streams, keyed by its `index`. */
type OpenBlock =
  | { kind: 'text'; text: string }
  | { kind: 'thinking'; thinking: string; signature: string | undefined }
  | { kind: 'redacted'; data: string }
  | { kind: 'tool'; id: string; name: string; json: string; initial: unknown }
  | { kind: 'provider'; block: RawObject; json: string };

const asObject = (value: unknown): RawObject =>
  typeof value === 'object' && value !== null ? (value as RawObject) : {};
const asString = (value: unknown): string => (typeof value === 'string' ? value : '');
const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

/** Reads an Anthropic `usage` object over `base`: fields that are absent or null keep their value. */
export function usageOf(raw: unknown, base: Usage = ZERO_USAGE): Usage {
  const usage = asObject(raw);
  return {
    inputTokens: count(usage.input_tokens) ?? base.inputTokens,
    outputTokens: count(usage.output_tokens) ?? base.outputTokens,
    cacheReadTokens: count(usage.cache_read_input_tokens) ?? base.cacheReadTokens,
    cacheWriteTokens: count(usage.cache_creation_input_tokens) ?? base.cacheWriteTokens,
  };
}

/**
 * Turns Anthropic's raw stream events, one at a time, into unified `StreamEvent`s and assembles
 * the assistant `Message`. Text and thinking stream as deltas (thinking signatures and redacted
 * thinking are kept for the round trip); `tool_use` blocks become tool calls whose JSON is parsed
 * at block end; server-side tool blocks (`server_tool_use`, `*_tool_result`) and unknown block
 * types are kept as `provider` blocks and never become tool calls. `usage` events carry the call's
 * usage so far (the latest one wins; they are snapshots, not increments).
 */
export class MessageAssembler {
  readonly #blocks = new Map<number, OpenBlock>();
  readonly #done = new Map<number, ContentBlock>();
  #id: string | undefined;
  #model: string | undefined;
  #usage: Usage = ZERO_USAGE;
  #stopReason: string | null | undefined;
  #started = false;
  #ended = false;

  /** Whether `message_stop` was seen, i.e. the message is complete. */
  get ended(): boolean {
    return this.#ended;
  }

  /** The call's usage so far (input from `message_start`, output from `message_delta`). */
  get usage(): Usage {
    return this.#usage;
  }

  /** Accepts one raw event and returns the unified events it produces (often none). */
  accept(raw: unknown): StreamEvent[] {
    const event = asObject(raw);
    const out: StreamEvent[] = [];
    if (this.#ended) return out;
    if (event.type === 'message_start') {
      if (this.#started) throw protocolError('a second message_start arrived in one stream');
      const message = asObject(event.message);
      this.#id = asString(message.id) || undefined;
      this.#model = asString(message.model) || undefined;
      this.#usage = usageOf(message.usage);
      this.#started = true;
      out.push({ type: 'message-start', id: this.#id, model: this.#model });
      out.push({ type: 'usage', usage: this.#usage });
      return out;
    }
    if (!this.#started) {
      // Lenient: a stream missing message_start still yields a well-formed event sequence.
      this.#started = true;
      out.push({ type: 'message-start' });
    }
    const index = typeof event.index === 'number' ? event.index : -1;
    switch (event.type) {
      case 'content_block_start':
        this.#blockStart(index, asObject(event.content_block), out);
        break;
      case 'content_block_delta':
        this.#blockDelta(index, asObject(event.delta), out);
        break;
      case 'content_block_stop':
        this.#blockStop(index, out);
        break;
      case 'message_delta':
        this.#stopReason = (asObject(event.delta).stop_reason as string | null) ?? this.#stopReason;
        this.#usage = usageOf(event.usage, this.#usage);
        out.push({ type: 'usage', usage: this.#usage });
        break;
      case 'message_stop':
        this.#end(out);
        break;
      default:
        // ping (the SDK drops it anyway) and event types newer than this adapter carry nothing used.
        break;
    }
    return out;
  }

  #blockStart(index: number, block: RawObject, out: StreamEvent[]): void {
    this.#blockStop(index, out);
    switch (block.type) {
      case 'text': {
        const text = asString(block.text);
        this.#blocks.set(index, { kind: 'text', text });
        if (text) out.push({ type: 'text-delta', text });
        return;
      }
      case 'thinking': {
        const thinking = asString(block.thinking);
        const signature = asString(block.signature) || undefined;
        this.#blocks.set(index, { kind: 'thinking', thinking, signature });
        if (thinking) out.push({ type: 'thinking-delta', text: thinking });
        return;
      }
      case 'redacted_thinking':
        this.#blocks.set(index, { kind: 'redacted', data: asString(block.data) });
        return;
      case 'tool_use': {
        const id = asString(block.id);
        const name = asString(block.name);
        this.#blocks.set(index, { kind: 'tool', id, name, json: '', initial: block.input });
        out.push({ type: 'tool-call-start', id, name });
        return;
      }
      default:
        this.#blocks.set(index, { kind: 'provider', block, json: '' });
    }
  }

  #blockDelta(index: number, delta: RawObject, out: StreamEvent[]): void {
    const open = this.#blocks.get(index);
    if (open === undefined) return;
    if (delta.type === 'text_delta' && open.kind === 'text') {
      const text = asString(delta.text);
      open.text += text;
      if (text) out.push({ type: 'text-delta', text });
    } else if (delta.type === 'thinking_delta' && open.kind === 'thinking') {
      const text = asString(delta.thinking);
      open.thinking += text;
      if (text) out.push({ type: 'thinking-delta', text });
    } else if (delta.type === 'signature_delta' && open.kind === 'thinking') {
      open.signature = asString(delta.signature);
    } else if (delta.type === 'input_json_delta') {
      const json = asString(delta.partial_json);
      if (open.kind === 'tool') {
        open.json += json;
        if (json) out.push({ type: 'tool-call-delta', id: open.id, json });
      } else if (open.kind === 'provider') {
        open.json += json;
      }
    }
    // citations_delta and unknown deltas: citations are not kept, so the text is sent back plain.
  }

  #blockStop(index: number, out: StreamEvent[]): void {
    const open = this.#blocks.get(index);
    if (open === undefined) return;
    this.#blocks.delete(index);
    this.#done.set(index, this.#close(open, out));
  }

  #close(open: OpenBlock, out: StreamEvent[]): ContentBlock {
    switch (open.kind) {
      case 'text':
        return { type: 'text', text: open.text };
      case 'thinking':
        return open.signature === undefined
          ? { type: 'thinking', thinking: open.thinking }
          : { type: 'thinking', thinking: open.thinking, signature: open.signature };
      case 'redacted':
        return { type: 'thinking', thinking: '', redacted: open.data };
      case 'tool': {
        const parsed =
          open.json === '' && isNonEmptyObject(open.initial)
            ? { input: open.initial }
            : parseToolInput(open.json);
        out.push({ type: 'tool-call-end', id: open.id, name: open.name, input: parsed.input });
        return { type: 'tool_use', id: open.id, name: open.name, ...parsed };
      }
      case 'provider': {
        let data: RawObject = open.block;
        if (open.json !== '') {
          const parsed = parseToolInput(open.json);
          data = { ...open.block, input: parsed.rawInput === undefined ? parsed.input : {} };
        }
        return { type: 'provider', provider: 'anthropic', data };
      }
    }
  }

  #end(out: StreamEvent[]): void {
    // A block cut off by max_tokens may never get its content_block_stop.
    for (const index of [...this.#blocks.keys()].sort((a, b) => a - b)) this.#blockStop(index, out);
    const content = [...this.#done.entries()].sort(([a], [b]) => a - b).map(([, block]) => block);
    const message: Message = { id: this.#id ?? newMessageId(), role: 'assistant', content };
    const stopReason: StopReason = toStopReason(this.#stopReason);
    this.#ended = true;
    out.push({ type: 'message-end', stopReason, message, usage: this.#usage, model: this.#model });
  }
}

function isNonEmptyObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length > 0
  );
}

function protocolError(problem: string): ProviderError {
  return new ProviderError(`Anthropic stream broke the protocol: ${problem}`, {
    kind: 'server',
    provider: 'anthropic',
  });
}
