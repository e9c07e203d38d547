import { describe, expect, it } from 'vitest';
import { drainRun, eventsOfType } from '../../test/drain-run.js';
import { ConfigError, OutputInvalidError } from '../errors.js';
import { validateHistory } from '../messages/history.js';
import {
  type Message,
  messageText,
  toolResultsOf,
  toolResultText,
  userMessage,
} from '../messages/message.js';
import type { ParseResult, ToolSchema } from '../ports/tool.js';
import { ScriptedProvider, type ScriptedTurn } from '../testing/scripted-provider.js';
import { echoTool, StubExecutor } from '../testing/stub-executor.js';
import { InMemoryTracer } from '../tracing/in-memory-tracer.js';
import type { LoopOptions } from './options.js';

interface City {
  readonly city: string;
  readonly population: number;
  readonly nickname?: string;
}

/** A hand-written schema (core has no zod): an object with two required fields and one optional. */
const citySchema: ToolSchema<City> = {
  jsonSchema: {
    type: 'object',
    properties: {
      city: { type: 'string' },
      population: { type: 'integer', minimum: 0 },
      nickname: { type: 'string' },
    },
    required: ['city', 'population'],
    additionalProperties: false,
  },
  parse(input: unknown): ParseResult<City> {
    if (input === null || typeof input !== 'object' || Array.isArray(input))
      return { success: false, issues: ['expected an object'] };
    const value = input as Record<string, unknown>;
    const issues: string[] = [];
    if (typeof value.city !== 'string') issues.push('city: expected string');
    if (typeof value.population !== 'number' || !Number.isInteger(value.population))
      issues.push('population: expected integer');
    if ('nickname' in value && typeof value.nickname !== 'string')
      issues.push('nickname: expected string');
    for (const key of Object.keys(value)) {
      if (!['city', 'population', 'nickname'].includes(key)) issues.push(`${key}: unknown key`);
    }
    return issues.length > 0
      ? { success: false, issues }
      : { success: true, value: value as unknown as City };
  },
};

const paris = '{"city":"Paris","population":2100000,"nickname":null}';

function run(
  provider: ScriptedProvider,
  overrides: Partial<LoopOptions> = {},
): ReturnType<typeof drainRun> {
  return drainRun({
    provider,
    model: 'test-model',
    history: [userMessage('Which city?', 'u0')],
    output: { schema: citySchema },
    ...overrides,
  });
}

const native = (script: readonly ScriptedTurn[]) =>
  new ScriptedProvider(script, { nativeOutput: true });

describe('typed output, native strategy', () => {
  it('sends the strict schema as the request format and returns the validated value', async () => {
    const provider = native([{ text: paris }]);
    const { result } = await run(provider);
    expect(result.status).toBe('completed');
    // The optional property strict mode made nullable comes back absent, as the schema reads it.
    expect(result.output).toEqual({ city: 'Paris', population: 2100000 });
    const request = provider.requests[0];
    expect(request?.output?.name).toBe('final_answer');
    expect(request?.output?.strict).toBe(true);
    expect(request?.output?.schema.required).toEqual(['city', 'population', 'nickname']);
    expect(request?.toolChoice).toBeUndefined();
    expect(request?.tools).toEqual([]);
  });

  it('sends a wrong answer back with its problems and accepts the corrected one', async () => {
    const provider = native([{ text: '{"city":"Paris"}' }, { text: paris }]);
    const { result } = await run(provider);
    expect(result.status).toBe('completed');
    expect(result.turns).toBe(2);
    expect(result.output).toEqual({ city: 'Paris', population: 2100000 });
    const correction = provider.requests[1]?.messages.at(-1) as Message;
    expect(correction.role).toBe('user');
    expect(messageText(correction)).toContain('population: expected integer');
    expect(validateHistory(result.messages)).toEqual([]);
  });

  it('ends with OutputInvalidError carrying the last raw text once the retries are spent', async () => {
    const provider = native([{ text: 'Paris!' }, { text: '{"city":1}' }]);
    const { result } = await run(provider, { output: { schema: citySchema, maxRetries: 1 } });
    expect(result.status).toBe('error');
    expect(OutputInvalidError.isInstance(result.error)).toBe(true);
    const error = result.error as OutputInvalidError;
    expect(error.reason).toBe('invalid');
    expect(error.text).toBe('{"city":1}');
    expect(error.attempts).toBe(2);
    expect(error.issues).toContain('city: expected string');
    expect(result.output).toBeUndefined();
    expect(provider.requests).toHaveLength(2);
    expect(messageText(provider.requests[1]?.messages.at(-1) as Message)).toContain('not JSON');
  });

  it('does not retry a refusal or an answer cut off at the token limit', async () => {
    for (const [turn, reason] of [
      [{ text: 'I cannot help with that.', stopReason: 'refusal' }, 'refusal'],
      [{ text: '{"city":"Par', stopReason: 'max-tokens' }, 'max-tokens'],
    ] as const) {
      const provider = native([turn]);
      const { result } = await run(provider);
      expect(result.status).toBe('error');
      expect((result.error as OutputInvalidError).reason).toBe(reason);
      expect((result.error as OutputInvalidError).text).toBe(turn.text);
      expect(provider.requests).toHaveLength(1);
    }
  });

  it('lets the model call tools first, then answer in the schema', async () => {
    const provider = native([
      { toolCalls: [{ id: 'c1', name: 'echo', input: { text: 'look up Paris' } }] },
      { text: paris },
    ]);
    const tools = new StubExecutor({ echo: echoTool });
    const { result } = await run(provider, { tools });
    expect(result.status).toBe('completed');
    expect(result.output).toEqual({ city: 'Paris', population: 2100000 });
    expect(tools.started.map((call) => call.id)).toEqual(['c1']);
  });

  it('streams output-delta events whose partial values grow to the answer', async () => {
    const chars = [...paris];
    const provider = native([{ text: chars }]);
    const { events, result } = await run(provider);
    const partials = eventsOfType(events, 'output-delta').map((event) => event.partial);
    expect(partials.length).toBeGreaterThan(3);
    expect(partials.at(-1)).toEqual(result.output);
    for (let index = 1; index < partials.length; index++) {
      const before = partials[index - 1] as Record<string, unknown>;
      const after = partials[index] as Record<string, unknown>;
      for (const key of Object.keys(before)) {
        if (typeof before[key] === 'string')
          expect(String(after[key]).startsWith(before[key] as string)).toBe(true);
        else expect(after[key]).toEqual(before[key]);
      }
    }
  });

  it('marks the model span with gen_ai.output.type json (only when asked natively)', async () => {
    const tracer = new InMemoryTracer();
    await run(native([{ text: paris }]), { tracer });
    const final = {
      toolCalls: [{ name: 'final_answer', input: { city: 'Paris', population: 1 } }],
    };
    await run(new ScriptedProvider([final]), { tracer });
    const models = tracer.records().filter((span) => span.name === 'mh.model');
    expect(models.map((span) => span.attributes['gen_ai.output.type'])).toEqual([
      'json',
      undefined,
    ]);
  });

  it('wraps a schema whose root is not an object in { value } and unwraps the answer', async () => {
    const names: ToolSchema<string[]> = {
      jsonSchema: { type: 'array', items: { type: 'string' } },
      parse: (input) =>
        Array.isArray(input) && input.every((item) => typeof item === 'string')
          ? { success: true, value: input as string[] }
          : { success: false, issues: ['expected an array of strings'] },
    };
    const provider = native([{ text: '{"value":["Paris","Lyon"]}' }]);
    const { result } = await run(provider, { output: { schema: names } });
    expect(result.output).toEqual(['Paris', 'Lyon']);
    expect(provider.requests[0]?.output?.schema.properties).toHaveProperty('value');
  });
});

describe('typed output, final tool strategy', () => {
  it('advertises a final tool, requires a tool call and answers the final call itself', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'c1', name: 'echo', input: { text: 'hi' } }] },
      { toolCalls: [{ id: 'c2', name: 'final_answer', input: { city: 'Paris', population: 2 } }] },
    ]);
    const tools = new StubExecutor({ echo: echoTool });
    const { result } = await run(provider, { tools });
    expect(result.status).toBe('completed');
    expect(result.output).toEqual({ city: 'Paris', population: 2 });
    expect(provider.requests[0]?.toolChoice).toBe('required');
    expect(provider.requests[0]?.output).toBeUndefined();
    expect(provider.requests[0]?.tools.map((tool) => tool.name)).toEqual(['echo', 'final_answer']);
    // The executor never saw the final tool's call, and the history stays paired.
    expect(tools.started.map((call) => call.id)).toEqual(['c1']);
    expect(validateHistory(result.messages)).toEqual([]);
    const last = result.messages.at(-1) as Message;
    expect(toolResultsOf(last).map(toolResultText)).toEqual(['Final answer accepted.']);
  });

  it('answers wrong arguments with an error result naming the problems, then accepts', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'c1', name: 'final_answer', input: { city: 'Paris' } }] },
      { toolCalls: [{ id: 'c2', name: 'final_answer', rawInput: '{"city": "Par' }] },
      { toolCalls: [{ id: 'c3', name: 'final_answer', input: { city: 'Paris', population: 1 } }] },
    ]);
    const { result } = await run(provider);
    expect(result.status).toBe('completed');
    expect(result.output).toEqual({ city: 'Paris', population: 1 });
    const results = result.messages.flatMap(toolResultsOf);
    expect(results.map((block) => block.isError === true)).toEqual([true, true, false]);
    expect(toolResultText(results[0] as never)).toContain('population: expected integer');
    expect(toolResultText(results[1] as never)).toContain('not valid JSON');
  });

  it('does not run the other calls of the turn that gave the final answer', async () => {
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          { id: 'c1', name: 'echo', input: { text: 'late' } },
          { id: 'c2', name: 'final_answer', input: { city: 'Paris', population: 1 } },
        ],
      },
    ]);
    const tools = new StubExecutor({ echo: echoTool });
    const { result } = await run(provider, { tools });
    expect(result.status).toBe('completed');
    expect(tools.started).toEqual([]);
    const results = result.messages.flatMap(toolResultsOf);
    expect(results.map((block) => block.toolUseId)).toEqual(['c1', 'c2']);
    expect(toolResultText(results[0] as never)).toContain('Not run');
    expect(validateHistory(result.messages)).toEqual([]);
  });

  it('accepts valid JSON text from a server that ignores the required tool choice', async () => {
    const provider = new ScriptedProvider([{ text: '{"city":"Oslo","population":700000}' }]);
    const { result } = await run(provider);
    expect(result.output).toEqual({ city: 'Oslo', population: 700000 });
  });

  it('streams output-delta events from the final tool arguments', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'c1', name: 'final_answer', input: { city: 'Rome', population: 3 } }] },
    ]);
    const { events } = await run(provider);
    const partials = eventsOfType(events, 'output-delta').map((event) => event.partial);
    expect(partials.at(-1)).toEqual({ city: 'Rome', population: 3 });
  });

  it('stops after maxRetries wrong final calls with OutputInvalidError', async () => {
    const provider = new ScriptedProvider(() => ({
      toolCalls: [{ name: 'final_answer', input: { city: 7 } }],
    }));
    const { result } = await run(provider, { output: { schema: citySchema, maxRetries: 2 } });
    expect(result.status).toBe('error');
    expect((result.error as OutputInvalidError).attempts).toBe(3);
    expect(provider.requests).toHaveLength(3);
    expect(validateHistory(result.messages)).toEqual([]);
  });
});

describe('typed output options', () => {
  const bad: [unknown, string][] = [
    [{}, 'output.schema'],
    [{ schema: citySchema, name: 'has space' }, 'output.name'],
    [{ schema: citySchema, maxRetries: -1 }, 'output.maxRetries'],
    [{ schema: citySchema, strategy: 'json' }, 'output.strategy'],
    [{ schema: citySchema, strategy: 'native' }, 'output.strategy'],
    [{ schema: citySchema, name: 'echo' }, 'output.name'],
    [{ schema: citySchema, shape: 1 }, 'output.shape'],
  ];
  it.each(bad)('rejects %j naming %s', async (output, field) => {
    const provider = new ScriptedProvider([{ text: paris }]);
    const error = await run(provider, {
      output: output as never,
      tools: new StubExecutor({ echo: echoTool }),
    }).catch((caught: unknown) => caught);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as ConfigError).field).toBe(field);
  });

  it('falls back to the final tool when the schema does not fit strict mode (auto)', async () => {
    const open: ToolSchema<Record<string, number>> = {
      jsonSchema: { type: 'object', additionalProperties: { type: 'number' } },
      parse: (input) => ({ success: true, value: input as Record<string, number> }),
    };
    const provider = native([{ toolCalls: [{ name: 'final_answer', input: { a: 1 } }] }]);
    const { result } = await run(provider, { output: { schema: open } });
    expect(result.output).toEqual({ a: 1 });
    expect(provider.requests[0]?.toolChoice).toBe('required');
    const error = await run(native([]), { output: { schema: open, strategy: 'native' } }).catch(
      (caught: unknown) => caught,
    );
    expect((error as ConfigError).field).toBe('output.schema');
  });
});
