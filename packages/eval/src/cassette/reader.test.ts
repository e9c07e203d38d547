import { describe, expect, it } from 'vitest';
import { CassetteFileError } from './errors.js';
import { parseCassette, readCassetteFile } from './reader.js';

const HEADER =
  '{"type":"header","format":"mh-cassette","version":1,"createdAt":"2026-01-31T12:00:00.000Z","meta":{"model":"m"}}';

function requestLine(index: number, caseId = 'c'): string {
  return JSON.stringify({
    type: 'request',
    case: caseId,
    repeat: 0,
    index,
    request: { model: 'm', messages: [], tools: [] },
    events: [{ ms: 0.5, event: { type: 'message-start' } }],
    outcome: 'complete',
    durationMs: 1,
  });
}

const TOOL_LINE = JSON.stringify({
  type: 'tool',
  case: 'c',
  repeat: 0,
  index: 0,
  call: { type: 'tool_use', id: 't1', name: 'calculator', input: {} },
  outcome: {
    status: 'ok',
    result: { type: 'tool_result', toolUseId: 't1', content: [], isError: false },
    attempts: 1,
    durationMs: 0.1,
  },
});

function parse(text: string) {
  return parseCassette('x.jsonl', Buffer.from(text));
}

function problemOf(text: string): string | undefined {
  try {
    parse(text);
  } catch (error) {
    if (CassetteFileError.isInstance(error)) return `${error.problem}: ${error.message}`;
    throw error;
  }
  return undefined;
}

describe('parseCassette', () => {
  it('groups requests by key and index and tools by key', () => {
    const parsed = parse(
      `${HEADER}\n${requestLine(1)}\n${requestLine(0)}\n${requestLine(0, 'd')}\n${TOOL_LINE}\n`,
    );
    expect(parsed.header.meta).toEqual({ model: 'm' });
    expect([...(parsed.requests.get('["c",0]')?.keys() ?? [])].sort()).toEqual([0, 1]);
    expect(parsed.requests.get('["d",0]')?.size).toBe(1);
    expect(parsed.tools.get('["c",0]')?.[0]?.call.id).toBe('t1');
    expect(parsed.warnings).toEqual([]);
    expect(parsed.tail).toBe('none');
  });

  it('drops a truncated last line with a warning', () => {
    const text = `${HEADER}\n${requestLine(0)}\n${requestLine(1).slice(0, 40)}`;
    const parsed = parse(text);
    expect(parsed.requests.get('["c",0]')?.size).toBe(1);
    expect(parsed.warnings[0]).toMatch(/line 3 is truncated/);
    expect(parsed.tail).toBe('truncated');
    expect(parsed.completeBytes).toBe(Buffer.byteLength(`${HEADER}\n${requestLine(0)}\n`));
  });

  it('keeps a whole last line that only lost its newline', () => {
    const parsed = parse(`${HEADER}\n${requestLine(0)}`);
    expect(parsed.requests.get('["c",0]')?.size).toBe(1);
    expect(parsed.tail).toBe('whole');
  });

  it('refuses a newer format version, naming both versions', () => {
    expect(problemOf(HEADER.replace('"version":1', '"version":2'))).toMatch(
      /^newer-version: path: x.jsonl: cassette format version 2 is newer than this @mh\/eval reads \(1\)/,
    );
  });

  it('refuses an empty file, a file of another format and a header without a version', () => {
    expect(problemOf('')).toMatch(/^not-a-cassette: .*empty/);
    expect(problemOf('{"type":"header","format":"har"}\n')).toMatch(/^not-a-cassette/);
    expect(problemOf('hello\n')).toMatch(/^not-a-cassette/);
    expect(problemOf(HEADER.replace('"version":1', '"version":"1"'))).toMatch(/^corrupt/);
  });

  it('refuses a broken line before the last one, naming the line', () => {
    expect(problemOf(`${HEADER}\n{"type":"request",\n${requestLine(0)}\n`)).toMatch(
      /^corrupt: .*line 2 is not valid JSON/,
    );
  });

  it('refuses an entry of the wrong shape, naming the field', () => {
    const bad = requestLine(0).replace('"outcome":"complete"', '"outcome":"maybe"');
    expect(problemOf(`${HEADER}\n${bad}\n`)).toMatch(/line 2: outcome: expected one of/);
    const noEvents = requestLine(0).replace('"events":[{"ms":0.5,', '"events":[{"ms":-1,');
    expect(problemOf(`${HEADER}\n${noEvents}\n`)).toMatch(/line 2: events\[0\]\.ms/);
    const badTool = TOOL_LINE.replace('"status":"ok"', '"status":"fine"');
    expect(problemOf(`${HEADER}\n${badTool}\n`)).toMatch(/line 2: outcome.status/);
    const unasked = TOOL_LINE.replace('"status":"ok"', '"status":"interrupted"');
    expect(problemOf(`${HEADER}\n${unasked}\n`)).toMatch(/line 2: outcome.question: expected/);
    const badQuestion = TOOL_LINE.replace(
      '"status":"ok"',
      '"status":"interrupted","question":{"question":"","answers":[]}',
    );
    expect(problemOf(`${HEADER}\n${badQuestion}\n`)).toMatch(/line 2: outcome.question.question/);
    expect(problemOf(`${HEADER}\n{"type":"video"}\n`)).toMatch(/line 2: unknown entry type/);
  });

  it('keeps the first of two entries for the same request, with a warning', () => {
    const parsed = parse(
      `${HEADER}\n${requestLine(0)}\n${requestLine(0).replace('"durationMs":1', '"durationMs":2')}\n`,
    );
    expect(parsed.requests.get('["c",0]')?.get(0)?.durationMs).toBe(1);
    expect(parsed.warnings[0]).toMatch(/records request 0 .* again/);
  });
});

describe('parseCassette with shared messages', () => {
  const message = (text: string) => ({ id: text, role: 'user', content: [{ type: 'text', text }] });
  function line(index: number, messages: unknown[], shared?: number): string {
    return JSON.stringify({
      type: 'request',
      case: 'c',
      repeat: 0,
      index,
      ...(shared === undefined ? {} : { sharedMessages: shared }),
      request: { model: 'm', messages, tools: [] },
      events: [],
      outcome: 'complete',
      durationMs: 1,
    });
  }

  it('puts back the messages a request shares with the previous one, in index order', () => {
    const text = `${HEADER}\n${line(2, [message('c')], 2)}\n${line(0, [message('a')])}\n${line(1, [message('b')], 1)}\n`;
    const requests = parse(text).requests.get('["c",0]');
    const texts = (index: number) =>
      requests?.get(index)?.request.messages.map((m) => (m.content[0] as { text: string }).text);
    expect([texts(0), texts(1), texts(2)]).toEqual([['a'], ['a', 'b'], ['a', 'b', 'c']]);
    expect(requests?.get(2)?.sharedMessages).toBeUndefined();
  });

  it('refuses a request that shares messages with a missing previous request', () => {
    expect(problemOf(`${HEADER}\n${line(1, [message('b')], 1)}\n`)).toMatch(
      /^corrupt: .*line 2: request 1 shares 1 message\(s\) with request 0, which is missing/,
    );
    expect(problemOf(`${HEADER}\n${line(0, [])}\n${line(1, [], 3)}\n`)).toMatch(/which has 0/);
  });
});

describe('readCassetteFile', () => {
  it('returns every whole request and tool call in key and index order', async () => {
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const path = join(mkdtempSync(join(tmpdir(), 'mh-read-')), 'c.jsonl');
    writeFileSync(
      path,
      `${HEADER}\n${requestLine(1)}\n${TOOL_LINE}\n${requestLine(0, 'b')}\n${requestLine(0)}\n`,
    );
    const content = readCassetteFile(path);
    expect(content.requests.map((entry) => [entry.case, entry.index])).toEqual([
      ['b', 0],
      ['c', 0],
      ['c', 1],
    ]);
    expect(content.tools).toHaveLength(1);
    expect(content.header.meta).toEqual({ model: 'm' });
  });
});
