// Injected faults of the infra layer: the provider fails (auth, quota, rate limit, outage, overflow).
import { ProviderError, type ProviderErrorKind } from '@mh/core';
import { scripted, withRetry } from '@mh/providers';
import { agentOf, type Fault, faultCase } from './kit.js';

function providerFault(
  kind: ProviderErrorKind,
  status: number | undefined,
  how: 'before' | 'mid-stream' | 'after-retries' = 'before',
): Fault {
  const error = new ProviderError(`${kind} from the provider`, {
    kind,
    ...(status ? { status } : {}),
    provider: 'scripted',
  });
  return {
    label: 'infra',
    evalCase: faultCase(`infra-${kind}-${how}`, 'What is the total of order A-1?'),
    agent: (context) => {
      if (how === 'after-retries') {
        const failing = scripted([{ error }], {
          whenExhausted: 'repeat-last',
          recordRequests: false,
        });
        return agentOf(context, [], {
          provider: withRetry(failing, { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 }),
        });
      }
      return agentOf(
        context,
        how === 'before'
          ? [{ error }]
          : [{ text: 'The total is $41.50 for order A-1.', failAfterEvents: 3, error }],
      );
    },
  };
}

export const INFRA_FAULTS: readonly Fault[] = [
  providerFault('rate-limit', 429),
  providerFault('auth', 401),
  providerFault('quota', 402),
  providerFault('overloaded', 529),
  providerFault('server', 500),
  providerFault('network', undefined, 'mid-stream'),
  providerFault('timeout', undefined, 'mid-stream'),
  providerFault('server', 503, 'after-retries'),
  providerFault('rate-limit', 429, 'after-retries'),
  providerFault('context-overflow', 400),
];
