import {
  CancelledError,
  type ContentBlock,
  estimateTokens,
  type Message,
  type ModelRequest,
  newMessageId,
  type StopReason,
  type StreamEvent,
  type Usage,
} from '@mh/core';
import { estimateRequestTokens } from '@mh/core/internal';

/** One tool call of a scripted or fake assistant turn. */
export interface TurnToolCall {
  /** Call id (default: generated). */
  readonly id?: string;
  /** Tool name. */
  readonly name: string;
  /** Arguments object. */
  readonly input?: unknown;
  /** Raw argument text to send instead of `input` (e.g. broken JSON, to test the executor). */
  readonly rawInput?: string;
}

/** An assistant turn to stream: what the model "says". */
export interface TurnContent {
  /** Reasoning, streamed first as `thinking-delta`s. */
  readonly thinking?: string;
  /** Answer text, streamed as `text-delta`s. */
  readonly text?: string;
  /** Tool calls, streamed after the text. */
  readonly toolCalls?: readonly TurnToolCall[];
  /** Usage to report; estimated from the request and output when absent or partial. */
  readonly usage?: Partial<Usage>;
  /** Stop reason (default: `tool-use` with tool calls, else `end`). */
  readonly stopReason?: StopReason;
}

/** How a turn is streamed. */
export interface StreamTurnOptions {
  /** Model id reported on `message-start` and `message-end`. */
  readonly model: string;
  /** Characters per text delta (default 12). */
  readonly chunkChars?: number;
  /** Pause before each event, in milliseconds (default 0). */
  readonly delayMs?: number;
  /** Aborts the stream: it throws `CancelledError` at the next event. */
  readonly signal?: AbortSignal;
}

function chunks(text: string, size: number): string[] {
  const parts: string[] = [];
  for (let index = 0; index < text.length; index += size)
    parts.push(text.slice(index, index + size));
  return parts;
}

function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new CancelledError('Stream aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Builds the events of one turn, without timing: message-start … message-end. */
export function turnEvents(
  request: ModelRequest,
  turn: TurnContent,
  options: { readonly model: string; readonly chunkChars?: number },
): StreamEvent[] {
  const model = options.model;
  const chunkChars = options.chunkChars ?? 12;
  const events: StreamEvent[] = [];
  const messageId = newMessageId();
  const content: ContentBlock[] = [];
  events.push({ type: 'message-start', id: messageId, model });
  if (turn.thinking) {
    for (const part of chunks(turn.thinking, chunkChars))
      events.push({ type: 'thinking-delta', text: part });
    content.push({
      type: 'thinking',
      thinking: turn.thinking,
      signature: `fake-signature-${turn.thinking.length}`,
    });
  }
  if (turn.text) {
    for (const part of chunks(turn.text, chunkChars))
      events.push({ type: 'text-delta', text: part });
    content.push({ type: 'text', text: turn.text });
  }
  let outputChars = (turn.text?.length ?? 0) + (turn.thinking?.length ?? 0);
  for (const call of turn.toolCalls ?? []) {
    const id = call.id ?? newMessageId('toolu');
    const json = call.rawInput ?? JSON.stringify(call.input ?? {});
    outputChars += json.length + call.name.length;
    events.push({ type: 'tool-call-start', id, name: call.name });
    const half = Math.ceil(json.length / 2);
    for (const part of [json.slice(0, half), json.slice(half)]) {
      if (part.length > 0) events.push({ type: 'tool-call-delta', id, json: part });
    }
    const block =
      call.rawInput === undefined
        ? { type: 'tool_use' as const, id, name: call.name, input: call.input ?? {} }
        : parseRaw(id, call.name, call.rawInput);
    events.push({ type: 'tool-call-end', id, name: call.name, input: block.input });
    content.push(block);
  }
  const usage: Usage = {
    inputTokens: turn.usage?.inputTokens ?? estimateRequestTokens(request),
    outputTokens: turn.usage?.outputTokens ?? Math.max(1, estimateTokens('x'.repeat(outputChars))),
    cacheReadTokens: turn.usage?.cacheReadTokens ?? 0,
    cacheWriteTokens: turn.usage?.cacheWriteTokens ?? 0,
  };
  events.push({ type: 'usage', usage });
  const message: Message = { id: messageId, role: 'assistant', content };
  const stopReason = turn.stopReason ?? ((turn.toolCalls?.length ?? 0) > 0 ? 'tool-use' : 'end');
  events.push({ type: 'message-end', stopReason, message, usage, model });
  return events;
}

function parseRaw(
  id: string,
  name: string,
  rawInput: string,
): Extract<ContentBlock, { type: 'tool_use' }> {
  try {
    const input: unknown = JSON.parse(rawInput);
    if (input !== null && typeof input === 'object' && !Array.isArray(input))
      return { type: 'tool_use', id, name, input };
  } catch {
    // Broken JSON is kept verbatim in rawInput: the executor answers it, the loop does not crash.
  }
  return { type: 'tool_use', id, name, input: {}, rawInput };
}

/** Streams a list of events with the pacing and abort behaviour of `options`. */
export async function* playEvents(
  events: readonly StreamEvent[],
  options: StreamTurnOptions,
): AsyncGenerator<StreamEvent> {
  for (const event of events) {
    if (options.signal?.aborted) throw new CancelledError('Stream aborted');
    if (options.delayMs) await wait(options.delayMs, options.signal);
    yield event;
  }
}
