import {
  ConfigError,
  type Message,
  type ModelRequest,
  messageText,
  type Provider,
  type StreamEvent,
  type StreamOptions,
  type ToolResultBlock,
  type ToolSpec,
  toolResultText,
  unfenceUntrusted,
} from '@mh/core';
import { assertOptions, assertTimerMs } from '@mh/core/internal';
import { fakeSummary } from './fake-summary.js';
import { playEvents, type TurnContent, turnEvents } from './stream-turn.js';

/** Options of `fake`. */
export interface FakeOptions {
  /** Model id reported in events (default `fake`). */
  readonly model?: string;
  /** Pause before each stream event in milliseconds, to watch streaming (default 0). */
  readonly delayMs?: number;
  /** Characters per text delta (default 12). */
  readonly chunkChars?: number;
}

const WORD_OPERATORS: readonly [RegExp, string][] = [
  [/\bmultiplied by\b|\btimes\b/gi, '*'],
  [/\bdivided by\b|\bover\b/gi, '/'],
  [/\bplus\b/gi, '+'],
  [/\bminus\b/gi, '-'],
  [/\bto the power of\b/gi, '^'],
  [/[×x](?=\s*\d)/g, '*'],
  [/÷/g, '/'],
];

/** Finds an arithmetic expression in a question, e.g. `What is 6*7?` → `6*7`. */
export function findArithmetic(text: string): string | undefined {
  let normalised = text;
  for (const [pattern, operator] of WORD_OPERATORS)
    normalised = normalised.replace(pattern, operator);
  const candidates = normalised.match(/[-+*/^%().\d\s]+/g) ?? [];
  for (const candidate of candidates) {
    const expression = candidate.trim();
    if (/\d\s*(\*\*|[-+*/^%])\s*[-(\d.]/.test(expression)) return expression.replace(/\s+/g, '');
  }
  return undefined;
}

function findTool(request: ModelRequest, name: string): ToolSpec | undefined {
  return request.tools.find((tool) => tool.name === name);
}

/** The argument name to fill: `preferred` if the schema has it, else its first required property. */
function argumentName(tool: ToolSpec, preferred: string): string {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, unknown>;
  if (preferred in properties) return preferred;
  const required = tool.inputSchema.required;
  if (Array.isArray(required) && typeof required[0] === 'string') return required[0];
  return Object.keys(properties)[0] ?? preferred;
}

function call(tool: ToolSpec, preferred: string, value: string): TurnContent {
  return { toolCalls: [{ name: tool.name, input: { [argumentName(tool, preferred)]: value } }] };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A tool named in the question (`use add with a=2 and b=3`), with `key=value` arguments typed by its schema. */
function namedToolCall(request: ModelRequest, question: string): TurnContent | undefined {
  const tool = request.tools.find((spec) =>
    new RegExp(`(^|[^\\w])${escapeRegExp(spec.name)}($|[^\\w])`).test(question),
  );
  if (!tool) return undefined;
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: unknown }>;
  const input: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(properties)) {
    const match = question.match(
      new RegExp(`\\b${escapeRegExp(key)}\\s*[=:]\\s*(?:"([^"]*)"|'([^']*)'|([^\\s,;]+))`),
    );
    if (!match) continue;
    const raw = match[1] ?? match[2] ?? match[3] ?? '';
    if (schema.type === 'number' || schema.type === 'integer') input[key] = Number(raw);
    else if (schema.type === 'boolean') input[key] = raw === 'true';
    else input[key] = raw;
  }
  const required = Array.isArray(tool.inputSchema.required)
    ? (tool.inputSchema.required as unknown[])
    : [];
  if (!required.every((key) => typeof key === 'string' && key in input)) return undefined;
  return { toolCalls: [{ name: tool.name, input }] };
}

function lastCallNames(messages: readonly Message[]): Map<string, string> {
  const names = new Map<string, string>();
  const assistant = messages[messages.length - 2];
  if (assistant?.role !== 'assistant') return names;
  for (const block of assistant.content)
    if (block.type === 'tool_use') names.set(block.id, block.name);
  return names;
}

function answerFromResults(
  results: readonly ToolResultBlock[],
  names: Map<string, string>,
): TurnContent {
  const parts: string[] = [];
  for (const result of results) {
    const name = names.get(result.toolUseId) ?? 'the tool';
    // The fake model reads fenced data as data (the Agent fences results: its `fencing` option).
    const text = unfenceUntrusted(toolResultText(result)).trim();
    if (result.isError) {
      parts.push(`${name} reported an error: ${text}`);
    } else if (name === 'calculator') {
      const number = text.match(/-?\d[\d,]*(\.\d+)?(e[-+]?\d+)?(?=\D*$)/i)?.[0] ?? text;
      parts.push(`The answer is ${number}.`);
    } else if (!text.includes('\n') && text.length <= 200) {
      parts.push(`${name} returned: ${text || '(nothing)'}`);
    } else {
      const shown = text.length > 2_000 ? `${text.slice(0, 2_000)}\n…` : text;
      parts.push(`Here is what ${name} returned:\n${shown || '(nothing)'}`);
    }
  }
  return { text: parts.join('\n\n') };
}

/**
 * Decides the fake model's next turn from the request alone (deterministic): a tool named in the
 * question is called with the `key=value` arguments found there; arithmetic goes to a
 * `calculator` tool, questions about files to the workspace tools (`read_file`, `grep`, `glob`,
 * `list_dir`) when the request offers them; tool results are turned into an answer; anything else
 * gets a plain reply.
 */
export function fakeTurn(request: ModelRequest): TurnContent {
  const last = request.messages[request.messages.length - 1];
  if (last === undefined) return { text: 'Hello! Ask me something.' };
  const results = last.content.filter(
    (block): block is ToolResultBlock => block.type === 'tool_result',
  );
  if (last.role === 'user' && results.length > 0)
    return answerFromResults(results, lastCallNames(request.messages));
  const question = messageText(last).trim();

  const named = namedToolCall(request, question);
  if (named) return named;

  const arithmetic = findArithmetic(question);
  const calculator = findTool(request, 'calculator');
  if (arithmetic && calculator) return call(calculator, 'expression', arithmetic);

  const readFile = findTool(request, 'read_file');
  const fileName = question.match(
    /(?:^|[\s"'`(])((?:[\w.-]+\/)*[\w-]+\.[a-zA-Z0-9]{1,8})(?=$|[\s"'`),?!:;])/,
  )?.[1];
  if (
    readFile &&
    fileName &&
    /\b(read|show|open|cat|contents?|what(?:'s| is) in|print)\b/i.test(question)
  ) {
    return call(readFile, 'path', fileName);
  }
  const grep = findTool(request, 'grep');
  const searched = question.match(/\b(?:search|grep|find|look)\b[^"'`]*["'`]([^"'`]+)["'`]/i)?.[1];
  if (grep && searched) return call(grep, 'pattern', searched);
  const glob = findTool(request, 'glob');
  const extension = question.match(
    /\*\.[a-zA-Z0-9]+|\.\b(ts|js|json|md|txt|py|csv|yaml|yml)\b files?/i,
  )?.[0];
  if (glob && extension) {
    const suffix = extension.startsWith('*') ? extension.slice(1) : extension.split(/\s/)[0];
    return call(glob, 'pattern', `**/*${suffix}`);
  }
  const listDir = findTool(request, 'list_dir');
  if (listDir && /\b(files?|director(y|ies)|folders?|workspace|ls|list)\b/i.test(question)) {
    return call(listDir, 'path', '.');
  }
  if (readFile && fileName) return call(readFile, 'path', fileName);

  if (arithmetic) return { text: `I would need a calculator tool to work out ${arithmetic}.` };
  if (/^(hi|hello|hey)\b/i.test(question))
    return {
      text: 'Hello! I am the offline fake model. Ask me some arithmetic or about the files here.',
    };
  return {
    text: `I am the offline fake model: I can do arithmetic with the calculator and look at files with the workspace tools. You said: "${question}"`,
  };
}

/**
 * A deterministic offline assistant for demos and tests. It needs no key and no network, streams
 * like a real provider (same StreamEvents) and reports estimated usage.
 */
export class FakeProvider implements Provider {
  readonly name: string = 'fake';
  readonly #options: FakeOptions;

  constructor(options: FakeOptions = {}) {
    assertOptions(options, ['model', 'delayMs', 'chunkChars'], '');
    if (
      options.delayMs !== undefined &&
      (!Number.isFinite(options.delayMs) || options.delayMs < 0)
    ) {
      throw new ConfigError('delayMs', `expected a number >= 0, got ${options.delayMs}`);
    }
    if (options.delayMs !== undefined) assertTimerMs('delayMs', options.delayMs);
    if (
      options.chunkChars !== undefined &&
      (!Number.isInteger(options.chunkChars) || options.chunkChars < 1)
    ) {
      throw new ConfigError('chunkChars', `expected an integer >= 1, got ${options.chunkChars}`);
    }
    this.#options = options;
  }

  stream(request: ModelRequest, options: StreamOptions = {}): AsyncIterable<StreamEvent> {
    const model = this.#options.model ?? 'fake';
    const turn = request.purpose === 'summary' ? fakeSummary(request) : fakeTurn(request);
    const events = turnEvents(request, turn, {
      model,
      chunkChars: this.#options.chunkChars,
    });
    return playEvents(events, { model, delayMs: this.#options.delayMs, signal: options.signal });
  }
}

/**
 * Creates the offline fake provider.
 * @example
 * const agent = new Agent({ provider: fake(), model: 'fake', tools: [calculator] });
 */
export function fake(options?: FakeOptions): FakeProvider {
  return new FakeProvider(options);
}
