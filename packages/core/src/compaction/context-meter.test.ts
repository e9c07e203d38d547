import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReferenceContextMeter } from '../../test/reference-context-meter.js';
import type { ContentBlock, Message } from '../messages/message.js';
import { estimateRequestTokens } from '../messages/tokens.js';
import { ZERO_USAGE } from '../messages/usage.js';
import type { ModelRequest, ToolSpec } from '../ports/provider.js';
import { markAppendOnly } from '../support/append-only.js';
import { ContextMeter, type ContextMeterState } from './context-meter.js';

const SCHEMA = { type: 'object', properties: { n: { type: 'number' } } };
const SYSTEMS = [undefined, 'You are terse.', 'Vous êtes bref. 你好'];
/** Tool sets, built afresh for every request as a registry does (same names in 1 and 2). */
const TOOLS: (() => ToolSpec[])[] = [
  () => [],
  () => [{ name: 'add', description: 'Adds.', inputSchema: SCHEMA }],
  () => [
    { name: 'add', description: 'Adds two numbers, at length.', inputSchema: { type: 'object' } },
  ],
];

const text = fc.string({ maxLength: 40, unit: 'binary' });
const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  text.map((value): ContentBlock => ({ type: 'text', text: value })),
  fc.record({ id: fc.string({ minLength: 1, maxLength: 4 }), n: fc.integer() }).map(
    (call): ContentBlock => ({
      type: 'tool_use',
      id: call.id,
      name: 'add',
      input: { n: call.n },
    }),
  ),
  fc.record({ id: fc.string({ maxLength: 4 }), value: text }).map(
    (result): ContentBlock => ({
      type: 'tool_result',
      toolUseId: result.id,
      content: [{ type: 'text', text: result.value }],
      isError: false,
    }),
  ),
);
const message = fc.record({
  role: fc.constantFrom('user' as const, 'assistant' as const),
  content: fc.array(block, { minLength: 1, maxLength: 3 }),
});

/** What happens to a conversation and its meter (a compaction trims or summarises). */
const operation = fc.oneof(
  fc.record({
    kind: fc.constant('append' as const),
    messages: fc.array(message, { minLength: 1, maxLength: 3 }),
  }),
  fc.record({ kind: fc.constant('trim' as const), at: fc.nat(), text }),
  fc.record({ kind: fc.constant('summarise' as const), upTo: fc.nat(), text }),
  fc.record({ kind: fc.constant('drop-last' as const) }),
  fc.record({
    kind: fc.constant('observe' as const),
    real: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 50_000 })),
    system: fc.nat({ max: SYSTEMS.length - 1 }),
    tools: fc.nat({ max: TOOLS.length - 1 }),
    live: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('restore' as const), keep: fc.nat() }),
  fc.record({ kind: fc.constant('invalidate' as const) }),
);

type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never;

/**
 * Replays `operations` on a conversation and checks every figure against a from-scratch meter.
 * With `appendOnly`, the history is marked as the loop marks its own: appended to in place,
 * rewritten (trim, drop) as a new array.
 */
function matchesReference(operations: readonly Operation[], appendOnly: boolean): void {
  const meter = new ContextMeter();
  const reference = new ReferenceContextMeter();
  const mark = (messages: Message[]): Message[] =>
    appendOnly ? markAppendOnly(messages) : messages;
  let history: Message[] = mark([]);
  let last: ModelRequest | undefined;
  const states: ContextMeterState[] = [];
  let next = 0;
  const newMessage = (draft: { role: Message['role']; content: ContentBlock[] }): Message => ({
    id: `m${++next}`,
    ...draft,
  });
  const request = (system: number, tools: number, messages: readonly Message[]): ModelRequest => ({
    model: 'test-model',
    system: SYSTEMS[system],
    tools: (TOOLS[tools] as () => ToolSpec[])(),
    messages,
  });
  for (const op of operations) {
    switch (op.kind) {
      case 'append':
        history.push(...op.messages.map(newMessage));
        break;
      case 'trim': {
        if (history.length === 0) break;
        const at = op.at % history.length;
        const old = history[at] as Message;
        const trimmed: Message = { ...old, content: [{ type: 'text', text: op.text }] };
        if (appendOnly) history = mark(history.with(at, trimmed));
        else history[at] = trimmed;
        break;
      }
      case 'summarise': {
        const upTo = op.upTo % (history.length + 1);
        history = mark([
          newMessage({ role: 'user', content: [{ type: 'text', text: op.text }] }),
          ...history.slice(upTo),
        ]);
        break;
      }
      case 'drop-last':
        if (appendOnly) history = mark(history.slice(0, -1));
        else history.pop();
        break;
      case 'observe': {
        const sent = request(op.system, op.tools, op.live ? history : history.slice());
        const usage = { ...ZERO_USAGE, inputTokens: op.real, outputTokens: 1 };
        const estimated = meter.observe(sent, usage);
        reference.observe(sent, usage);
        // The incremental total is the from-scratch estimate of the same request.
        expect(estimated).toBe(estimateRequestTokens(sent));
        if (op.real > 0) {
          states.push({ promptTokens: op.real, estimatedTokens: estimated });
          last = { ...sent, messages: sent.messages.slice() };
        }
        break;
      }
      case 'restore': {
        const kept = states.slice(0, op.keep % (states.length + 1));
        const sent = kept.length === states.length ? last : undefined;
        meter.restore(kept, sent);
        reference.restore(kept, sent);
        break;
      }
      case 'invalidate':
        meter.invalidate();
        reference.invalidate();
        break;
    }
    expect(meter.calibration).toBe(reference.calibration);
    expect(meter.estimateMessages(history)).toBe(reference.estimateMessages(history));
    for (let system = 0; system < SYSTEMS.length; system++) {
      for (let tools = 0; tools < TOOLS.length; tools++) {
        const candidate = request(system, tools, history);
        expect(meter.estimate(candidate)).toBe(reference.estimate(candidate));
        expect(meter.measure(candidate).tokens).toBe(reference.estimate(candidate));
      }
    }
  }
}

describe('ContextMeter (incremental)', () => {
  it('after any appends, trims, summaries and restores, sizes what a from-scratch meter sizes', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 40 }), (operations) =>
        matchesReference(operations, false),
      ),
      { numRuns: 300 },
    );
  });

  it('sizes an append-only history (rewrites make new arrays) as a from-scratch meter does', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 40 }), (operations) =>
        matchesReference(operations, true),
      ),
      { numRuns: 300 },
    );
  });

  it('reads only the new messages of an append-only history it measured before', () => {
    const read: number[] = [];
    const messages: Message[] = [];
    const history = markAppendOnly(
      new Proxy(messages, {
        get(target, key, receiver) {
          if (typeof key === 'string' && /^\d+$/.test(key)) read.push(Number(key));
          return Reflect.get(target, key, receiver);
        },
      }),
    );
    const request: ModelRequest = { model: 'test-model', tools: [], messages: history };
    const say = (n: number): Message => ({
      id: `m${n}`,
      role: n % 2 === 0 ? 'user' : 'assistant',
      content: [{ type: 'text', text: `message ${n}` }],
    });
    const meter = new ContextMeter();
    for (let n = 0; n < 100; n++) messages.push(say(n));
    meter.observe(request, { ...ZERO_USAGE, inputTokens: 1000 });
    for (let turn = 0; turn < 5; turn++) {
      const from = messages.length;
      messages.push(say(from), say(from + 1));
      read.length = 0;
      meter.measure(request);
      meter.observe(request, { ...ZERO_USAGE, inputTokens: 1000 + 10 * turn });
      expect(Math.min(...read)).toBe(from);
    }
  });
});
