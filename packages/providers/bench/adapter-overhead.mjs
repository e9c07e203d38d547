// Adapter overhead per streamed event: the raw vendor SDK iterating a stream from a loopback
// server, against our adapter iterating the same bytes into unified StreamEvents. Runs against
// the built package. Prints medians of several interleaved runs and the per-event difference.
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import Anthropic from '@anthropic-ai/sdk';
import { anthropic } from '@mh/providers/anthropic';
import { openai } from '@mh/providers/openai';
import OpenAI from 'openai';

const DELTAS = Number(process.env.BENCH_DELTAS ?? 5000);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 9);

function sse(type, data) {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}
const anthropicBody =
  sse('message_start', {
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [],
      stop_reason: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  }) +
  sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
  Array.from({ length: DELTAS }, (_, i) =>
    sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: `w${i} ` } }),
  ).join('') +
  sse('content_block_stop', { index: 0 }) +
  sse('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: DELTAS } }) +
  sse('message_stop', {});
const chunk = (delta, finish = null) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const openaiBody =
  chunk({ role: 'assistant', content: '' }) +
  Array.from({ length: DELTAS }, (_, i) => chunk({ content: `w${i} ` })).join('') +
  chunk({}, 'stop') +
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [], usage: { prompt_tokens: 10, completion_tokens: DELTAS, total_tokens: DELTAS + 10 } })}\n\n` +
  'data: [DONE]\n\n';

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.end(request.url.includes('/messages') ? anthropicBody : openaiBody);
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;

const request = {
  model: 'm',
  messages: [{ id: 'u', role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  tools: [],
};
const rawAnthropic = new Anthropic({ apiKey: 'k', baseURL: base, maxRetries: 0 });
const rawOpenAI = new OpenAI({ apiKey: 'k', baseURL: `${base}/v1`, maxRetries: 0 });
const ours = {
  anthropic: anthropic({ apiKey: 'k', baseURL: base }),
  openai: openai({ apiKey: 'k', baseURL: `${base}/v1` }),
};

const cases = {
  'anthropic raw SDK': async () => {
    let n = 0;
    const stream = await rawAnthropic.messages.create({
      model: 'm',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    for await (const _ of stream) n++;
    return n;
  },
  'anthropic adapter': async () => {
    let n = 0;
    for await (const _ of ours.anthropic.stream(request)) n++;
    return n;
  },
  'openai raw SDK': async () => {
    let n = 0;
    const stream = await rawOpenAI.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    for await (const _ of stream) n++;
    return n;
  },
  'openai adapter': async () => {
    let n = 0;
    for await (const _ of ours.openai.stream(request)) n++;
    return n;
  },
};

const times = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
const counts = {};
for (const run of Object.values(cases)) await run(); // warm-up
for (let index = 0; index < REPEATS; index++) {
  for (const [name, run] of Object.entries(cases)) {
    const start = performance.now();
    counts[name] = await run();
    times[name].push(performance.now() - start);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const vendor of ['anthropic', 'openai']) {
  const raw = median(times[`${vendor} raw SDK`]);
  const adapter = median(times[`${vendor} adapter`]);
  console.log(
    `${vendor}: ${DELTAS} text deltas; raw SDK ${raw.toFixed(1)} ms (${counts[`${vendor} raw SDK`]} events), ` +
      `adapter ${adapter.toFixed(1)} ms (${counts[`${vendor} adapter`]} events); ` +
      `overhead ${(((adapter - raw) / DELTAS) * 1000).toFixed(2)} µs per delta, ratio ${(adapter / raw).toFixed(2)} (medians of ${REPEATS})`,
  );
}
server.close();
