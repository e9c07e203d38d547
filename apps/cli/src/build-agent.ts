import type { Provider } from '@mh/sdk';
import { Agent, calculatorTool, fake, withRetry, workspaceTools } from '@mh/sdk';
import type { CliOptions } from './args.js';
import { UsageError } from './args.js';

/** The model used when `--model` is not given. */
export const DEFAULT_MODELS: Readonly<Record<NonNullable<CliOptions['provider']>, string>> = {
  fake: 'fake',
  anthropic: 'claude-sonnet-4-5',
  openai: 'gpt-4o',
};

/** The provider the command line names; vendor SDKs load only when chosen. */
async function buildProvider(options: CliOptions): Promise<Provider> {
  switch (options.provider) {
    case undefined:
      throw new UsageError(
        'choose a model provider: --fake runs the offline model (see mh --help)',
      );
    case 'fake':
      return fake({ delayMs: options.fakeDelayMs });
    case 'anthropic': {
      const { anthropic } = await import('@mh/providers/anthropic');
      return withRetry(anthropic({ baseURL: options.baseURL }));
    }
    case 'openai': {
      const { openai } = await import('@mh/providers/openai');
      return withRetry(openai({ baseURL: options.baseURL, api: options.api }));
    }
  }
}

/** Builds the agent the command line describes. */
export async function buildAgent(options: CliOptions): Promise<Agent> {
  const provider = await buildProvider(options);
  return new Agent({
    provider,
    model: options.model ?? DEFAULT_MODELS[options.provider ?? 'fake'],
    system: options.system,
    tools: [calculatorTool(), ...workspaceTools({ root: options.root })],
    permissions: { grants: options.grants },
    limits: { maxTurns: options.maxTurns, timeoutMs: options.timeoutMs },
  });
}
