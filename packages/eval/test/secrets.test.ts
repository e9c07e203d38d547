import { readFileSync } from 'node:fs';
import { ProviderError } from '@mh/core';
import { scripted } from '@mh/providers';
import { afterEach, describe, expect, it } from 'vitest';
import { openCassette } from '../src/index.js';
import { cassetteAgent } from './agent-fixture.js';
import { tempCassette } from './helpers.js';

const KEY = `sk-ant-api03-${'Q7x'.repeat(15)}`;
const TOKEN = 'svc-token-5f2a9c71e0';
const saved = { ...process.env };

afterEach(() => {
  process.env.ANTHROPIC_API_KEY = saved.ANTHROPIC_API_KEY;
  process.env.BILLING_SERVICE_TOKEN = saved.BILLING_SERVICE_TOKEN;
  if (saved.ANTHROPIC_API_KEY === undefined) delete process.env.ANTHROPIC_API_KEY;
  if (saved.BILLING_SERVICE_TOKEN === undefined) delete process.env.BILLING_SERVICE_TOKEN;
});

describe('secrets in recordings', () => {
  it('never writes API keys or credential variables, and still replays without drift', async () => {
    // The key is found by its shape, the token because its variable names a credential.
    delete process.env.ANTHROPIC_API_KEY;
    process.env.BILLING_SERVICE_TOKEN = TOKEN;
    const path = tempCassette();
    const recording = await openCassette(path, { mode: 'record' });
    // The model sees the key (the user pasted it), passes it to a tool, and the tool echoes it.
    const model = scripted([
      { toolCalls: [{ id: 'toolu_1', name: 'lookup', input: { query: `${KEY} ${TOKEN}` } }] },
      { text: `Done with ${TOKEN}.` },
    ]);
    const prompt = `My key is ${KEY}; look it up.`;
    const live = cassetteAgent(recording, { case: 'leaky', repeat: 0 }, model);
    const recorded = await live.agent.run(prompt);
    // A provider failure whose message and cause carry the key, as SDK errors can.
    const failing = {
      name: 'anthropic',
      // biome-ignore lint/correctness/useYield: it fails before its first event, like a 401.
      async *stream(): AsyncGenerator<never> {
        throw new ProviderError(`401 invalid x-api-key ${KEY}`, {
          kind: 'auth',
          status: 401,
          provider: 'anthropic',
          cause: { headers: { 'x-api-key': KEY } },
        });
      },
    };
    const denied = cassetteAgent(recording, { case: 'denied', repeat: 0 }, failing);
    expect((await denied.agent.run('Hello')).status).toBe('error');
    await recording.close();

    const text = readFileSync(path, 'utf8');
    // Not even a fragment: streamed deltas split the key, and each piece must be masked too.
    expect(text).not.toContain('Q7xQ7x');
    expect(text).not.toContain('5f2a9c71e0');
    expect(text).toContain('[REDACTED:anthropic-key]');
    expect(text).toContain('[REDACTED:secret]');

    const replay = await openCassette(path, { mode: 'lockdown' });
    const again = cassetteAgent(replay, { case: 'leaky', repeat: 0 }, undefined);
    const replayed = await again.agent.run(prompt);
    const refused = cassetteAgent(replay, { case: 'denied', repeat: 0 }, undefined);
    const error = (await refused.agent.run('Hello')).error;
    const { drifts } = await replay.close();
    expect(drifts).toEqual([]);
    expect(replayed.status).toBe('completed');
    expect(replayed.text).toBe(recorded.text.replace(TOKEN, '[REDACTED:secret]'));
    expect(ProviderError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'auth', status: 401, retryable: false });
    expect(error?.message).toBe('401 invalid x-api-key [REDACTED:anthropic-key]');
  });
});
