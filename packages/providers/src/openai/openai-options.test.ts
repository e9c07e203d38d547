import { ConfigError } from '@mh/core';
import { OpenAI } from 'openai';
import { describe, expect, it } from 'vitest';
import { type OpenAIOptions, PLACEHOLDER_API_KEY, resolveOpenAIOptions } from './openai-options.js';

const noEnv = {};

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('resolveOpenAIOptions', () => {
  it('names OPENAI_API_KEY when no key is set for OpenAI`s endpoint', () => {
    const error = configError(() => resolveOpenAIOptions({}, 'chat', noEnv));
    expect(error.field).toBe('apiKey');
    expect(error.message).toContain('OPENAI_API_KEY');
    const explicit = configError(() =>
      resolveOpenAIOptions({ baseURL: 'https://api.openai.com/v1' }, 'chat', noEnv),
    );
    expect(explicit.field).toBe('apiKey');
  });

  it('takes the key from OPENAI_API_KEY', () => {
    expect(resolveOpenAIOptions({}, 'chat', { OPENAI_API_KEY: 'sk-env' }).apiKey).toBe('sk-env');
  });

  it('sends a placeholder key to a custom baseURL that needs none', () => {
    const local = resolveOpenAIOptions({ baseURL: 'http://localhost:11434/v1' }, 'chat', noEnv);
    expect(local.apiKey).toBe(PLACEHOLDER_API_KEY);
    const fromEnv = resolveOpenAIOptions({}, 'chat', {
      OPENAI_BASE_URL: 'http://localhost:8000/v1',
    });
    expect(fromEnv).toMatchObject({
      apiKey: PLACEHOLDER_API_KEY,
      baseURL: 'http://localhost:8000/v1',
      endpoint: 'http://localhost:8000/v1',
    });
  });

  it('defaults the Chat token field and reasoning echo by endpoint', () => {
    expect(resolveOpenAIOptions({ apiKey: 'k' }, 'chat', noEnv)).toMatchObject({
      name: 'openai',
      maxTokensField: 'max_completion_tokens',
      sendReasoning: false,
      nativeOutput: true,
      endpoint: 'https://api.openai.com/v1',
    });
    expect(
      resolveOpenAIOptions(
        { baseURL: 'https://api.deepseek.com', name: 'deepseek' },
        'chat',
        noEnv,
      ),
    ).toMatchObject({
      name: 'deepseek',
      maxTokensField: 'max_tokens',
      sendReasoning: true,
      nativeOutput: false,
    });
    expect(
      resolveOpenAIOptions({ baseURL: 'http://vllm.test', nativeOutput: true }, 'chat', noEnv),
    ).toMatchObject({ nativeOutput: true });
    expect(
      resolveOpenAIOptions(
        { baseURL: 'http://x.test', maxTokensField: 'max_completion_tokens', sendReasoning: false },
        'chat',
        noEnv,
      ),
    ).toMatchObject({ maxTokensField: 'max_completion_tokens', sendReasoning: false });
  });

  it.each([
    [{ api: 'completions' }, 'api'],
    [{ apiKey: '' }, 'apiKey'],
    [{ apiKey: 42 }, 'apiKey'],
    [{ baseURL: 'not a url' }, 'baseURL'],
    [{ baseURL: 'ftp://files.test' }, 'baseURL'],
    [{ organization: '' }, 'organization'],
    [{ timeoutMs: 0 }, 'timeoutMs'],
    [{ timeoutMs: Number.NaN }, 'timeoutMs'],
    [{ name: '   ' }, 'name'],
    [{ reasoningEffort: 'extreme' }, 'reasoningEffort'],
    [{ maxTokensField: 'max_output_tokens' }, 'maxTokensField'],
    [{ sendReasoning: 'yes' }, 'sendReasoning'],
    [{ nativeOutput: 1 }, 'nativeOutput'],
    [{ client: {} }, 'client'],
    [{ retries: 3 }, 'retries'],
  ])('rejects %j naming %s', (options, field) => {
    const error = configError(() =>
      resolveOpenAIOptions({ apiKey: 'k', ...options } as OpenAIOptions, 'chat', noEnv),
    );
    expect(error.field).toBe(field);
  });

  it('rejects a non-object', () => {
    expect(configError(() => resolveOpenAIOptions(null as never, 'chat', noEnv)).field).toBe(
      'options',
    );
  });

  it('takes a caller`s client, refusing settings it would ignore', () => {
    const client = new OpenAI({ apiKey: 'k', baseURL: 'http://gateway.test/v1' });
    const resolved = resolveOpenAIOptions({ client, timeoutMs: 5000 }, 'responses', noEnv);
    expect(resolved).toMatchObject({
      client,
      apiKey: undefined,
      endpoint: 'http://gateway.test/v1',
      timeoutMs: 5000,
    });
    for (const field of ['apiKey', 'baseURL', 'organization'] as const) {
      const error = configError(() =>
        resolveOpenAIOptions({ client, [field]: 'http://x.test' }, 'chat', noEnv),
      );
      expect(error.field).toBe(field);
    }
  });

  it('checks the client has the API it will call', () => {
    const chatOnly = { chat: { completions: { create: () => undefined } } } as unknown as OpenAI;
    expect(resolveOpenAIOptions({ client: chatOnly }, 'chat', noEnv).client).toBe(chatOnly);
    expect(
      configError(() => resolveOpenAIOptions({ client: chatOnly }, 'responses', noEnv)).field,
    ).toBe('client');
  });
});
