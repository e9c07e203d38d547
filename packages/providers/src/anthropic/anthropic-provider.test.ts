import { ConfigError } from '@mh/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AnthropicProvider, anthropic } from './anthropic-provider.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('anthropic', () => {
  it('creates a provider named anthropic', () => {
    const provider = anthropic({ apiKey: 'sk-ant-test' });
    expect(provider).toBeInstanceOf(AnthropicProvider);
    expect(provider.name).toBe('anthropic');
  });

  it('reads ANTHROPIC_API_KEY from the environment', () => {
    vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-env');
    expect(anthropic().name).toBe('anthropic');
  });

  it('throws a ConfigError naming ANTHROPIC_API_KEY when no key is available', () => {
    vi.stubEnv('ANTHROPIC_API_KEY', '');
    expect(() => anthropic()).toThrow(ConfigError);
    expect(() => anthropic()).toThrow(/ANTHROPIC_API_KEY/);
  });
});
