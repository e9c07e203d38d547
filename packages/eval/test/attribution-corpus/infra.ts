// Corpus entries of the infra layer: the provider failed, by error kind and status.
import { ProviderError, type ProviderErrorKind } from '@mh/core';
import { runFixture, type Turn } from '../session-fixture.js';
import { ANSWER, type CorpusEntry, graded } from './kit.js';

const infra = (kind: ProviderErrorKind, status: number | undefined, atPrompt = 1): CorpusEntry => ({
  name: `provider ${kind}${atPrompt > 1 ? ' on the second prompt' : ''}`,
  layer: 'infra',
  rule: 'infra/provider-error',
  build: async () => {
    const error = new ProviderError(`${kind} from upstream`, {
      kind,
      ...(status ? { status } : {}),
      provider: 'fixture',
    });
    const turns: Turn[] = atPrompt > 1 ? [{ text: 'Noted.' }, { error }] : [{ error }];
    return graded(
      await runFixture({ prompts: atPrompt > 1 ? ['Hi.', 'Go.'] : ['Go.'], turns }),
      ANSWER,
    );
  },
});

export const INFRA: CorpusEntry[] = [
  infra('rate-limit', 429),
  infra('auth', 401),
  infra('quota', 402),
  infra('overloaded', 529),
  infra('server', 500),
  infra('network', undefined),
  infra('timeout', undefined),
  infra('server', 503, 2),
  infra('context-overflow', 400),
  infra('rate-limit', 429, 2),
];
