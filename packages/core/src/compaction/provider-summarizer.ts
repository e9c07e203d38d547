import { ConfigError, HarnessError } from '../errors.js';
import { messageText, userMessage } from '../messages/message.js';
import { addUsage, type Usage, ZERO_USAGE } from '../messages/usage.js';
import type { Provider } from '../ports/provider.js';
import type { Summarizer, Summary, SummaryRequest } from '../ports/summarizer.js';
import { renderTranscript } from './summary-prompt.js';

/** Options of `providerSummarizer`. */
export interface ProviderSummarizerOptions {
  /** Cap on the summary's tokens (default 2,048). */
  readonly maxOutputTokens?: number;
}

/**
 * A `Summarizer` that asks a model: the messages are rendered as a transcript in one user
 * message, the instructions are the system prompt, and no tools are offered. A failed call
 * throws (a `ProviderError` from the provider), so compaction can degrade instead of keeping an
 * error string as a summary.
 */
export function providerSummarizer(
  provider: Provider,
  model: string,
  options: ProviderSummarizerOptions = {},
): Summarizer {
  if (!provider || typeof provider.stream !== 'function')
    throw new ConfigError('provider', 'expected a Provider with a stream() method');
  if (typeof model !== 'string' || model.length === 0)
    throw new ConfigError('model', 'expected a non-empty string');
  const maxOutputTokens = options.maxOutputTokens ?? 2_048;
  if (!Number.isInteger(maxOutputTokens) || maxOutputTokens <= 0)
    throw new ConfigError('maxOutputTokens', `expected a positive integer, got ${maxOutputTokens}`);
  return {
    async summarize(request: SummaryRequest): Promise<Summary> {
      const transcript = renderTranscript(request.messages);
      let usage: Usage = ZERO_USAGE;
      for await (const event of provider.stream(
        {
          model,
          system: request.instructions,
          messages: [userMessage(`<transcript>\n${transcript}\n</transcript>`)],
          tools: [],
          maxOutputTokens,
          purpose: 'summary',
        },
        { signal: request.signal },
      )) {
        if (event.type === 'stream-reset' && event.usage) usage = addUsage(usage, event.usage);
        if (event.type === 'message-end') {
          return {
            text: messageText(event.message),
            usage: addUsage(usage, event.usage),
            model: event.model ?? model,
          };
        }
      }
      throw new HarnessError('The summary stream ended without a message-end event');
    },
  };
}
