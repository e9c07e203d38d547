import { Anthropic } from '@anthropic-ai/sdk';
import { ConfigError } from '@mh/core';
import { describe, expect, it } from 'vitest';
import {
  ANTHROPIC_DEFAULT_MAX_OUTPUT_TOKENS,
  type AnthropicOptions,
  resolveAnthropicOptions,
} from './anthropic-options.js';

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (ConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('resolveAnthropicOptions', () => {
  it('names ANTHROPIC_API_KEY when no key is given or set', () => {
    const error = configError(() => resolveAnthropicOptions({}, {}));
    expect(error.field).toBe('apiKey');
    expect(error.message).toContain('ANTHROPIC_API_KEY');
  });

  it('reads the key from ANTHROPIC_API_KEY, and prefers apiKey', () => {
    expect(resolveAnthropicOptions({}, { ANTHROPIC_API_KEY: 'env-key' }).apiKey).toBe('env-key');
    expect(resolveAnthropicOptions({ apiKey: 'mine' }, { ANTHROPIC_API_KEY: 'env' }).apiKey).toBe(
      'mine',
    );
  });

  it('needs no key when a client is given', () => {
    const client = new Anthropic({ apiKey: 'k' });
    expect(resolveAnthropicOptions({ client }, {}).client).toBe(client);
  });

  it('applies the defaults', () => {
    expect(resolveAnthropicOptions({ apiKey: 'k' }, {})).toEqual({
      apiKey: 'k',
      baseURL: undefined,
      client: undefined,
      cache: true,
      thinkingBudgetTokens: undefined,
      defaultMaxOutputTokens: ANTHROPIC_DEFAULT_MAX_OUTPUT_TOKENS,
      timeoutMs: undefined,
    });
  });

  it.each([
    [{ apiKey: '' }, 'apiKey'],
    [{ apiKey: 'k', baseURL: 'not a url' }, 'baseURL'],
    [{ apiKey: 'k', baseURL: 'ftp://example.com' }, 'baseURL'],
    [{ client: {} }, 'client'],
    [{ client: new Anthropic({ apiKey: 'k' }), apiKey: 'k' }, 'apiKey'],
    [{ client: new Anthropic({ apiKey: 'k' }), baseURL: 'http://localhost' }, 'baseURL'],
    [{ apiKey: 'k', cache: 'yes' }, 'cache'],
    [{ apiKey: 'k', thinking: 2048 }, 'thinking'],
    [{ apiKey: 'k', thinking: {} }, 'thinking.budgetTokens'],
    [{ apiKey: 'k', thinking: { budgetTokens: 512 } }, 'thinking.budgetTokens'],
    [{ apiKey: 'k', thinking: { budgetTokens: 8192 } }, 'thinking.budgetTokens'],
    [{ apiKey: 'k', defaultMaxOutputTokens: 0 }, 'defaultMaxOutputTokens'],
    [{ apiKey: 'k', defaultMaxOutputTokens: 1.5 }, 'defaultMaxOutputTokens'],
    [{ apiKey: 'k', timeoutMs: -1 }, 'timeoutMs'],
    [{ apiKey: 'k', timeoutMs: Number.POSITIVE_INFINITY }, 'timeoutMs'],
    [{ apiKey: 'k', maxRetries: 3 }, 'maxRetries'],
  ] as const)('rejects %j naming %s', (options, field) => {
    expect(configError(() => resolveAnthropicOptions(options as AnthropicOptions, {})).field).toBe(
      field,
    );
  });

  it('accepts a thinking budget below a raised defaultMaxOutputTokens', () => {
    const resolved = resolveAnthropicOptions(
      { apiKey: 'k', defaultMaxOutputTokens: 16000, thinking: { budgetTokens: 10000 } },
      {},
    );
    expect(resolved.thinkingBudgetTokens).toBe(10000);
  });
});
