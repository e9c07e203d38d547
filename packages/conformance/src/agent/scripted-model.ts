import {
  CancelledError,
  type Message,
  type ModelRequest,
  messageText,
  type Provider,
  type StreamEvent,
  type StreamOptions,
  type ToolUseBlock,
  toolResultsOf,
  type Usage,
} from '@mh/core';
import { estimateRequestTokens } from '@mh/core/internal';

/** A tool call the scripted model makes: which tool, and whether the call waits until aborted. */
export interface PlannedCall {
  readonly tool: 'read_note' | 'put_note' | 'send_once' | 'approved_send' | 'asked_send';
  readonly hang?: boolean;
  /** The call takes 25 ms, long enough for a rival to act while it runs. */
  readonly slow?: boolean;
}

/**
 * The conformance suite's model: deterministic and driven by the prompt. A prompt `P7` carries
 * its plan (tool calls per turn) in a table the suite fills; the model answers the newest prompt
 * by making its planned calls, one turn after another, then `answer to P7`. Summary requests get a
 * summary. It counts its calls, so a test can prove a cancelled request was not paid for again.
 */
export class ScriptedModel implements Provider {
  readonly name = 'conformance';
  /** Model calls made (summaries included). */
  calls = 0;
  readonly #plans = new Map<string, readonly (readonly PlannedCall[])[]>();
  readonly #progress = new Map<string, number>();
  readonly #prefix: string;
  #nextCallId = 0;
  #hang: { readonly at: number; readonly partial: boolean } | undefined;
  #hanging: (() => void) | undefined;

  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  /** Records the plan of prompt `label`: the calls of each tool turn, in order. */
  plan(label: string, turns: readonly (readonly PlannedCall[])[]): void {
    this.#plans.set(label, turns);
  }

  /**
   * Makes the model call `turnsFromNow` calls ahead hang (after an optional partial text) until
   * aborted; resolves once it hangs.
   */
  hangAt(turnsFromNow: number, partial: boolean): Promise<void> {
    this.#hang = { at: this.calls + turnsFromNow, partial };
    return new Promise((resolve) => {
      this.#hanging = resolve;
    });
  }

  /** Forgets a hang that was never reached. */
  clearHang(): void {
    this.#hang = undefined;
    this.#hanging = undefined;
  }

  stream(request: ModelRequest, options: StreamOptions = {}): AsyncIterable<StreamEvent> {
    const index = this.calls++;
    const hang = this.#hang?.at === index ? this.#hang : undefined;
    if (hang) {
      this.#hang = undefined;
      const reached = this.#hanging;
      this.#hanging = undefined;
      return hangingStream(hang.partial, options.signal, reached);
    }
    const content = this.#answer(request);
    // Real-looking usage: the context meter sizes the context from it, so compaction can trigger.
    const usage: Usage = { ...USAGE, inputTokens: estimateRequestTokens(request) };
    return replay(content, usage);
  }

  #answer(request: ModelRequest): Message['content'] {
    if (request.purpose === 'summary') {
      return [{ type: 'text', text: `Summary: ${request.messages.length} message(s) so far.` }];
    }
    const label = newestPrompt(request.messages);
    const plan = label === undefined ? undefined : this.#plans.get(label);
    // Progress is counted here, not read off the request: a compacted request no longer shows
    // the turns it folded away, and a real model would not start its plan over either.
    const turn = label === undefined ? 0 : (this.#progress.get(label) ?? 0);
    if (label !== undefined) this.#progress.set(label, turn + 1);
    const calls = plan?.[turn];
    if (!calls || calls.length === 0) return [{ type: 'text', text: `answer to ${label}` }];
    return calls.map(
      (call): ToolUseBlock => ({
        type: 'tool_use',
        id: `${this.#prefix}_${this.#nextCallId++}`,
        name: call.tool,
        input: { note: `${label}`, hang: call.hang === true, slow: call.slow === true },
      }),
    );
  }
}

/** The label of the newest prompt (`P7 please`) in the request. */
function newestPrompt(messages: readonly Message[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as Message;
    if (message.role === 'assistant' || toolResultsOf(message).length > 0) continue;
    // The newest `Pn please` in it: a compaction summary carries the request after its own text.
    const label = [...messageText(message).matchAll(/\b(P\d+) please\b/g)].at(-1)?.[1];
    if (label) return label;
  }
  return undefined;
}

const USAGE: Usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 };

async function* replay(content: Message['content'], usage: Usage): AsyncGenerator<StreamEvent> {
  const id = `msg_${Math.random().toString(36).slice(2)}`;
  yield { type: 'message-start', id };
  for (const block of content) {
    if (block.type === 'text') yield { type: 'text-delta', text: block.text };
    if (block.type === 'tool_use') {
      yield { type: 'tool-call-start', id: block.id, name: block.name };
      yield { type: 'tool-call-delta', id: block.id, json: JSON.stringify(block.input) };
      yield { type: 'tool-call-end', id: block.id, name: block.name, input: block.input };
    }
  }
  yield { type: 'usage', usage };
  const toolUse = content.some((block) => block.type === 'tool_use');
  yield {
    type: 'message-end',
    stopReason: toolUse ? 'tool-use' : 'end',
    message: { id, role: 'assistant', content },
    usage,
  };
}

async function* hangingStream(
  partial: boolean,
  signal: AbortSignal | undefined,
  reached: (() => void) | undefined,
): AsyncGenerator<StreamEvent> {
  yield { type: 'message-start', id: `msg_${Math.random().toString(36).slice(2)}` };
  if (partial) yield { type: 'text-delta', text: 'Let me think' };
  reached?.();
  await new Promise<never>((_resolve, reject) => {
    const stop = (): void => reject(new CancelledError('aborted', { cause: signal?.reason }));
    if (signal?.aborted) stop();
    signal?.addEventListener('abort', stop, { once: true });
  });
}
