import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { ProviderError, userMessage } from '@mh/core';
import { ScriptedProvider, StubExecutor } from '@mh/core/testing';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { InMemorySpanExporter, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTracing, type Tracing } from '../src/create-tracing.js';
import { fakeSecrets, plantedText } from './fake-secrets.js';
import { drive } from './run-loop.js';

const secrets = fakeSecrets();
/** A secret no pattern knows, masked because the user names it. */
const KNOWN_SECRET = `company-internal-${Math.random().toString(36).slice(2)}-token`;
const forbidden = [...Object.values(secrets), KNOWN_SECRET];
const MARKERS = ['SYSTEM-MARKER', 'PROMPT-MARKER', 'ARGS-MARKER', 'RESULT-MARKER', 'OUTPUT-MARKER'];

/**
 * Two runs with captureContent on, secrets in the system prompt, prompt, tool arguments, tool
 * results, the answer, a tool's error and a provider error; flushed, not yet shut down.
 */
async function tracedRuns(exporter: SpanExporter): Promise<Tracing> {
  const tracing = createTracing({
    exporter,
    captureContent: true,
    redact: { secrets: [KNOWN_SECRET] },
  });
  const provider = new ScriptedProvider([
    {
      toolCalls: [
        {
          id: 'c1',
          name: 'lookup',
          input: { note: plantedText(secrets, 'ARGS-MARKER'), password: KNOWN_SECRET },
        },
        { id: 'c2', name: 'leaky' },
      ],
    },
    { text: plantedText(secrets, 'OUTPUT-MARKER') },
    {
      error: new ProviderError(`401 invalid x-api-key ${secrets['anthropic-key']}`, {
        kind: 'auth',
      }),
      eventsBeforeStop: 0,
    },
  ]);
  const tools = new StubExecutor({
    lookup: async () => `${plantedText(secrets, 'RESULT-MARKER')}\nalso ${KNOWN_SECRET}`,
    leaky: async () => {
      throw new Error(
        `connect failed for https://admin:${KNOWN_SECRET}@db.internal/ with ${secrets.jwt}`,
      );
    },
  });
  const system = plantedText(secrets, 'SYSTEM-MARKER');
  const base = { provider, tools, tracer: tracing.tracer, system };
  const first = await drive({
    ...base,
    history: [userMessage(plantedText(secrets, 'PROMPT-MARKER'))],
  });
  expect(first.status).toBe('completed');
  const second = await drive({ ...base, history: [...first.messages, userMessage('again')] });
  expect(second.status).toBe('error');
  await tracing.flush();
  return tracing;
}

function expectNoSecrets(exported: string): void {
  for (const secret of forbidden) expect(exported).not.toContain(secret);
  // The content was captured (so the check is not vacuous) and masked in place.
  for (const marker of MARKERS) expect(exported).toContain(marker);
  for (const name of [
    'anthropic-key',
    'openai-key',
    'github-token',
    'aws-access-key',
    'jwt',
    'bearer',
    'secret',
  ])
    expect(exported).toContain(`[REDACTED:${name}]`);
}

describe('secrets planted in content never reach an exporter', () => {
  it('an in-memory exporter sees every span, with every secret masked', async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = await tracedRuns(exporter);
    const spans = exporter.getFinishedSpans();
    await tracing.shutdown();
    expect(spans.map((span) => span.name)).toContain('mh.tool');
    const exported = JSON.stringify(
      spans.map((span) => ({
        name: span.name,
        attributes: span.attributes,
        events: span.events,
        status: span.status,
        links: span.links,
      })),
    );
    expectNoSecrets(exported);
  });

  describe('a real OTLP/HTTP exporter sending to a loopback receiver', () => {
    let server: Server;
    const bodies: Buffer[] = [];
    const contentTypes: string[] = [];
    let url = '';

    beforeAll(async () => {
      server = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          const body = Buffer.concat(chunks);
          contentTypes.push(String(request.headers['content-type']));
          bodies.push(request.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body);
          response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
    });

    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    it('receives the whole trace as JSON, without a single raw secret byte', async () => {
      await (await tracedRuns(new OTLPTraceExporter({ url }))).shutdown();
      expect(bodies.length).toBeGreaterThan(0);
      // exporter-trace-otlp-http speaks OTLP/JSON, so strings travel as plain UTF-8 text.
      expect(new Set(contentTypes)).toEqual(new Set(['application/json']));
      const raw = Buffer.concat(bodies).toString('utf8');
      expectNoSecrets(raw);
      const names = bodies.flatMap((body) => {
        const payload = JSON.parse(body.toString('utf8')) as {
          resourceSpans: { scopeSpans: { spans: { name: string }[] }[] }[];
        };
        return payload.resourceSpans.flatMap((resource) =>
          resource.scopeSpans.flatMap((scope) => scope.spans.map((span) => span.name)),
        );
      });
      expect(names.filter((name) => name === 'mh.run')).toHaveLength(2);
      expect(names.filter((name) => name === 'mh.tool')).toHaveLength(2);
    });
  });
});
