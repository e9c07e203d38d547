import {
  CancelledError,
  type Message,
  type ModelRequest,
  newMessageId,
  type Provider,
  type StopReason,
  type StreamEvent,
  type StreamOptions,
  type Usage,
} from '@mh/core';

/** One scripted model call. */
export interface Turn {
  /** Text of the answer. */
  readonly text?: string;
  /** Tool calls after the text. */
  readonly calls?: readonly {
    readonly id: string;
    readonly name: string;
    readonly input?: unknown;
  }[];
  /** Usage; missing fields are 0. */
  readonly usage?: Partial<Usage>;
  /** The model reported on `message-end`. */
  readonly model?: string;
  /** A broken first attempt: its text streams, then a `stream-reset` (a retry replaced it). */
  readonly reset?: {
    readonly text: string;
    readonly reason: string;
    readonly usage?: Partial<Usage>;
  };
  /** Thrown before the first event. */
  readonly error?: Error;
  /** Streams the text, then waits until the call is aborted. */
  readonly hang?: boolean;
  /** Milliseconds to wait before the first chunk. */
  readonly delayMs?: number;
}

function usageOf(partial: Partial<Usage> | undefined): Usage {
  return {
    inputTokens: partial?.inputTokens ?? 0,
    outputTokens: partial?.outputTokens ?? 0,
    cacheReadTokens: partial?.cacheReadTokens ?? 0,
    cacheWriteTokens: partial?.cacheWriteTokens ?? 0,
  };
}

function waitUntilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    const fail = (): void => reject(new CancelledError('aborted'));
    if (signal?.aborted) fail();
    else signal?.addEventListener('abort', fail, { once: true });
  });
}

/** A provider for tests that plays `turns` in order, one per model call, as real adapters stream. */
export class ScriptedProvider implements Provider {
  readonly name = 'scripted';
  readonly requests: ModelRequest[] = [];
  readonly #turns: readonly Turn[];

  constructor(turns: readonly Turn[]) {
    this.#turns = turns;
  }

  stream(request: ModelRequest, options?: StreamOptions): AsyncIterable<StreamEvent> {
    const turn = this.#turns[this.requests.length];
    this.requests.push(request);
    if (turn === undefined) throw new Error(`no turn ${this.requests.length}`);
    return play(turn, request.model, options?.signal);
  }
}

async function* play(turn: Turn, model: string, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
  if (turn.error) throw turn.error;
  if (turn.delayMs) await new Promise((resolve) => setTimeout(resolve, turn.delayMs));
  if (turn.reset) {
    yield { type: 'message-start', id: 'attempt-1', model };
    yield { type: 'text-delta', text: turn.reset.text };
    yield {
      type: 'stream-reset',
      attempt: 2,
      reason: turn.reset.reason,
      usage: usageOf(turn.reset.usage),
    };
  }
  const message: Message = { id: newMessageId('msg'), role: 'assistant', content: [] };
  const content: Message['content'][number][] = [];
  yield { type: 'message-start', id: message.id, model };
  if (turn.text) {
    content.push({ type: 'text', text: turn.text });
    yield { type: 'text-delta', text: turn.text };
  }
  if (turn.hang) await waitUntilAborted(signal);
  for (const call of turn.calls ?? []) {
    const input = call.input ?? {};
    content.push({ type: 'tool_use', id: call.id, name: call.name, input });
    yield { type: 'tool-call-start', id: call.id, name: call.name };
    yield { type: 'tool-call-delta', id: call.id, json: JSON.stringify(input) };
    yield { type: 'tool-call-end', id: call.id, name: call.name, input };
  }
  const usage = usageOf(turn.usage);
  const stopReason: StopReason = (turn.calls ?? []).length > 0 ? 'tool-use' : 'end';
  yield { type: 'usage', usage };
  yield {
    type: 'message-end',
    stopReason,
    message: { ...message, content },
    usage,
    model: turn.model ?? model,
  };
}
