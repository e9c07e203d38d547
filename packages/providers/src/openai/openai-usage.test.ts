import { describe, expect, it } from 'vitest';
import { chatUsage, responsesUsage } from './openai-usage.js';

describe('chatUsage', () => {
  it('moves cached tokens out of prompt_tokens', () => {
    expect(
      chatUsage({
        prompt_tokens: 339,
        completion_tokens: 83,
        prompt_tokens_details: { cached_tokens: 320 },
      }),
    ).toEqual({ inputTokens: 19, outputTokens: 83, cacheReadTokens: 320, cacheWriteTokens: 0 });
  });

  it("falls back to DeepSeek's prompt_cache_hit_tokens", () => {
    expect(
      chatUsage({ prompt_tokens: 100, completion_tokens: 1, prompt_cache_hit_tokens: 60 }),
    ).toEqual({ inputTokens: 40, outputTokens: 1, cacheReadTokens: 60, cacheWriteTokens: 0 });
  });

  it('treats missing, null or negative counts as 0 and never goes below 0', () => {
    expect(chatUsage({ prompt_tokens: null, prompt_tokens_details: { cached_tokens: 5 } })).toEqual(
      {
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      },
    );
    expect(chatUsage({ prompt_tokens: -3, completion_tokens: 2 }).inputTokens).toBe(0);
  });
});

describe('responsesUsage', () => {
  it('moves cached tokens out of input_tokens', () => {
    expect(
      responsesUsage({
        input_tokens: 31073,
        output_tokens: 4416,
        input_tokens_details: { cached_tokens: 3712 },
      }),
    ).toEqual({
      inputTokens: 27361,
      outputTokens: 4416,
      cacheReadTokens: 3712,
      cacheWriteTokens: 0,
    });
  });
});
