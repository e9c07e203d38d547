import {
  estimateTokens,
  type InMemoryTracer,
  type Provider,
  type Summarizer,
  type Summary,
  type SummaryRequest,
  type ToolExecutor,
} from '@mh/core';
import { estimateMessageTokens } from '@mh/core/internal';
import { Agent, PricingTable } from '@mh/sdk';
import { DEMO_MODEL } from './demo-model.js';
import { demoSystem, demoTools, type HarnessVersion } from './demo-tools.js';

/** Prices of the demo model, USD per million tokens (made up, so cost columns are not all zero). */
export const DEMO_PRICING: PricingTable = new PricingTable({
  [DEMO_MODEL]: {
    inputPerMTok: 3,
    outputPerMTok: 15,
    cacheReadPerMTok: 0.3,
    cacheWritePerMTok: 3.75,
  },
});

/** The demo's context window, tokens: small, so the long-chat case compacts. */
export const DEMO_CONTEXT_WINDOW = 2_400;

/**
 * A summariser that keeps the gist and drops identifiers: the context-layer fault of the demo
 * (a fact the last question needs disappears with the folded turns).
 */
export const lossySummarizer: Summarizer = {
  async summarize(request: SummaryRequest): Promise<Summary> {
    const text = `Earlier, the user asked ${request.messages.filter((message) => message.role === 'user').length} question(s) about an order and about shipping; they were answered.`;
    const input = request.messages.reduce(
      (sum, message) => sum + estimateMessageTokens(message),
      0,
    );
    return {
      text,
      usage: {
        inputTokens: input,
        outputTokens: estimateTokens(text),
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      },
      model: DEMO_MODEL,
    };
  },
};

/** What one demo agent is built from. */
export interface DemoAgentOptions {
  /** Harness version: v1 is the baseline, v2 the regressed variant. */
  readonly version: HarnessVersion;
  /** The model: the demo policy, a recording around it, or a replay of a cassette. */
  readonly provider: Provider;
  /** The session's tracer (from the runner). */
  readonly tracer: InMemoryTracer;
  /** A tool executor to use instead of the version's tools (a recording or a replay). */
  readonly tools?: ToolExecutor;
  /** The turn limit (default 6). */
  readonly maxTurns?: number;
}

/** Builds the demo agent: the composition root shared by the demo, the recorder and the CI gate. */
export function buildDemoAgent(options: DemoAgentOptions): Agent {
  return new Agent({
    provider: options.provider,
    model: DEMO_MODEL,
    system: demoSystem(options.version),
    tools: options.tools ?? demoTools(options.version),
    tracer: options.tracer,
    pricing: DEMO_PRICING,
    limits: { maxTurns: options.maxTurns ?? 6 },
    compaction: { contextWindow: DEMO_CONTEXT_WINDOW, summarizer: lossySummarizer },
  });
}
