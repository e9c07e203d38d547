import { Agent, calculatorTool, fake, workspaceTools } from '@mh/sdk';
import type { CliOptions } from './args.js';
import { UsageError } from './args.js';

/** Builds the agent the command line describes. */
export function buildAgent(options: CliOptions): Agent {
  if (options.provider === undefined) {
    throw new UsageError('choose a model provider: --fake runs the offline model (see mh --help)');
  }
  const provider = fake({ delayMs: options.fakeDelayMs });
  return new Agent({
    provider,
    model: options.model ?? 'fake',
    system: options.system,
    tools: [calculatorTool(), ...workspaceTools({ root: options.root })],
    permissions: { grants: options.grants },
    limits: { maxTurns: options.maxTurns, timeoutMs: options.timeoutMs },
  });
}
