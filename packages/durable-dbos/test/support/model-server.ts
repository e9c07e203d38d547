import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One tool call the scripted model makes. */
interface ScriptCall {
  readonly name: string;
  readonly args: Record<string, unknown>;
}

/** A turn of the script: tool calls, or the final text. */
type ScriptTurn = { readonly calls: readonly ScriptCall[] } | { readonly text: string };

/**
 * The runs' scripts, by the kind named in the prompt (`run <id> <kind>`):
 * - `plain`: save a; then lookup and save b; then the answer.
 * - `approve`: a save that needs approval; then the answer.
 * - `fast`: the answer at once; `queued`: the answer after 150 ms.
 */
const SCRIPTS: Readonly<Record<string, readonly ScriptTurn[]>> = {
  plain: [
    { calls: [{ name: 'save', args: { note: 'a' } }] },
    {
      calls: [
        { name: 'lookup', args: {} },
        { name: 'save', args: { note: 'b' } },
      ],
    },
    { text: 'done' },
  ],
  approve: [{ calls: [{ name: 'save', args: { note: 'approve-me' } }] }, { text: 'done' }],
  fast: [{ text: 'done' }],
  queued: [{ text: 'done' }],
};

/** How long the answer of a kind takes, in ms (so runs overlap and a concurrency limit shows). */
const DELAYS: Readonly<Record<string, number>> = { queued: 150 };

/** A model call as the server saw it. */
export interface ModelRequest {
  /** `<run id>#<turn>`. */
  readonly key: string;
  readonly run: string;
  readonly turn: number;
  /** The pid of the worker that made it (`x-mh-worker`). */
  readonly worker: string;
  /** Whether the whole response was written before the client went away. */
  finished: boolean;
}

/**
 * A loopback OpenAI Chat Completions server that plays each run's script, in the vendor's
 * streaming wire shape, for the real `openai` SDK in the workers. It records every request, can
 * hold one back (to kill a worker mid-call), and tracks how many `queued` runs are active at once
 * (from a run's first request to the moment its answer is sent).
 */
export class ModelServer {
  readonly requests: ModelRequest[] = [];
  #server: Server | undefined;
  #holds = new Map<string, { arrived: () => void; release?: () => void }>();
  #active = new Set<string>();
  maxActive = 0;

  async start(): Promise<string> {
    const server = createServer((request, response) => this.#handle(request, response));
    this.#server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  }

  /** Resolves when the request `key` arrives; its response then waits for `release()`. */
  hold(key: string): { arrived: Promise<void>; release: () => void } {
    let arrived!: () => void;
    const promise = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const entry: { arrived: () => void; release?: () => void } = { arrived };
    this.#holds.set(key, entry);
    return {
      arrived: promise,
      release: () => {
        this.#holds.delete(key);
        entry.release?.();
      },
    };
  }

  /** Keys answered in full more than once: a finished model call made again. */
  finishedTwice(): string[] {
    const counts = new Map<string, number>();
    for (const request of this.requests)
      if (request.finished) counts.set(request.key, (counts.get(request.key) ?? 0) + 1);
    return [...counts].filter(([, count]) => count > 1).map(([key]) => key);
  }

  async stop(): Promise<void> {
    for (const hold of this.#holds.values()) hold.release?.();
    const server = this.#server;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  #handle(request: IncomingMessage, response: ServerResponse): void {
    let body = '';
    request.on('data', (chunk) => {
      body += String(chunk);
    });
    request.on('end', () => {
      const parsed = JSON.parse(body) as { messages: { role: string; content: unknown }[] };
      // The run's prompt is the last user message: a session's later run continues its history.
      const at = parsed.messages.map((m) => m.role).lastIndexOf('user');
      const prompt = parsed.messages[at];
      const text =
        typeof prompt?.content === 'string' ? prompt.content : JSON.stringify(prompt?.content);
      const [, run = 'unknown', kind = 'plain'] = /run (\S+) (\S+)/.exec(text) ?? [];
      const turn = parsed.messages.slice(at).filter((m) => m.role === 'assistant').length;
      const key = `${run}#${turn}`;
      const seen: ModelRequest = {
        key,
        run,
        turn,
        worker: String(request.headers['x-mh-worker'] ?? ''),
        finished: false,
      };
      this.requests.push(seen);
      // Only runs of kind `queued` count: a run of another test may never reach its answer.
      const counted = kind === 'queued';
      if (counted && turn === 0) {
        this.#active.add(run);
        this.maxActive = Math.max(this.maxActive, this.#active.size);
      }
      const script = SCRIPTS[kind] ?? SCRIPTS.plain ?? [];
      const step = script[Math.min(turn, script.length - 1)] ?? { text: 'done' };
      const answer = (): void => {
        // A worker killed while its call was held never gets the answer.
        if (request.socket.destroyed) return;
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        // A run stops counting as active once its answer is on its way: its worker may finish it,
        // and the queue start the next run, before this process sees the write complete.
        if (counted && 'text' in step) this.#active.delete(run);
        response.end(streamOf(step, run, turn), () => {
          seen.finished = true;
        });
      };
      const hold = this.#holds.get(key);
      if (hold) {
        hold.release = answer;
        hold.arrived();
      } else setTimeout(answer, DELAYS[kind] ?? 0);
    });
  }
}

const data = (payload: unknown): string => `data: ${JSON.stringify(payload)}\n\n`;

/** One scripted turn as an OpenAI Chat Completions stream. */
function streamOf(step: ScriptTurn, run: string, turn: number): string {
  const chunk = (choice: Record<string, unknown>) => ({
    id: `chatcmpl-${run}-${turn}`,
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4.1-mini',
    choices: [{ index: 0, logprobs: null, finish_reason: null, ...choice }],
  });
  const parts: string[] = [];
  if ('text' in step) {
    parts.push(data(chunk({ delta: { role: 'assistant', content: `${step.text} ${run}` } })));
    parts.push(data(chunk({ delta: {}, finish_reason: 'stop' })));
  } else {
    const toolCalls = step.calls.map((call, index) => ({
      index,
      id: `call_${run}_${turn}_${index}`,
      type: 'function',
      function: { name: call.name, arguments: JSON.stringify(call.args) },
    }));
    parts.push(data(chunk({ delta: { role: 'assistant', content: null, tool_calls: toolCalls } })));
    parts.push(data(chunk({ delta: {}, finish_reason: 'tool_calls' })));
  }
  parts.push(
    data({ ...chunk({}), choices: [], usage: { prompt_tokens: 20, completion_tokens: 5 } }),
  );
  parts.push('data: [DONE]\n\n');
  return parts.join('');
}
