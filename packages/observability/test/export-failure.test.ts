import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ScriptedProvider } from '@mh/core/testing';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTracing, type Tracing } from '../src/create-tracing.js';
import type { ExportFailure } from '../src/export-report.js';
import { drive } from './run-loop.js';

// A telemetry outage must never fail the agent program: flush() and shutdown() resolve with a
// report, and the failure reaches onExportError, against a real OTLP/HTTP exporter.

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(async () => {
  // Late rejections surface a few ticks after the promise settles.
  await new Promise((resolve) => setTimeout(resolve, 50));
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
}

/** A loopback URL nobody listens on: a port just freed. */
async function deadUrl(): Promise<string> {
  const server = createServer();
  const url = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return url;
}

/** Runs one traced agent turn with a scripted answer; returns the run's result. */
async function tracedRun(tracing: Tracing): Promise<Awaited<ReturnType<typeof drive>>> {
  const provider = new ScriptedProvider([{ text: 'the answer is 42' }]);
  return drive({ provider, tracer: tracing.tracer });
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

describe('createTracing with the collector down (nothing listens)', () => {
  it('shutdown resolves, reports the lost spans and why, and the run is unaffected', async () => {
    const failures: ExportFailure[] = [];
    const tracing = createTracing({
      exporter: new OTLPTraceExporter({ url: await deadUrl(), timeoutMillis: 500 }),
      onExportError: (failure) => failures.push(failure),
    });
    const result = await tracedRun(tracing);
    expect(result.status).toBe('completed');
    const { value: report, ms } = await timed(() => tracing.shutdown());
    // Ended by the refused connection, not by the 10 s default export timeout (nothing pending).
    expect(ms).toBeLessThan(8_000);
    expect(report.ok).toBe(false);
    expect(report.failedSpans).toBe(tracing.records().length);
    expect(report.pendingSpans).toBe(0);
    expect(report.reasons.join('\n')).toContain('ECONNREFUSED');
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ exporter: 'OTLPTraceExporter', spans: report.failedSpans });
  });

  it('flush resolves with the same kind of report, and shutdown does not report it twice', async () => {
    const tracing = createTracing({
      exporter: new OTLPTraceExporter({ url: await deadUrl(), timeoutMillis: 500 }),
      onExportError: () => {},
    });
    await tracedRun(tracing);
    const flushed = await tracing.flush();
    expect(flushed).toMatchObject({ ok: false, failedSpans: tracing.records().length });
    expect(await tracing.shutdown()).toEqual({
      ok: true,
      failedSpans: 0,
      pendingSpans: 0,
      reasons: [],
    });
  });

  it('warns once by default, one line naming the exporter and the address, without a stack', async () => {
    const original = process.emitWarning;
    const emitted: string[] = [];
    process.emitWarning = ((warning: string | Error) => {
      emitted.push(String(warning));
    }) as typeof process.emitWarning;
    try {
      const url = await deadUrl();
      const tracing = createTracing({
        exporter: new OTLPTraceExporter({ url, timeoutMillis: 500 }),
      });
      await tracedRun(tracing);
      await tracing.flush();
      tracing.tracer.startSpan('mh.run').end();
      await tracing.shutdown();
      expect(emitted).toHaveLength(1);
      const [line = ''] = emitted;
      expect(line).not.toContain('\n');
      expect(line).toContain('OTLPTraceExporter');
      expect(line).toContain(new URL(url).host);
      expect(line).not.toMatch(/\bat .*\.js:\d+/);
    } finally {
      process.emitWarning = original;
    }
  });

  it('reports spans lost during the run (a full batch exported early) without a rejection', async () => {
    const failures: ExportFailure[] = [];
    const tracing = createTracing({
      exporter: new OTLPTraceExporter({ url: await deadUrl(), timeoutMillis: 500 }),
      onExportError: (failure) => failures.push(failure),
      keepRecords: false,
    });
    // 512 ended spans fill a batch, so the processor exports in the background at once.
    for (let index = 0; index < 512; index++) tracing.tracer.startSpan(`span-${index}`).end();
    await expect.poll(() => failures.length, { timeout: 3_000 }).toBe(1);
    expect(failures[0]?.spans).toBe(512);
    const report = await tracing.shutdown();
    expect(report.failedSpans).toBe(512);
  });
});

describe('createTracing with a collector that fails', () => {
  let server: Server;
  let url = '';
  let mode: 'error' | 'hang' = 'error';
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    server = createServer((request, response) => {
      request.resume();
      if (mode === 'error') response.writeHead(500).end('collector broke');
      // 'hang': read the request, never answer.
    });
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    url = await listen(server);
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('reports an HTTP 500 from shutdown, with its status, and resolves', async () => {
    mode = 'error';
    const tracing = createTracing({ exporter: new OTLPTraceExporter({ url }), onExportError() {} });
    expect((await tracedRun(tracing)).status).toBe('completed');
    const { value: report, ms } = await timed(() => tracing.shutdown());
    // Ended by the 500, not by the 10 s default export timeout (the spans failed, none pending).
    expect(ms).toBeLessThan(8_000);
    expect(report).toMatchObject({
      ok: false,
      failedSpans: tracing.records().length,
      pendingSpans: 0,
    });
    expect(report.reasons.join('\n')).toContain('500');
  });

  it('stops waiting for a hanging collector after exportTimeoutMs and names the spans pending', async () => {
    mode = 'hang';
    const failures: ExportFailure[] = [];
    const tracing = createTracing({
      // The exporter would wait a minute: only our 300 ms can end the wait inside the test.
      exporter: new OTLPTraceExporter({ url, timeoutMillis: 60_000 }),
      exportTimeoutMs: 300,
      onExportError: (failure) => failures.push(failure),
    });
    expect((await tracedRun(tracing)).status).toBe('completed');
    const { value: report, ms } = await timed(() => tracing.shutdown());
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(ms).toBeLessThan(10_000);
    expect(report).toMatchObject({ ok: false, pendingSpans: tracing.records().length });
    expect(report.reasons.join('\n')).toContain('300 ms');
    expect(failures.map((failure) => failure.spans)).toEqual([tracing.records().length]);
  });
});
