import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

// An OpenAI-compatible endpoint on loopback: the CLI drives the real `openai` SDK against it.
function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  return `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

const TOOL_TURN =
  chunk({
    role: 'assistant',
    tool_calls: [
      { index: 0, id: 'call_1', type: 'function', function: { name: 'calculator', arguments: '' } },
    ],
  }) +
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"expression":' } }] }) +
  chunk({ tool_calls: [{ index: 0, function: { arguments: '"6*7"}' } }] }) +
  chunk({}, 'tool_calls') +
  'data: [DONE]\n\n';
const ANSWER_TURN = `${chunk({ role: 'assistant', content: 'It is ' })}${chunk({ content: '42.' })}${chunk({}, 'stop')}data: [DONE]\n\n`;

let server: Server | undefined;
afterEach(() => server?.close());

function serve(
  handler: (index: number, body: unknown) => { status: number; body: string; type?: string },
): Promise<{ url: string; bodies: unknown[] }> {
  const bodies: unknown[] = [];
  const created = createServer((request, response) => {
    let text = '';
    request.on('data', (part: Buffer) => {
      text += part.toString('utf8');
    });
    request.on('end', () => {
      const body = JSON.parse(text) as unknown;
      bodies.push(body);
      const reply = handler(bodies.length - 1, body);
      response.writeHead(reply.status, { 'content-type': reply.type ?? 'text/event-stream' });
      response.end(reply.body);
    });
  });
  server = created;
  return new Promise((resolve) => {
    created.listen(0, '127.0.0.1', () => {
      const { port } = created.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}/v1`, bodies });
    });
  });
}

describe('mh --provider openai against an OpenAI-compatible endpoint', () => {
  it('calls the tool the model asked for and prints the answer', async () => {
    const { url, bodies } = await serve((index) => ({
      status: 200,
      body: index === 0 ? TOOL_TURN : ANSWER_TURN,
    }));
    const run = await runCli([
      '--provider',
      'openai',
      '--base-url',
      url,
      '--model',
      'local-model',
      'What is 6*7?',
    ]);
    expect(run.stderr).toContain('calculator {"expression":"6*7"}');
    expect(run.stdout.trim()).toBe('It is 42.');
    expect(run.code).toBe(0);
    const second = bodies[1] as { messages: { role: string; tool_call_id?: string }[] };
    expect(second.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });
  });

  it('reports an HTML error page from a proxy as a provider error, exit 1', async () => {
    const { url } = await serve(() => ({
      status: 401,
      body: '<html><body>Unauthorized</body></html>',
      type: 'text/html',
    }));
    const run = await runCli(['--provider', 'openai', '--base-url', url, 'hi']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/error: .*401/);
  });
});
