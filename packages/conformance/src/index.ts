export {
  AgentModel,
  type PromptRecord,
  promptsOf,
  type Serializer,
  type WaitingCall,
} from './agent/agent-model.js';
export type {
  AgentParts,
  ConformanceAgent,
  CrashJob,
} from './agent/agent-world.js';
export { killAfterWrites } from './agent/kill-after-writes.js';
export {
  type AgentConformanceOptions,
  type AgentConformanceReport,
  runAgentConformance,
} from './agent/run-agent-conformance.js';
export { type PlannedCall, ScriptedModel } from './agent/scripted-model.js';
export { type SideEffectTools, sideEffectTools } from './agent/side-effect-tools.js';
export { SessionStoreConformanceError } from './session-store/conformance-error.js';
export type {
  CrashOutcome,
  CrashWriter,
  SessionStoreConformanceOptions,
  SessionStoreConformanceReport,
  StoreWrite,
  StoreWriteMethod,
} from './session-store/options.js';
export { runSessionStoreConformance } from './session-store/run-session-store-conformance.js';
