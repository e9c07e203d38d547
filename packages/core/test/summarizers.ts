import type { Summarizer, SummaryRequest } from '../src/ports/summarizer.js';

/**
 * A summariser that always answers `text` (900 tokens in, `outputTokens` out) and records each
 * request in `calls`. Its text names no identifier: compaction must carry them itself.
 */
export function forgetfulSummarizer(
  text: string,
  calls: SummaryRequest[] = [],
  outputTokens = 40,
): Summarizer {
  return {
    async summarize(request) {
      calls.push(request);
      return {
        text,
        usage: { inputTokens: 900, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 },
      };
    },
  };
}

/** A summariser whose every call fails, as an overloaded upstream would. */
export const failingSummarizer: Summarizer = {
  summarize: async () => {
    throw new Error('503 upstream overloaded');
  },
};
