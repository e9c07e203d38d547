/**
 * The shared test kit of mini-harness (`@mh/core/testing`): a clock that moves only when told to,
 * a scripted provider, a stub tool executor and the executor contract check, `collect`,
 * `collectOutcomes` and `collectSettled`, `fieldOf` and `readmeExampleProblems` (which uses
 * `node:fs`). For tests: a run uses none of it, except through `@mh/providers`' `scripted()`, the
 * public scripted provider, a layer over `ScriptedProvider`.
 */
export { collect, collectOutcomes, collectSettled, type Settled } from './testing/collect.js';
export { type MakeExecutor, toolExecutorContractProblems } from './testing/executor-contract.js';
export { fieldOf } from './testing/field-of.js';
export { ManualClock, type ManualClockOptions } from './testing/manual-clock.js';
export {
  MemoryStepRunner,
  type RecordedStep,
  type SimulatedCrash,
  SimulatedCrashError,
} from './testing/memory-step-runner.js';
export {
  README_MAX_LINES,
  type ReadmeExampleOptions,
  readmeExampleProblems,
} from './testing/readme-examples.js';
export {
  type Script,
  type ScriptedCall,
  ScriptedProvider,
  type ScriptedProviderOptions,
  type ScriptedTurn,
  scriptedEvents,
} from './testing/scripted-provider.js';
export {
  echoTool,
  hangForeverTool,
  hangUntilAbortedTool,
  StubExecutor,
  type StubTool,
} from './testing/stub-executor.js';
