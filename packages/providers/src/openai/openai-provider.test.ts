import { ConfigError, type ModelRequest } from '@mh/core';
import type { OpenAI } from 'openai';
import { describe, expect, it } from 'vitest';
import {
  OpenAICompatibleProvider,
  OpenAIProvider,
  OpenAIResponsesProvider,
  openai,
} from './openai-provider.js';

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

const request: ModelRequest = {
  model: 'm',
  messages: [{ id: 'u', role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  tools: [],
};

/** A client with both APIs whose calls fail at once, recording which API each call went to. */
function recordingClient(): { client: OpenAI; calls: string[] } {
  const calls: string[] = [];
  const create = (api: string) => () => {
    calls.push(api);
    return { withResponse: () => Promise.reject(new Error('offline')) };
  };
  const client = {
    chat: { completions: { create: create('chat') } },
    responses: { create: create('responses') },
  } as unknown as OpenAI;
  return { client, calls };
}

async function apiCalled(provider: OpenAIProvider, calls: string[]): Promise<string | undefined> {
  await expect(async () => {
    for await (const _ of provider.stream(request)) {
      // The call fails before any event.
    }
  }).rejects.toThrow(/offline/);
  return calls.at(-1);
}

describe('openai', () => {
  it('builds the Chat provider by default and the Responses one on request', () => {
    const chat = openai({ apiKey: 'k' });
    const responses = openai({ apiKey: 'k', api: 'responses', name: 'azure' });
    expect(chat).toBeInstanceOf(OpenAIProvider);
    expect(chat.api).toBe('chat');
    expect(chat.name).toBe('openai');
    expect(responses).toBeInstanceOf(OpenAIProvider);
    expect(responses.api).toBe('responses');
    expect(responses.name).toBe('azure');
  });

  it('rejects an unknown api', () => {
    expect(configError(() => openai({ api: 'assistants' as never, apiKey: 'k' })).field).toBe(
      'api',
    );
  });
});

describe('OpenAIProvider', () => {
  it('sends each call to the API that options.api names', async () => {
    const { client, calls } = recordingClient();
    expect(await apiCalled(new OpenAIProvider({ client }), calls)).toBe('chat');
    expect(await apiCalled(new OpenAIProvider({ client, api: 'responses' }), calls)).toBe(
      'responses',
    );
  });

  it('rejects an unknown api', () => {
    expect(configError(() => new OpenAIProvider({ api: 'assistants' as never })).field).toBe('api');
  });
});

describe('OpenAICompatibleProvider and OpenAIResponsesProvider (deprecated)', () => {
  it('keep to their own API whatever options.api says', async () => {
    const { client, calls } = recordingClient();
    const chat = new OpenAICompatibleProvider({ client, api: 'responses' });
    const responses = new OpenAIResponsesProvider({ client, api: 'chat' });
    expect([chat.api, responses.api]).toEqual(['chat', 'responses']);
    expect(await apiCalled(chat, calls)).toBe('chat');
    expect(await apiCalled(responses, calls)).toBe('responses');
  });
});
