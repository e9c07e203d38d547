// The provider fault matrix (notes/providers-and-retry.md §9, P1–P8, plus invalid tool JSON) as
// data: each scenario scripts a loopback server's answer to every request of one run and states
// the outcome it must have. test/fault-matrix.test.ts (vitest, from source) and
// bench/fault-matrix.mjs (plain node, built packages) both load this file, so it is plain
// JavaScript with no imports: one source of truth that needs no build.
//
// Every run is the same conversation: the user asks for 2 + 3, the model answers with some text
// and a call of the `add` tool (turn 1), then with the final text (turn 2). The good streams below
// are each vendor's real wire format; a fault replaces or truncates one of them.
//
// Over 500 lines, deliberately not split: it is one table (wire formats, fault bodies, the matrix)
// that two consumers load as a single module. If a third consumer appears, the wire builders
// (about 150 lines) are the part to move into a module of their own.

/** @typedef {'anthropic' | 'openai-chat'} Vendor */
/** @typedef {{ inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheWriteTokens: number }} Usage */

/**
 * What a scenario must end with.
 * @typedef {object} Expected
 * @property {'completed' | 'error'} status How the run ends.
 * @property {string} [kind] The `ProviderError` kind ending the run, when `status` is `error`.
 * @property {number[]} attempts Attempts per model call, in order (= the server's requests for it).
 * @property {string[]} retried The kinds of the errors retried, in order.
 * @property {number} [retryAfterMs] The server's retry-after: the retried request waits at least this.
 * @property {number} resets `stream-reset` events: retries of attempts that had streamed events.
 * @property {boolean} idleTimeout Whether an attempt is aborted by the idle timeout.
 * @property {number} executions `add` calls the executor runs (0 for calls from failed attempts).
 * @property {number} failedToolCalls Complete tool calls (`tool-call-end`) that failed attempts
 *   streamed before they broke: they must never run.
 * @property {number} invalidArguments Calls answered "Invalid arguments" without running.
 * @property {Usage} failedUsage Tokens the failed attempts reported before failing (ground truth).
 * @property {Usage} usage The run's total usage: completed turns plus `failedUsage`.
 */

/**
 * One row of the matrix.
 * @typedef {object} Scenario
 * @property {string} id The notes' fault id (P1…P8) or `tool-args`.
 * @property {string} name The fault, as the table shows it.
 * @property {Vendor} vendor Whose adapter and wire format.
 * @property {(request: unknown, response: import('node:http').ServerResponse, index: number) => void | Promise<void>} handler
 *   Answers request `index` (from 0) of the run; a request nobody scripted gets a 400.
 * @property {RetrySettings} retryOptions The `withRetry` options the run uses.
 * @property {Expected} expected The outcome.
 */

/**
 * `withRetry` options of a scenario.
 * @typedef {{ maxAttempts: number, baseDelayMs: number, maxDelayMs: number, idleTimeoutMs: number }} RetrySettings
 */

/**
 * The retry settings of every scenario but the stall (small backoff, so the matrix runs in
 * seconds). The idle timeout bounds the wait for every event, the first included, so it also
 * covers connecting and the response headers: under a CI load of several suites on 2 cores the
 * first request of a cold SDK took over 500 ms to its first event, and a 300 ms limit turned
 * healthy answers into `timeout` retries. No healthy response comes near 5 s, and a real hang
 * still ends before vitest's 10 s hook timeout.
 */
export const RETRY_OPTIONS = Object.freeze({
  maxAttempts: 3,
  baseDelayMs: 20,
  maxDelayMs: 100,
  idleTimeoutMs: 5_000,
});

/**
 * The idle timeout of the stall scenario (P6): only it can end the stalled attempt, so the run
 * waits it out, yet the stalled attempt's first events and the healthy attempts after it must
 * not trip it. Those come from a warm SDK (earlier scenarios of the vendor ran first), in well
 * under 200 ms on a loaded machine; the stall itself never ends, and its keep-alives (every
 * 100 ms) fall many times inside the window, so a timer they reset would never fire.
 */
export const STALL_IDLE_TIMEOUT_MS = 2_000;

/** The model each vendor's adapter is asked for. */
export const MODELS = Object.freeze({ anthropic: 'claude-sonnet-4-5', 'openai-chat': 'gpt-4o' });

/** The user's prompt. */
export const PROMPT = 'What is 2 + 3? Use the add tool.';

/** The one tool of the run. */
export const ADD_TOOL = Object.freeze({
  name: 'add',
  description: 'Adds two numbers and returns the sum.',
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  },
});

/** The arguments of the model's `add` call in the good stream. */
export const ADD_INPUT = Object.freeze({ a: 2, b: 3 });

/** The id of the model's `add` call, per vendor (the same in every replay of turn 1). */
export const CALL_IDS = Object.freeze({
  anthropic: 'toolu_01FaultMatrixAdd2p3',
  'openai-chat': 'call_FaultMatrixAdd2p3',
});

/** The text deltas of each good turn. */
const TURN_DELTAS = [
  ['Let me add ', 'those numbers.'],
  ['2 + 3 ', '= 5.'],
];

/** The assistant text of each good turn, in order (the last one is the run's answer). */
export const TURN_TEXTS = Object.freeze(TURN_DELTAS.map((deltas) => deltas.join('')));

function usage(inputTokens, outputTokens, cacheReadTokens = 0, cacheWriteTokens = 0) {
  return { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens };
}

/** Core usage of no tokens. */
export const NO_USAGE = Object.freeze(usage(0, 0));

/**
 * The usage each good turn reports, as core counts it (input excludes cache reads). Both vendors'
 * wires below encode these same numbers.
 */
export const TURN_USAGE = Object.freeze([usage(412, 38), usage(56, 9, 412)]);

/** What Anthropic's `message_start` reports before any output: input, and output 1. */
const ANTHROPIC_START_USAGE = [usage(412, 1), usage(56, 1, 412)];

/** Sums usages field by field. */
export function sumUsage(...usages) {
  return usages.reduce(
    (total, next) =>
      usage(
        total.inputTokens + next.inputTokens,
        total.outputTokens + next.outputTokens,
        total.cacheReadTokens + next.cacheReadTokens,
        total.cacheWriteTokens + next.cacheWriteTokens,
      ),
    NO_USAGE,
  );
}

/**
 * The `add` tool's answer for a call, `{ isError, text }`: the sum, or "Invalid arguments" when
 * the arguments were not a JSON object (`rawInput` set) or lack numbers `a` and `b`.
 */
export function answerAdd(call) {
  const { a, b } = call.input ?? {};
  if (call.rawInput !== undefined || typeof a !== 'number' || typeof b !== 'number') {
    const got = call.rawInput ?? JSON.stringify(call.input);
    return {
      isError: true,
      text: `Invalid arguments: expected {"a": number, "b": number}, got ${got}`,
    };
  }
  return { isError: false, text: String(a + b) };
}

// ---- Wire formats ----------------------------------------------------------------------------

/**
 * One good turn on the wire: its SSE events, and where faults cut it, as event counts: the first
 * `afterText` events end with the text, the first `insideToolJson` end half-way through the tool
 * call's JSON, and the first `afterToolCall` end with the complete tool call, before the usage and
 * the end of the message.
 * @typedef {{ events: string[], afterText: number, insideToolJson?: number, afterToolCall?: number }} Wire
 */

const anthropicEvent = (type, data = {}) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** Anthropic Messages turn `turn` (0: text + tool call, 1: text), tool JSON in `fragments`. */
function anthropicWire(turn, fragments = ['{"a": 2', ', "b": 3}']) {
  const start = ANTHROPIC_START_USAGE[turn];
  const events = [
    anthropicEvent('message_start', {
      message: {
        id: `msg_01FaultMatrixTurn${turn + 1}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: start.inputTokens,
          cache_creation_input_tokens: start.cacheWriteTokens,
          cache_read_input_tokens: start.cacheReadTokens,
          output_tokens: start.outputTokens,
          service_tier: 'standard',
        },
      },
    }),
    anthropicEvent('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    anthropicEvent('ping'),
    ...TURN_DELTAS[turn].map((text) =>
      anthropicEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }),
    ),
  ];
  const afterText = events.length;
  events.push(anthropicEvent('content_block_stop', { index: 0 }));
  let insideToolJson;
  let afterToolCall;
  if (turn === 0) {
    events.push(
      anthropicEvent('content_block_start', {
        index: 1,
        content_block: { type: 'tool_use', id: CALL_IDS.anthropic, name: 'add', input: {} },
      }),
      anthropicEvent('content_block_delta', {
        index: 1,
        delta: { type: 'input_json_delta', partial_json: '' },
      }),
    );
    for (const [position, partial_json] of fragments.entries()) {
      if (position === 1) insideToolJson = events.length;
      events.push(
        anthropicEvent('content_block_delta', {
          index: 1,
          delta: { type: 'input_json_delta', partial_json },
        }),
      );
    }
    events.push(anthropicEvent('content_block_stop', { index: 1 }));
    afterToolCall = events.length;
  }
  events.push(
    anthropicEvent('message_delta', {
      delta: { stop_reason: turn === 0 ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: TURN_USAGE[turn].outputTokens },
    }),
    anthropicEvent('message_stop'),
  );
  return { events, afterText, insideToolJson, afterToolCall };
}

const chatData = (payload) => `data: ${JSON.stringify(payload)}\n\n`;

/** One Chat Completions chunk of turn `turn`. */
function chatChunk(turn, delta, finishReason = null) {
  return chatData({
    id: `chatcmpl-FaultMatrixTurn${turn + 1}`,
    object: 'chat.completion.chunk',
    created: 1767225600,
    model: 'gpt-4o-2024-08-06',
    system_fingerprint: 'fp_fm0001',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    usage: null,
  });
}

/** Chat Completions turn `turn` (0: text + tool call, 1: text), tool JSON in `fragments`. */
function chatWire(turn, fragments = ['{"a": 2', ', "b": 3}']) {
  const events = [
    chatChunk(turn, { role: 'assistant', content: '', refusal: null }),
    ...TURN_DELTAS[turn].map((content) => chatChunk(turn, { content })),
  ];
  const afterText = events.length;
  let insideToolJson;
  let afterToolCall;
  if (turn === 0) {
    events.push(
      chatChunk(turn, {
        tool_calls: [
          {
            index: 0,
            id: CALL_IDS['openai-chat'],
            type: 'function',
            function: { name: 'add', arguments: '' },
          },
        ],
      }),
    );
    for (const [position, fragment] of fragments.entries()) {
      if (position === 1) insideToolJson = events.length;
      events.push(
        chatChunk(turn, { tool_calls: [{ index: 0, function: { arguments: fragment } }] }),
      );
    }
  }
  // The finish chunk ends the tool calls; the usage chunk after it ends the message.
  events.push(chatChunk(turn, {}, turn === 0 ? 'tool_calls' : 'stop'));
  if (turn === 0) afterToolCall = events.length;
  const { inputTokens, cacheReadTokens, outputTokens } = TURN_USAGE[turn];
  const promptTokens = inputTokens + cacheReadTokens;
  events.push(
    chatData({
      id: `chatcmpl-FaultMatrixTurn${turn + 1}`,
      object: 'chat.completion.chunk',
      created: 1767225600,
      model: 'gpt-4o-2024-08-06',
      system_fingerprint: 'fp_fm0001',
      choices: [],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: outputTokens,
        total_tokens: promptTokens + outputTokens,
        prompt_tokens_details: { cached_tokens: cacheReadTokens, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
      },
    }),
    'data: [DONE]\n\n',
  );
  return { events, afterText, insideToolJson, afterToolCall };
}

/** The good turn `turn` of `vendor` (tool JSON in `fragments`). */
function wire(vendor, turn, fragments) {
  return vendor === 'anthropic' ? anthropicWire(turn, fragments) : chatWire(turn, fragments);
}

// ---- Responses the server can give ------------------------------------------------------------

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
};

/** A JSON error response. */
const jsonError =
  (status, body, headers = {}) =>
  (response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };

/** A whole event stream. */
const stream = (events) => (response) => {
  response.writeHead(200, SSE_HEADERS);
  response.end(events.join(''));
};

/** Some events, then the TCP connection is destroyed (the client sees a reset mid-body). */
const resetAfter = (events) => (response) => {
  response.writeHead(200, SSE_HEADERS);
  response.write(events.join(''));
  return new Promise((resolve) => {
    // Long enough for the events to reach the client before the socket goes.
    setTimeout(() => {
      response.socket?.destroy();
      resolve();
    }, 20);
  });
};

/**
 * Some events, then silence but for keep-alives every 100 ms (Anthropic `ping` events, an SSE
 * comment for OpenAI), which the SDKs drop: only the idle timeout can end this attempt.
 */
const stallAfter = (events, keepAlive) => (response) => {
  response.writeHead(200, SSE_HEADERS);
  response.write(events.join(''));
  const timer = setInterval(() => response.write(keepAlive), 100);
  response.on('close', () => clearInterval(timer));
};

/** The answer to a request no scenario step covers: a non-retryable 400 that names it. */
const unexpected = (index) =>
  jsonError(400, {
    type: 'error',
    error: {
      type: 'invalid_request_error',
      message: `fault matrix: no response scripted for request ${index + 1}`,
    },
  });

const anthropicError = (type, message, details) => ({
  type: 'error',
  error: { type, message, ...(details === undefined ? {} : { details }) },
  request_id: 'req_011CFaultMatrix0000000001',
});

const openaiError = (message, type, code = null) => ({
  error: { message, type, param: null, code },
});

const OPENAI_SERVER_ERROR = openaiError(
  'The server had an error while processing your request. Sorry about that!',
  'server_error',
);

/**
 * What differs between the vendors: the bodies of each fault, the kinds they map to, keep-alives,
 * and what a broken attempt has billed (Anthropic bills from `message_start` on; OpenAI Chat
 * reports usage only in its last chunk, so a broken attempt reports none).
 */
const VENDOR_FAULTS = {
  anthropic: {
    rateLimit: {
      name: '429 rate limit, retry-after: 1',
      retryAfterMs: 1000,
      step: jsonError(
        429,
        anthropicError(
          'rate_limit_error',
          'This request would exceed the rate limit for your organization of 50,000 input tokens per minute.',
        ),
        { 'retry-after': '1', 'anthropic-ratelimit-input-tokens-remaining': '0' },
      ),
    },
    overloaded: {
      name: '529 overloaded',
      step: jsonError(529, anthropicError('overloaded_error', 'Overloaded')),
    },
    serverError: jsonError(500, anthropicError('api_error', 'Internal server error')),
    auth: jsonError(401, anthropicError('authentication_error', 'invalid x-api-key')),
    quota: [
      {
        name: '400 credit balance too low',
        step: jsonError(
          400,
          anthropicError(
            'invalid_request_error',
            'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
          ),
        ),
      },
      {
        name: '429 spend limit, retry-after: 3600',
        step: jsonError(
          429,
          anthropicError('rate_limit_error', 'You have reached your specified API usage limits.', {
            error_code: 'enforced_spend_limit_reached',
          }),
          { 'retry-after': '3600' },
        ),
      },
    ],
    errorEvent: {
      name: 'overloaded_error event',
      kind: 'overloaded',
      wire: anthropicEvent('error', {
        error: { type: 'overloaded_error', message: 'Overloaded' },
        request_id: 'req_011CFaultMatrix0000000002',
      }),
    },
    keepAlive: anthropicEvent('ping'),
    startedUsage: ANTHROPIC_START_USAGE,
  },
  'openai-chat': {
    rateLimit: {
      name: '429 rate limit, retry-after-ms: 300',
      retryAfterMs: 300,
      step: jsonError(
        429,
        openaiError(
          'Rate limit reached for gpt-4o on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 300ms.',
          'requests',
          'rate_limit_exceeded',
        ),
        { 'retry-after-ms': '300', 'retry-after': '1', 'x-ratelimit-remaining-requests': '0' },
      ),
    },
    overloaded: {
      name: '503 overloaded',
      step: jsonError(
        503,
        openaiError('The engine is currently overloaded, please try again later', 'server_error'),
      ),
    },
    serverError: jsonError(500, OPENAI_SERVER_ERROR),
    auth: jsonError(
      401,
      openaiError(
        'Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys.',
        'invalid_request_error',
        'invalid_api_key',
      ),
    ),
    quota: [
      {
        name: '429 insufficient_quota',
        step: jsonError(
          429,
          openaiError(
            'You exceeded your current quota, please check your plan and billing details.',
            'insufficient_quota',
            'insufficient_quota',
          ),
        ),
      },
    ],
    errorEvent: { name: '{"error"} chunk', kind: 'server', wire: chatData(OPENAI_SERVER_ERROR) },
    keepAlive: ': keep-alive\n\n',
    startedUsage: [NO_USAGE, NO_USAGE],
  },
};

// ---- The matrix -------------------------------------------------------------------------------

/** The expectation of a run that completes both turns. */
function completes({
  attempts,
  retried = [],
  retryAfterMs,
  resets = 0,
  idleTimeout = false,
  executions = 1,
  failedToolCalls = 0,
  invalidArguments = 0,
  failedUsage = NO_USAGE,
}) {
  return {
    status: 'completed',
    attempts,
    retried,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    resets,
    idleTimeout,
    executions,
    failedToolCalls,
    invalidArguments,
    failedUsage,
    usage: sumUsage(...TURN_USAGE, failedUsage),
  };
}

/**
 * The expectation of a run that ends with a `ProviderError` of `kind` on its last model call
 * (`attempts` per call, the first by default); the calls before it completed their good turns.
 */
function fails(
  kind,
  { attempts = [1], retried = [], resets = 0, executions = 0, failedUsage = NO_USAGE } = {},
) {
  return {
    status: 'error',
    kind,
    attempts,
    retried,
    resets,
    idleTimeout: false,
    executions,
    failedToolCalls: 0,
    invalidArguments: 0,
    failedUsage,
    usage: sumUsage(...TURN_USAGE.slice(0, attempts.length - 1), failedUsage),
  };
}

/**
 * The scenarios of one vendor: its server answers request `i` of a run with `steps[i]`. A row is
 * `[id, name, steps, expected]`, plus the options that differ from `RETRY_OPTIONS`, if any.
 */
function matrixFor(vendor) {
  const faults = VENDOR_FAULTS[vendor];
  const started = faults.startedUsage;
  const tool = wire(vendor, 0);
  const text = wire(vendor, 1);
  const good = [stream(tool.events), stream(text.events)];
  // The final answer's text, then an error inside the 200 stream.
  const brokenAnswer = stream([...text.events.slice(0, text.afterText), faults.errorEvent.wire]);
  const errorKind = faults.errorEvent.kind;
  const rows = [
    [
      'P1',
      faults.rateLimit.name,
      [faults.rateLimit.step, ...good],
      completes({
        attempts: [2, 1],
        retried: ['rate-limit'],
        retryAfterMs: faults.rateLimit.retryAfterMs,
      }),
    ],
    [
      'P3',
      faults.overloaded.name,
      [faults.overloaded.step, ...good],
      completes({ attempts: [2, 1], retried: ['overloaded'] }),
    ],
    [
      'P3',
      '500 three times (maxAttempts 3)',
      Array(3).fill(faults.serverError),
      fails('server', { attempts: [3], retried: ['server', 'server'] }),
    ],
    ['P8', '401 invalid API key', [faults.auth], fails('auth')],
    ...faults.quota.map(({ name, step }) => ['P2', name, [step], fails('quota')]),
    [
      'P5',
      'connection reset inside the tool call JSON',
      [resetAfter(tool.events.slice(0, tool.insideToolJson)), ...good],
      completes({ attempts: [2, 1], retried: ['network'], resets: 1, failedUsage: started[0] }),
    ],
    [
      'P5',
      'connection reset after the complete tool call',
      [resetAfter(tool.events.slice(0, tool.afterToolCall)), ...good],
      completes({
        attempts: [2, 1],
        retried: ['network'],
        resets: 1,
        failedToolCalls: 1,
        failedUsage: started[0],
      }),
    ],
    [
      'P4',
      `${faults.errorEvent.name} after text`,
      [good[0], brokenAnswer, good[1]],
      completes({ attempts: [1, 2], retried: [errorKind], resets: 1, failedUsage: started[1] }),
    ],
    [
      'P4',
      `${faults.errorEvent.name} after text, every attempt`,
      [good[0], ...Array(3).fill(brokenAnswer)],
      fails(errorKind, {
        attempts: [1, 3],
        retried: [errorKind, errorKind],
        resets: 2,
        executions: 1,
        failedUsage: sumUsage(started[1], started[1], started[1]),
      }),
    ],
    [
      'P6',
      'stall past the idle timeout (keep-alives only)',
      [stallAfter(tool.events.slice(0, tool.afterText), faults.keepAlive), ...good],
      completes({
        attempts: [2, 1],
        retried: ['timeout'],
        resets: 1,
        idleTimeout: true,
        failedUsage: started[0],
      }),
      { idleTimeoutMs: STALL_IDLE_TIMEOUT_MS },
    ],
    [
      'tool-args',
      'invalid JSON in tool arguments',
      [stream(wire(vendor, 0, ['{"a": 2', ', "b": three}']).events), good[1]],
      completes({ attempts: [1, 1], executions: 0, invalidArguments: 1 }),
    ],
  ];
  return rows.map(([id, name, steps, expected, retryOptions = {}]) => ({
    id,
    name,
    vendor,
    handler: (_request, response, index) => (steps[index] ?? unexpected(index))(response),
    retryOptions: Object.freeze({ ...RETRY_OPTIONS, ...retryOptions }),
    expected,
  }));
}

/** @type {readonly Scenario[]} Every scenario, Anthropic's first. */
export const SCENARIOS = Object.freeze([...matrixFor('anthropic'), ...matrixFor('openai-chat')]);
