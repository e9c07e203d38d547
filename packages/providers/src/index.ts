export { type FakeOptions, FakeProvider, fake, fakeTurn, findArithmetic } from './fake-provider.js';
export { attemptsOf } from './retry-attempts.js';
export type { RetryInfo, WithRetryOptions } from './retry-options.js';
export { RetryingProvider, withRetry } from './retrying-provider.js';
export {
  type ScriptedOptions,
  ScriptedProvider,
  type ScriptedTurn,
  type ScriptStep,
  scripted,
} from './scripted-provider.js';
export type { TurnContent, TurnToolCall } from './stream-turn.js';
