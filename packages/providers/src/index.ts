export { FakeProvider, type FakeOptions, fake, fakeTurn, findArithmetic } from './fake-provider.js';
export {
  type ScriptedOptions,
  ScriptedProvider,
  type ScriptedTurn,
  type ScriptStep,
  scripted,
} from './scripted-provider.js';
export { type TurnContent, type TurnToolCall } from './stream-turn.js';
