import type { Message, RunResult, SpanRecord } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { runFixtureSuite } from '../../test/html-report-fixture.js';
import { runFixture } from '../../test/session-fixture.js';
import { Report } from './report.js';
import { MAX_TRACE_MESSAGES, MAX_TRACE_SPANS, MAX_TRACE_TEXT_CHARS, traceOf } from './trace.js';

function span(index: number, extra: Partial<SpanRecord> = {}): SpanRecord {
  return {
    name: 'mh.tool',
    spanId: index.toString(16).padStart(16, '0'),
    traceId: '0'.repeat(32),
    startTimeMs: 1_000 + index,
    endTimeMs: 1_002 + index,
    attributes: {},
    status: 'unset',
    events: [],
    ...extra,
  };
}

function resultWith(messages: Message[]): RunResult {
  return { messages } as unknown as RunResult;
}

describe('traceOf', () => {
  it('keeps the span tree with times relative to the first span', async () => {
    const { results, tracer } = await runFixture({
      turns: [{ text: 'Looking.', calls: [{ name: 'lookup' }] }, { text: 'done' }],
      tools: { lookup: { run: () => 'found' } },
    });
    const trace = traceOf(results, tracer.records());
    const run = trace.spans.find((item) => item.name === 'mh.run');
    expect(run?.startMs).toBe(0);
    expect(run?.parentSpanId).toBeUndefined();
    const tool = trace.spans.find((item) => item.name === 'mh.tool');
    const turn = trace.spans.find((item) => item.spanId === tool?.parentSpanId);
    expect(turn?.name).toBe('mh.turn');
    expect(turn?.parentSpanId).toBe(run?.spanId);
    expect(tool?.attributes['gen_ai.tool.name']).toBe('lookup');
    expect(trace.messages.map((message) => message.blocks.map((block) => block.type))).toEqual([
      ['text'],
      ['text', 'tool_use'],
      ['tool_result'],
      ['text'],
    ]);
    expect(trace.messages[1]?.blocks[1]).toMatchObject({ name: 'lookup', text: '{}' });
    expect(trace.omitted).toEqual({ spans: 0, messages: 0 });
  });

  it('caps spans and messages, keeping the first spans and the newest messages', () => {
    const spans = Array.from({ length: MAX_TRACE_SPANS + 5 }, (_, index) => span(index));
    const messages: Message[] = Array.from({ length: MAX_TRACE_MESSAGES + 3 }, (_, index) => ({
      id: `msg_${index}`,
      role: 'user',
      content: [{ type: 'text', text: `m${index}` }],
    }));
    const trace = traceOf([resultWith(messages)], spans);
    expect(trace.spans).toHaveLength(MAX_TRACE_SPANS);
    expect(trace.messages).toHaveLength(MAX_TRACE_MESSAGES);
    expect(trace.messages[0]?.id).toBe('msg_3');
    expect(trace.omitted).toEqual({ spans: 5, messages: 3 });
  });

  it('cuts long texts, masks secrets and leaves image data out', () => {
    const long = 'x'.repeat(MAX_TRACE_TEXT_CHARS + 10);
    const trace = traceOf(
      [
        resultWith([
          {
            id: 'msg_1',
            role: 'user',
            content: [
              { type: 'text', text: long },
              { type: 'text', text: 'key sk-ant-abcdefghijklmnop' },
              { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
            ],
          },
        ]),
      ],
      [span(1, { attributes: { 'gen_ai.tool.call.result': 'Bearer abcdefghijklmnop', n: 3 } })],
    );
    const [text, secret, image] = trace.messages[0]?.blocks ?? [];
    expect(text?.text).toBe(`${'x'.repeat(MAX_TRACE_TEXT_CHARS)}… (10 more)`);
    expect(secret?.text).toBe('key [REDACTED:anthropic-key]');
    expect(image?.text).toBe('[image image/png]');
    expect(trace.spans[0]?.attributes).toEqual({
      'gen_ai.tool.call.result': 'Bearer [REDACTED]',
      n: 3,
    });
  });
});

describe('EvalRunner traces', () => {
  it('keeps a trace for failed runs only, and it survives save and load', async () => {
    const report = await runFixtureSuite('v2');
    const failed = report.runs.filter((run) => !run.passed);
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((run) => (run.trace?.spans.length ?? 0) > 0)).toBe(true);
    expect(report.runs.filter((run) => run.passed).some((run) => run.trace)).toBe(false);
    const loaded = Report.fromJSON(JSON.parse(JSON.stringify(report.toJSON())));
    expect(loaded.runs).toEqual(report.runs);
    expect(() =>
      Report.fromJSON({
        ...report.toJSON(),
        runs: [{ ...failed[0], trace: { spans: 'no' } }],
      }),
    ).toThrow(/report\.runs\[0\]\.trace\.spans/);
  });
});
