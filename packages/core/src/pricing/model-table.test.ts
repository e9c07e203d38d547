import { describe, expect, it } from 'vitest';
import { defaultModels, ModelTable } from './model-table.js';

describe('ModelTable', () => {
  it('finds a dated snapshot by its family', () => {
    expect(defaultModels.lookup('claude-sonnet-4-5-20250929')?.contextWindow).toBe(200_000);
  });

  it('prefers the longest matching family', () => {
    expect(defaultModels.lookup('gpt-4.1-mini-2025-04-14')).toBe(
      defaultModels.lookup('gpt-4.1-mini'),
    );
  });

  it('ignores an OpenRouter-style vendor prefix', () => {
    expect(defaultModels.lookup('openai/gpt-4o')?.maxOutputTokens).toBe(16_384);
  });

  it('is undefined for an unknown model', () => {
    expect(defaultModels.lookup('my-local-llama')).toBeUndefined();
  });

  it('extends with user entries', () => {
    const table = defaultModels.with({
      'my-local-llama': { contextWindow: 8_192, maxOutputTokens: 2_048 },
    });
    expect(table.lookup('my-local-llama')?.contextWindow).toBe(8_192);
  });

  it('names the field of a bad entry', () => {
    expect(() => new ModelTable({ x: { contextWindow: 0, maxOutputTokens: 1 } })).toThrow(
      expect.objectContaining({ field: 'models.x.contextWindow' }),
    );
  });
});

describe('lookupModel tiers', () => {
  it('does not price a different tier as its base model', () => {
    expect([defaultModels.lookup('gpt-5-pro'), defaultModels.lookup('o3-deep-research')]).toEqual([
      undefined,
      undefined,
    ]);
  });

  it('accepts Vertex-style @date snapshots and -latest aliases', () => {
    expect(defaultModels.lookup('claude-opus-4-5@20251101')).toBe(
      defaultModels.lookup('claude-opus-4-5'),
    );
    expect(defaultModels.lookup('claude-3-5-haiku-latest')).toBe(
      defaultModels.lookup('claude-3-5-haiku'),
    );
  });
});
