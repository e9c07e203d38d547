import {
  CancelledError,
  type ContentBlock,
  newMessageId,
  ProviderError,
  type StopReason,
  type StreamEvent,
  type ToolUseBlock,
  type Usage,
  ZERO_USAGE,
} from '@mh/core';
import type { StreamMapper } from '../stream-mapper.js';
import type { ErrorContext } from './openai-error.js';
import { type ChatUsageFields, chatUsage } from './openai-usage.js';
import { parseToolArguments } from './tool-arguments.js';

/** One tool-call fragment of a chunk, as OpenAI and compatible servers send it. */
export interface ChatToolCallDelta {
  /** Which call of the message the fragment belongs to (parallel calls differ). */
  readonly index?: number | null;
  /** The call id: on the first fragment only (Qwen repeats it as `""`). */
  readonly id?: string | null;
  /** The function called and a piece of its arguments. */
  readonly function?: {
    /** The tool name: on the first fragment (some servers repeat it). */
    readonly name?: string | null;
    /** A piece of the JSON argument text (a few servers send an object). */
    readonly arguments?: unknown;
  } | null;
}

/** A Chat Completions stream chunk, loosely typed: compatible servers add and omit fields. */
export interface ChatChunk {
  /** The completion id, the same on every chunk. */
  readonly id?: string | null;
  /** The model that answers. */
  readonly model?: string | null;
  /** The choices; `[]` on the trailing usage chunk. Only choice 0 is read. */
  readonly choices?: ReadonlyArray<{
    /** Which choice (0 unless `n` > 1). */
    readonly index?: number | null;
    /** What this chunk adds. */
    readonly delta?: {
      /** Answer text. */
      readonly content?: string | null;
      /** Refusal text (OpenAI), shown as text. */
      readonly refusal?: string | null;
      /** DeepSeek, Qwen, older vLLM. */
      readonly reasoning_content?: string | null;
      /** vLLM, OpenRouter, Ollama. */
      readonly reasoning?: unknown;
      /** Tool-call fragments. */
      readonly tool_calls?: readonly ChatToolCallDelta[] | null;
    } | null;
    /** Set on the last content chunk: `stop`, `tool_calls`, `length`, `content_filter`. */
    readonly finish_reason?: string | null;
  }> | null;
  /** Token counts: on a trailing `choices: []` chunk, or on the finish chunk (DeepSeek). */
  readonly usage?: ChatUsageFields | null;
}

interface ToolCall {
  id: string;
  name: string;
  json: string;
  started: boolean;
  /** Whether `id` came from the server (not generated because it sent none). */
  readonly serverId: boolean;
}

const FINISH_REASONS: Readonly<Record<string, StopReason>> = {
  stop: 'end',
  tool_calls: 'tool-use',
  function_call: 'tool-use',
  length: 'max-tokens',
  content_filter: 'refusal',
};

/**
 * Maps a Chat Completions stream (OpenAI or a compatible server) into core events: `content` →
 * text, `reasoning_content`/`reasoning` → thinking, `refusal` → text with stop reason `refusal`,
 * tool-call fragments keyed by `index` → tool calls, `usage` from whichever chunk carries it.
 * Tool calls end when the `finish_reason` arrives; `message-end` comes when the body ends.
 */
export class ChatStreamMapper implements StreamMapper<ChatChunk> {
  readonly #context: ErrorContext;
  #started = false;
  #chunks = 0;
  #model: string | undefined;
  #thinking = '';
  #text = '';
  #refused = false;
  readonly #byIndex = new Map<number, ToolCall>();
  readonly #calls: ToolCall[] = [];
  readonly #blocks: ToolUseBlock[] = [];
  #finishReason: string | undefined;
  #usage: Usage | undefined;

  /** A mapper for one call; `context` names the provider and endpoint in errors. */
  constructor(context: ErrorContext) {
    this.#context = context;
  }

  /** True once both the finish reason and the usage arrived. */
  get settled(): boolean {
    return this.#finishReason !== undefined && this.#usage !== undefined;
  }

  /** The events of one chunk. */
  push(chunk: ChatChunk): StreamEvent[] {
    const events: StreamEvent[] = [];
    this.#chunks++;
    if (!this.#started) {
      this.#started = true;
      this.#model = chunk.model || undefined;
      events.push({ type: 'message-start', id: chunk.id || undefined, model: this.#model });
    }
    if (chunk.usage) this.#usage = chatUsage(chunk.usage);
    // Only the first choice is read: the adapter never asks for n > 1.
    const choice = chunk.choices?.find((candidate) => (candidate.index ?? 0) === 0);
    if (!choice) return events;
    const delta = choice.delta ?? {};
    // The first non-empty of the two: servers in transition send both with the same text.
    const reasoning = [delta.reasoning_content, delta.reasoning].find(
      (value): value is string => typeof value === 'string' && value !== '',
    );
    if (reasoning !== undefined) {
      this.#thinking += reasoning;
      events.push({ type: 'thinking-delta', text: reasoning });
    }
    this.#textDelta(delta.content, events);
    // A refusal is kept as text, so the user sees why the model declined.
    if (this.#textDelta(delta.refusal, events)) this.#refused = true;
    for (const call of delta.tool_calls ?? []) this.#toolDelta(call, events);
    if (choice.finish_reason) {
      this.#finishReason = choice.finish_reason;
      this.#endToolCalls(events);
    }
    return events;
  }

  /**
   * `usage` and `message-end`; a `CancelledError` when the caller's signal ended the stream; a
   * `network` `ProviderError` when no finish reason came.
   */
  end(): StreamEvent[] {
    if (this.#context.signal?.aborted) {
      throw new CancelledError(`${this.#context.provider}: call cancelled`);
    }
    if (this.#finishReason === undefined) {
      throw new ProviderError(
        `${this.#context.provider}: the stream from ${this.#context.endpoint} ended without a finish_reason after ${this.#chunks} chunk${this.#chunks === 1 ? '' : 's'}; the answer is incomplete`,
        { kind: 'network', provider: this.#context.provider },
      );
    }
    const content: ContentBlock[] = [];
    if (this.#thinking !== '') content.push({ type: 'thinking', thinking: this.#thinking });
    if (this.#text !== '') content.push({ type: 'text', text: this.#text });
    content.push(...this.#blocks);
    const events: StreamEvent[] = [];
    if (this.#usage) events.push({ type: 'usage', usage: this.#usage });
    events.push({
      type: 'message-end',
      stopReason: this.#stopReason(),
      message: { id: newMessageId(), role: 'assistant', content },
      usage: this.#usage ?? ZERO_USAGE,
      model: this.#model,
    });
    return events;
  }

  #stopReason(): StopReason {
    if (this.#refused) return 'refusal';
    const reason = FINISH_REASONS[this.#finishReason ?? ''] ?? 'other';
    // Ollama and some vLLM versions report `stop` on a turn that called tools.
    return reason === 'end' && this.#blocks.length > 0 ? 'tool-use' : reason;
  }

  #textDelta(text: string | null | undefined, events: StreamEvent[]): boolean {
    if (typeof text !== 'string' || text === '') return false;
    this.#text += text;
    events.push({ type: 'text-delta', text });
    return true;
  }

  #toolDelta(delta: ChatToolCallDelta, events: StreamEvent[]): void {
    const id = delta.id || undefined;
    const index = typeof delta.index === 'number' ? delta.index : undefined;
    const name = delta.function?.name;
    let call = index === undefined ? this.#calls.at(-1) : this.#byIndex.get(index);
    // A different server id at the same index starts a new call (servers that reuse index 0).
    if (call && id !== undefined && call.serverId && call.id !== id) call = undefined;
    // Without an index: a new id, or a name after complete arguments, starts a new call.
    if (call && index === undefined) {
      const named = typeof name === 'string' && name !== '';
      const complete = (json: string): boolean =>
        json !== '' && parseToolArguments(json).rawInput === undefined;
      if ((id !== undefined && call.id !== id) || (named && complete(call.json))) call = undefined;
    }
    if (!call) {
      call = {
        id: id ?? newMessageId('call'),
        name: '',
        json: '',
        started: false,
        serverId: id !== undefined,
      };
      this.#byIndex.set(index ?? this.#calls.length, call);
      this.#calls.push(call);
    }
    if (!call.started && typeof name === 'string' && name !== '') call.name = name;
    const raw = delta.function?.arguments;
    const piece = typeof raw === 'string' ? raw : raw == null ? '' : JSON.stringify(raw);
    call.json += piece;
    if (!call.started && call.name !== '') {
      this.#start(call, events);
    } else if (call.started && piece !== '') {
      events.push({ type: 'tool-call-delta', id: call.id, json: piece });
    }
  }

  #start(call: ToolCall, events: StreamEvent[]): void {
    call.started = true;
    events.push({ type: 'tool-call-start', id: call.id, name: call.name });
    if (call.json !== '') events.push({ type: 'tool-call-delta', id: call.id, json: call.json });
  }

  #endToolCalls(events: StreamEvent[]): void {
    for (const call of this.#calls.splice(0)) {
      if (!call.started) this.#start(call, events);
      const { input, rawInput } = parseToolArguments(call.json);
      events.push({ type: 'tool-call-end', id: call.id, name: call.name, input });
      this.#blocks.push({
        type: 'tool_use',
        id: call.id,
        name: call.name,
        input,
        ...(rawInput === undefined ? {} : { rawInput }),
      });
    }
    this.#byIndex.clear();
  }
}
