// The provider fault matrix of bench/fault-scenarios.mjs against the BUILT packages (run
// `npx tsc -b` at the repository root first): the real SDK clients talk to a loopback server that
// scripts every request, through each adapter wrapped in `withRetry` inside core's `runLoop`.
// Prints a markdown table (outcome, attempts per model call, the server's request count, time to
// outcome) and exits with 1 when a scenario misses the outcome it expects.
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { ProviderError, runLoop, toolResult, userMessage, validateHistory } from '@mh/core';
import { withRetry } from '@mh/providers';
import { anthropic } from '@mh/providers/anthropic';
import { openai } from '@mh/providers/openai';
import {
  ADD_TOOL,
  answerAdd,
  MODELS,
  PROMPT,
  RETRY_OPTIONS,
  SCENARIOS,
  STALL_IDLE_TIMEOUT_MS,
} from './fault-scenarios.mjs';

/** A loopback HTTP server that answers request `index` (from 0) with `handler`, counting them. */
async function serve(handler) {
  const sockets = new Set();
  let requests = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const index = requests++;
      Promise.resolve(handler(request, response, index)).catch((error) => response.destroy(error));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests: () => requests,
    close: () =>
      new Promise((resolve) => {
        // Stalled streams keep their sockets open: destroy them, or close() never returns.
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An executor of the `add` tool that counts the calls it really runs. */
function addExecutor() {
  const executor = {
    executed: 0,
    specs: () => [ADD_TOOL],
    async *execute(calls) {
      for (const call of calls) {
        yield { type: 'tool-start', call };
        const answer = answerAdd(call);
        if (!answer.isError) executor.executed++;
        const outcome = {
          call,
          result: toolResult(call.id, answer.text, answer.isError),
          status: answer.isError ? 'invalid-arguments' : 'ok',
          attempts: answer.isError ? 0 : 1,
          durationMs: 0,
        };
        yield { type: 'tool-end', outcome };
      }
    },
  };
  return executor;
}

function adapter(vendor, baseURL) {
  return vendor === 'anthropic'
    ? anthropic({ apiKey: 'sk-ant-test', baseURL })
    : openai({ apiKey: 'sk-test', baseURL });
}

/** Runs one scenario: its result, attempts per model call, retried kinds, requests, time. */
async function run(scenario) {
  const server = await serve(scenario.handler);
  try {
    const attempts = [];
    const retried = [];
    const provider = withRetry(adapter(scenario.vendor, server.url), {
      ...scenario.retryOptions,
      onRetry: ({ error }) => {
        attempts[attempts.length - 1]++;
        retried.push(error.kind);
      },
    });
    const executor = addExecutor();
    const started = performance.now();
    let result;
    for await (const event of runLoop({
      provider,
      model: MODELS[scenario.vendor],
      history: [userMessage(PROMPT)],
      tools: executor,
    })) {
      if (event.type === 'turn-start') attempts.push(1);
      if (event.type === 'run-end') result = event.result;
    }
    const ms = performance.now() - started;
    return {
      result,
      attempts,
      retried,
      requests: server.requests(),
      ms,
      executed: executor.executed,
    };
  } finally {
    await server.close();
  }
}

function outcomeOf({ result, retried }) {
  const end =
    result.status === 'error' && ProviderError.isInstance(result.error)
      ? `ProviderError \`${result.error.kind}\``
      : result.status;
  const distinct = [...new Set(retried)];
  return distinct.length === 0 ? end : `retried ${distinct.join(', ')} → ${end}`;
}

/** What differs from the scenario's expected outcome ([] when nothing does). */
function mismatches(scenario, observed) {
  const { expected } = scenario;
  const { result } = observed;
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const problems = [];
  if (result.status !== expected.status) problems.push(`status ${result.status}`);
  if (expected.kind !== undefined && result.error?.kind !== expected.kind) {
    problems.push(`error ${result.error?.kind ?? result.error}`);
  }
  if (!same(observed.attempts, expected.attempts)) problems.push('attempts');
  if (!same(observed.retried, expected.retried)) problems.push('retried kinds');
  const total = observed.attempts.reduce((sum, count) => sum + count, 0);
  if (observed.requests !== total)
    problems.push(`${observed.requests} requests ≠ ${total} attempts`);
  if (observed.executed !== expected.executions) problems.push(`${observed.executed} executions`);
  if (!same(result.usage, expected.usage)) problems.push('usage');
  if (validateHistory(result.messages).length > 0) problems.push('invalid history');
  return problems;
}

const rows = [];
const failures = [];
for (const scenario of SCENARIOS) {
  const observed = await run(scenario);
  const total = observed.attempts.reduce((sum, count) => sum + count, 0);
  const perCall = observed.attempts.length > 1 ? ` (${observed.attempts.join(' + ')})` : '';
  rows.push(
    `| ${scenario.id} ${scenario.name} | ${scenario.vendor} | ${outcomeOf(observed)} | ${total}${perCall} | ${observed.requests} | ${Math.round(observed.ms)} |`,
  );
  const problems = mismatches(scenario, observed);
  if (problems.length > 0) {
    failures.push(`${scenario.vendor}: ${scenario.id} ${scenario.name}: ${problems.join('; ')}`);
  }
}

console.log(
  `Fault matrix: maxAttempts ${RETRY_OPTIONS.maxAttempts}, baseDelayMs ${RETRY_OPTIONS.baseDelayMs}, maxDelayMs ${RETRY_OPTIONS.maxDelayMs}, idleTimeoutMs ${RETRY_OPTIONS.idleTimeoutMs} (${STALL_IDLE_TIMEOUT_MS} in the stall scenario); attempts per model call in parentheses.\n`,
);
console.log('| scenario | vendor | outcome | attempts | server requests | time to outcome (ms) |');
console.log('|---|---|---|---:|---:|---:|');
for (const row of rows) console.log(row);
console.log(
  `\n${SCENARIOS.length - failures.length}/${SCENARIOS.length} scenarios as expected (outcome, attempts = server requests, tool executions, usage, valid history).`,
);
if (failures.length > 0) {
  for (const failure of failures) console.log(`MISMATCH ${failure}`);
  process.exitCode = 1;
}
