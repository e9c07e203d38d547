import { ScriptedProvider, StubExecutor } from '@mh/core/testing';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTracing } from '../src/create-tracing.js';
import { drive } from './run-loop.js';

const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});

afterAll(() => {
  context.disable();
  trace.disable();
});

describe('OtelTracer context propagation', () => {
  it("nests a tool's own OpenTelemetry spans under its mh.tool span", async () => {
    const tracing = createTracing();
    trace.setGlobalTracerProvider(tracing.provider);
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          { id: 'c1', name: 'fetch_page' },
          { id: 'c2', name: 'fetch_page' },
        ],
      },
      { text: 'done' },
    ]);
    // Instrumented tool code: it knows nothing of mh, only the global OpenTelemetry API.
    const tools = new StubExecutor({
      fetch_page: async () => {
        const tracer = trace.getTracer('my-http-client');
        return tracer.startActiveSpan('GET /page', async (outer) => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          trace.getTracer('my-http-client').startSpan('parse').end();
          outer.end();
          return 'page';
        });
      },
    });
    await drive({ provider, tools, tracer: tracing.tracer });
    const records = tracing.records();
    const toolSpans = records.filter((record) => record.name === 'mh.tool');
    const gets = records.filter((record) => record.name === 'GET /page');
    expect(toolSpans).toHaveLength(2);
    expect(gets.map((get) => get.parentSpanId).sort()).toEqual(
      toolSpans.map((tool) => tool.spanId).sort(),
    );
    for (const parse of records.filter((record) => record.name === 'parse')) {
      expect(gets.map((get) => get.spanId)).toContain(parse.parentSpanId);
    }
    expect(new Set(records.map((record) => record.traceId)).size).toBe(1);
    await tracing.shutdown();
  });

  it('nests a run under the span active where it starts', async () => {
    const tracing = createTracing();
    const outer = tracing.provider.getTracer('app').startSpan('POST /chat');
    await context.with(trace.setSpan(context.active(), outer), () =>
      drive({ provider: new ScriptedProvider([{ text: 'hi' }]), tracer: tracing.tracer }),
    );
    outer.end();
    const records = tracing.records();
    const run = records.find((record) => record.name === 'mh.run');
    expect(run?.parentSpanId).toBe(outer.spanContext().spanId);
    await tracing.shutdown();
  });
});
