import { describe, expect, it } from 'vitest';
import { drainRun } from '../../test/drain-run.js';
import { TimedProvider } from '../../test/timed-provider.js';
import { ProviderError } from '../errors.js';
import { userMessage } from '../messages/message.js';
import { ManualClock } from '../testing/manual-clock.js';
import { ScriptedProvider } from '../testing/scripted-provider.js';
import { echoTool, StubExecutor } from '../testing/stub-executor.js';
import { InMemoryTracer } from '../tracing/in-memory-tracer.js';
import type { SpanRecord } from '../tracing/span-record.js';
import type { LoopOptions } from './options.js';

function options(overrides: Partial<LoopOptions> & Pick<LoopOptions, 'provider'>): LoopOptions {
  return { model: 'test-model', history: [userMessage('go', 'u0')], ...overrides };
}

function named(records: readonly SpanRecord[], name: string): SpanRecord[] {
  return records.filter((record) => record.name === name);
}

function only(records: readonly SpanRecord[], name: string): SpanRecord {
  const [record, ...rest] = named(records, name);
  if (record === undefined || rest.length > 0) throw new Error(`expected one ${name} span`);
  return record;
}

describe('runLoop spans', () => {
  it('nests run → turns → model and tool spans with GenAI attributes', async () => {
    const tracer = new InMemoryTracer();
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          { id: 'c1', name: 'echo', input: { a: 1 } },
          { id: 'c2', name: 'echo', input: { b: 2 } },
        ],
        usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 20 },
      },
      { text: 'done', usage: { inputTokens: 40, outputTokens: 3 } },
    ]);
    const tools = new StubExecutor({ echo: echoTool });
    await drainRun(options({ provider, tools, tracer }));
    const records = tracer.records();
    const run = only(records, 'mh.run');
    const turns = named(records, 'mh.turn');
    const models = named(records, 'mh.model');
    const toolSpans = named(records, 'mh.tool');
    expect(turns.map((turn) => turn.parentSpanId)).toEqual([run.spanId, run.spanId]);
    expect(models.map((model) => model.parentSpanId)).toEqual(turns.map((turn) => turn.spanId));
    expect(toolSpans.map((tool) => tool.parentSpanId)).toEqual([
      turns[0]?.spanId,
      turns[0]?.spanId,
    ]);
    expect(new Set(records.map((record) => record.traceId)).size).toBe(1);
    expect(run.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'scripted',
      'gen_ai.request.model': 'test-model',
      'mh.run.status': 'completed',
      'mh.turns': 2,
      'gen_ai.usage.input_tokens': 70,
      'gen_ai.usage.output_tokens': 8,
    });
    expect(models[0]?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.response.model': 'test-model',
      'gen_ai.usage.input_tokens': 30,
      'gen_ai.usage.cache_read.input_tokens': 20,
      'mh.cache.read_tokens': 20,
      'gen_ai.usage.output_tokens': 5,
      'gen_ai.response.finish_reasons': ['tool_call'],
      'mh.stop_reason': 'tool-use',
      'mh.retry.attempts': 1,
    });
    expect(models[1]?.attributes['gen_ai.response.finish_reasons']).toEqual(['stop']);
    expect(toolSpans.map((tool) => tool.attributes)).toEqual(
      ['c1', 'c2'].map((id) =>
        expect.objectContaining({
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'echo',
          'gen_ai.tool.call.id': id,
          'gen_ai.tool.type': 'function',
          'mh.tool.status': 'ok',
        }),
      ),
    );
    expect(records.every((record) => record.status === 'unset')).toBe(true);
  });

  it('counts a retry from its stream-reset event and times the first chunk', async () => {
    const clock = new ManualClock(0);
    const tracer = new InMemoryTracer({ clock });
    const provider = new TimedProvider(
      [
        {
          text: 'ok',
          usage: { inputTokens: 10, outputTokens: 4 },
          firstChunkMs: 25,
          reset: {
            text: 'o',
            usage: { ...zero, inputTokens: 10, outputTokens: 1 },
            reason: 'network: reset',
          },
        },
      ],
      clock,
    );
    await drainRun(options({ provider, tracer, clock }));
    const model = only(tracer.records(), 'mh.model');
    expect(model.attributes).toMatchObject({
      'mh.retry.attempts': 2,
      'mh.retry.discarded_output_tokens': 1,
      'gen_ai.usage.input_tokens': 20,
      'gen_ai.usage.output_tokens': 5,
      'mh.time_to_first_token_ms': 25,
    });
    expect(model.events).toEqual([
      {
        name: 'mh.retry',
        timeMs: 25,
        attributes: { 'mh.retry.attempt': 2, 'mh.retry.reason': 'network: reset' },
      },
    ]);
  });

  it('marks model, turn and run failed with the provider error kind', async () => {
    const tracer = new InMemoryTracer();
    const provider = new ScriptedProvider([
      {
        error: new ProviderError('slow down', { kind: 'rate-limit', status: 429 }),
        eventsBeforeStop: 0,
      },
    ]);
    const { result } = await drainRun(options({ provider, tracer }));
    expect(result.status).toBe('error');
    const records = tracer.records();
    for (const name of ['mh.model', 'mh.turn', 'mh.run']) {
      const record = only(records, name);
      expect(record.status).toBe('error');
      expect(record.attributes).toMatchObject({
        'error.type': 'rate-limit',
        'mh.error.kind': 'rate-limit',
      });
      expect(record.events.map((event) => event.name)).toContain('exception');
    }
    expect(only(records, 'mh.run').attributes['mh.run.status']).toBe('error');
  });

  it('names the tripped guard, its limit and value on the run span', async () => {
    const tracer = new InMemoryTracer();
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'echo' }] }]);
    const tools = new StubExecutor({ echo: echoTool });
    await drainRun(options({ provider, tools, tracer, limits: { maxTurns: 1 } }));
    const run = only(tracer.records(), 'mh.run');
    expect(run.attributes).toMatchObject({
      'mh.run.status': 'guard',
      'mh.guard': 'max-turns',
      'mh.guard.limit': 1,
      'mh.guard.value': 1,
    });
    expect(run.status).toBe('unset');
  });

  it('marks a failed tool call with its status as error type', async () => {
    const tracer = new InMemoryTracer();
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'boom' }] }, { text: 'sorry' }]);
    const tools = new StubExecutor({
      boom: async () => {
        throw new Error('disk on fire');
      },
    });
    await drainRun(options({ provider, tools, tracer }));
    const tool = only(tracer.records(), 'mh.tool');
    expect(tool.status).toBe('error');
    expect(tool.attributes).toMatchObject({ 'mh.tool.status': 'error', 'error.type': 'error' });
  });

  it('ends every span of a cancelled run, the run marked cancelled', async () => {
    const tracer = new InMemoryTracer();
    const controller = new AbortController();
    const provider = new ScriptedProvider([{ text: ['a', 'b', 'c'] }]);
    await drainRun(options({ provider, tracer, signal: controller.signal }), (event) => {
      if (event.type === 'text-delta') controller.abort();
    });
    const records = tracer.records();
    expect(records.map((record) => record.name).sort()).toEqual(['mh.model', 'mh.run', 'mh.turn']);
    expect(only(records, 'mh.run').attributes['mh.run.status']).toBe('cancelled');
  });

  it('records no content unless the tracer asks for it', async () => {
    const tracer = new InMemoryTracer();
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'echo', input: { q: 'PLANTED' } }] },
      { text: 'bye' },
    ]);
    const tools = new StubExecutor({ echo: echoTool });
    await drainRun(
      options({
        provider,
        tools,
        tracer,
        system: 'SYSTEM PROMPT',
        history: [userMessage('PROMPT')],
      }),
    );
    const serialized = JSON.stringify(tracer.records());
    for (const content of ['PLANTED', 'SYSTEM PROMPT', 'PROMPT', 'bye'])
      expect(serialized).not.toContain(content);
  });

  it('records prompts, outputs, tool arguments and results as events when asked', async () => {
    const tracer = new InMemoryTracer({ captureContent: true });
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'echo', input: { q: 'ARG' } }] },
      { text: 'bye' },
    ]);
    const tools = new StubExecutor({ echo: echoTool });
    await drainRun(
      options({ provider, tools, tracer, system: 'SYS', history: [userMessage('PROMPT')] }),
    );
    const records = tracer.records();
    const [first, second] = named(records, 'mh.model').map((model) =>
      model.events.find((event) => event.name === 'gen_ai.client.inference.operation.details'),
    );
    expect(first?.attributes['gen_ai.system_instructions']).toContain('SYS');
    expect(first?.attributes['gen_ai.input.messages']).toContain('PROMPT');
    expect(second?.attributes['gen_ai.output.messages']).toContain('bye');
    const tool = only(records, 'mh.tool').events.find(
      (event) => event.name === 'mh.tool.call.details',
    );
    expect(tool?.attributes).toEqual({
      'gen_ai.tool.call.arguments': '{"q":"ARG"}',
      'gen_ai.tool.call.result': '{"q":"ARG"}',
    });
  });
});

const zero = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
