import { describe, expect, it } from 'vitest';
import { drainRun } from '../../test/drain-run.js';
import { forgetfulSummarizer } from '../../test/summarizers.js';
import { type Message, userMessage } from '../messages/message.js';
import type { ModelRequest, Provider, StreamEvent, StreamOptions } from '../ports/provider.js';
import { ScriptedProvider, type ScriptedTurn } from '../testing/scripted-provider.js';
import { StubExecutor } from '../testing/stub-executor.js';
import type { LoopOptions } from './options.js';
import { requestSnapshot } from './request-snapshot.js';

const WINDOW = 20_000;

/** What a request says, without the ids a run draws at random. */
const content = (messages: readonly Message[]): string =>
  JSON.stringify(messages, (key, value) =>
    key === 'id' || key === 'toolUseId' ? undefined : value,
  );

/**
 * A 30-turn lookup run that crosses the compaction threshold: the model reports a prompt that
 * grows by 1,300 tokens a turn and falls back after each compaction, without reading the request.
 */
function lookupRun(wrap: (inner: Provider) => Provider): LoopOptions {
  let sinceCompaction = 0;
  let turn = 0;
  const script = (): ScriptedTurn => {
    turn++;
    sinceCompaction++;
    const usage = { inputTokens: 400 + 1300 * sinceCompaction, outputTokens: 20 };
    if (turn > 30) return { text: 'All orders checked.', usage };
    return { toolCalls: [{ name: 'lookup', input: { n: turn } }], usage };
  };
  return {
    provider: wrap(new ScriptedProvider(script)),
    model: 'test-model',
    history: [userMessage('Check orders 1 to 30.')],
    tools: new StubExecutor({
      lookup: async (input) => `order ${(input as { n: number }).n}: ${'ok '.repeat(1500)}`,
    }),
    limits: { maxTurns: 40 },
    compaction: {
      contextWindow: WINDOW,
      summarizer: forgetfulSummarizer('Orders were looked up one by one.'),
    },
    hooks: {
      async compacted() {
        sinceCompaction = 0;
      },
    },
  };
}

/** A provider that keeps every request and, when `read`, reads its messages as it is called. */
function keeping(
  kept: ModelRequest[],
  read: (request: ModelRequest) => void,
): (inner: Provider) => Provider {
  return (inner) => ({
    name: 'keeping',
    stream(request: ModelRequest, options?: StreamOptions): AsyncIterable<StreamEvent> {
      kept.push(request);
      read(request);
      return inner.stream(request, options);
    },
  });
}

describe('the request a provider receives', () => {
  it('cannot corrupt the history or later requests when the provider mutates it', async () => {
    const sent: string[] = [];
    const { result } = await drainRun(
      lookupRun((inner) => ({
        name: 'mutating',
        stream(request: ModelRequest, options?: StreamOptions): AsyncIterable<StreamEvent> {
          sent.push(content(request.messages));
          const messages = request.messages as Message[];
          messages.push(userMessage('injected by the provider'));
          messages.splice(0, 1);
          messages.reverse();
          (request as { messages: readonly Message[] }).messages = [];
          return inner.stream(request, options);
        },
      })),
    );
    expect(result.status).toBe('completed');
    expect(result.compactions.length).toBeGreaterThan(0);
    expect(JSON.stringify(result.messages)).not.toContain('injected by the provider');
    for (const request of sent) expect(request).not.toContain('injected by the provider');
  });

  it('still holds what was sent when the provider reads it after later turns and compactions', async () => {
    const atCall: string[] = [];
    await drainRun(lookupRun(keeping([], (request) => atCall.push(content(request.messages)))));
    const kept: ModelRequest[] = [];
    const { result } = await drainRun(lookupRun(keeping(kept, () => {})));
    expect(result.status).toBe('completed');
    expect(
      result.compactions.filter((record) => record.stage !== 'skipped').length,
    ).toBeGreaterThan(0);
    expect(kept.map((request) => content(request.messages))).toEqual(atCall);
  });
});

describe('requestSnapshot', () => {
  const fields = { model: 'm', system: 's', tools: [], temperature: 0.5 };

  it('holds the messages the history had when it was taken, read late or twice', () => {
    const history = [userMessage('a', 'a'), userMessage('b', 'b')];
    const request = requestSnapshot(fields, history);
    history.push(userMessage('c', 'c'));
    expect(request.messages.map((message) => message.id)).toEqual(['a', 'b']);
    expect(request.messages).toBe(request.messages);
    expect(request.messages).not.toBe(history);
  });

  it('reads like a plain request: same keys in the same order, spread and JSON included', () => {
    const history = [userMessage('a', 'a')];
    const request = requestSnapshot(fields, history);
    const plain = {
      model: 'm',
      system: 's',
      messages: history.slice(),
      tools: [],
      temperature: 0.5,
    };
    expect(Object.keys(request)).toEqual([
      'model',
      'system',
      'messages',
      'tools',
      'maxOutputTokens',
      'temperature',
      'stopSequences',
    ]);
    expect(JSON.stringify(request)).toBe(JSON.stringify(plain));
    expect({ ...request }).toEqual(plain);
  });

  it('lets a provider replace or change its own copy, as a plain request would', () => {
    const history = [userMessage('a', 'a')];
    const request = requestSnapshot(fields, history) as unknown as { messages: Message[] };
    request.messages.push(userMessage('x', 'x'));
    expect(request.messages.map((message) => message.id)).toEqual(['a', 'x']);
    request.messages = [];
    expect(request.messages).toEqual([]);
    expect(history.map((message) => message.id)).toEqual(['a']);
  });
});
