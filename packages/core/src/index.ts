/**
 * `@mh/core`: the spec of mini-harness. What a user or an adapter author needs, and nothing else;
 * what only sibling packages use is in `@mh/core/internal`, the shared test kit in `@mh/core/testing`.
 */

// Keeping a conversation inside its context window.
export {
  ContextMeter,
  type ContextMeterState,
  type ContextSize,
} from './compaction/context-meter.js';
export type { CompactionOptions } from './compaction/options.js';
export {
  applyCompactionPatch,
  type CompactionPatch,
  compactionPatches,
} from './compaction/patch.js';
export {
  type ProviderSummarizerOptions,
  providerSummarizer,
} from './compaction/provider-summarizer.js';
export type { CompactionEvent, CompactionRecord, CompactionStage } from './compaction/record.js';
export { SUMMARY_HEADER, SUMMARY_INSTRUCTIONS } from './compaction/summary-prompt.js';
// Durable runs: model calls, tool calls and store calls as an engine's steps (`LoopOptions.steps`).
export { type ErrorRecord, recordError, reviveError } from './durable/error-record.js';
export { stepExecutor, UNKNOWN_OUTCOME_TEXT } from './durable/step-executor.js';
export { type ModelCallRecord, stepProvider } from './durable/step-provider.js';
export { type StoreCallRecord, stepStore } from './durable/step-store.js';
// The error hierarchy; callers switch on `isInstance` and structured fields.
export {
  CancelledError,
  ConfigError,
  GUARDS,
  type Guard,
  GuardTrippedError,
  HarnessError,
  McpProtocolError,
  OUTPUT_FAILURE_REASONS,
  type OutputFailureReason,
  OutputInvalidError,
  PermissionDeniedError,
  PROVIDER_ERROR_KINDS,
  ProviderError,
  type ProviderErrorKind,
  ReplayDriftError,
  ToolInputError,
  ToolInterrupt,
  ToolTimeoutError,
} from './errors.js';
// Wrapping a tool executor: the one helper fencing, recording and replay build on.
export { mapOutcomes } from './executor/map-outcomes.js';
// A tool's questions to a person (`ToolRunContext.interrupt`), for executors to hand to tools.
export { type QuestionAsker, questionAsker } from './executor/question-asker.js';
// The agent loop, its options, limits and results.
export type { Limits } from './loop/limits.js';
export {
  type CommittedTurn,
  type LoopHooks,
  type LoopOptions,
  type LoopSettings,
  type ResolvedLoopOptions,
  type ResolvedLoopSettings,
  resolveLoopOptions,
  withRunLimits,
} from './loop/options.js';
export { runLoop } from './loop/run-loop.js';
export {
  type AgentEvent,
  type ApprovalInterrupt,
  type Decision,
  type HeldQuestion,
  type HeldTurn,
  INTERRUPT_KINDS,
  type Interrupt,
  type InterruptFields,
  type InterruptKind,
  type QuestionInterrupt,
  RUN_STATUSES,
  type RunResult,
  type RunStatus,
} from './loop/run-result.js';
// Messages, the pairing invariant and its repair, token estimates, usage, untrusted-data fences.
export {
  type HistoryViolation,
  VIOLATION_KINDS,
  type ViolationKind,
  validateHistory,
} from './messages/history.js';
export {
  type HistoryRepair,
  type RepairKind,
  type RepairOptions,
  type RepairResult,
  repairHistory,
} from './messages/history-repair.js';
export { extractIdentifiers } from './messages/identifiers.js';
export {
  type ContentBlock,
  type IdSource,
  type ImageBlock,
  MESSAGE_ROLES,
  type Message,
  messageText,
  newMessageId,
  type ProviderBlock,
  type Role,
  type TextBlock,
  type ThinkingBlock,
  type ToolResultBlock,
  type ToolUseBlock,
  toolResult,
  toolResultsOf,
  toolResultText,
  toolUsesOf,
  userMessage,
} from './messages/message.js';
export { estimateTokens } from './messages/tokens.js';
export {
  fenceUntrusted,
  fencingRule,
  injectionDefenseRule,
  newBoundary,
  unfenceUntrusted,
  withoutBoundary,
} from './messages/untrusted-data.js';
export { addUsage, promptTokens, totalTokens, type Usage, ZERO_USAGE } from './messages/usage.js';
// Typed output.
export type { OutputDelta } from './output/deltas.js';
export { type PartialJson, PartialJsonError, parsePartialJson } from './output/partial-json.js';
export { STRICT_LIMITS, type StrictSchema, toStrictSchema } from './output/strict-schema.js';
export {
  DEFAULT_MAX_OUTPUT_RETRIES,
  DEFAULT_OUTPUT_NAME,
  OUTPUT_STRATEGIES,
  type OutputOptions,
  type OutputStrategy,
} from './output/typed-output.js';
// The ports: what a provider, tool executor, session store, tracer, summariser or clock implements.
export { type Clock, systemClock } from './ports/clock.js';
export {
  type JsonSchema,
  type ModelRequest,
  type OutputFormat,
  type Provider,
  STOP_REASONS,
  type StopReason,
  type StreamEvent,
  type StreamOptions,
  type ToolSpec,
} from './ports/provider.js';
export {
  type BranchInfo,
  type Checkpoint,
  type CheckpointMeta,
  type CommitOptions,
  DEFAULT_BRANCH,
  type PendingTurn,
  type SessionInfo,
  type SessionState,
  type SessionStore,
  type ToolCallJournalEntry,
} from './ports/session-store.js';
export {
  STEP_KINDS,
  type StepInfo,
  type StepKind,
  type StepRunner,
} from './ports/step-runner.js';
export type { Summarizer, Summary, SummaryRequest } from './ports/summarizer.js';
export {
  type ApprovalRule,
  type AskedQuestion,
  type ParseResult,
  PERMISSIONS,
  type Permission,
  type PermissionDecision,
  type PermissionPolicy,
  type PermissionPreview,
  type PermissionRequest,
  type Tool,
  type ToolOutput,
  type ToolQuestion,
  type ToolRunContext,
  type ToolSchema,
  toolSpec,
} from './ports/tool.js';
export {
  type ApprovalRequest,
  previewToolCall,
  TOOL_CALL_PREVIEW_DECISIONS,
  TOOL_CALL_STATUSES,
  type ToolCallEvent,
  type ToolCallHooks,
  type ToolCallPreview,
  type ToolCallPreviewDecision,
  type ToolCallStatus,
  type ToolExecutionContext,
  type ToolExecutor,
  type ToolOutcome,
} from './ports/tool-executor.js';
export {
  type Attributes,
  type AttributeValue,
  SPAN_NAMES,
  type Span,
  type SpanOptions,
  type Tracer,
} from './ports/tracer.js';
// Model prices (USD per million tokens) and the pricing table runs charge by.
export { defaultPricing, type ModelPrice, PricingTable } from './pricing/prices.js';
export {
  SESSION_STORE_FAILURES,
  SessionConflictError,
  type SessionStoreFailure,
  SessionStoreUnavailableError,
} from './session-errors.js';
// Retry with backoff, for adapters that call the network.
export { type BackoffOptions, backoffDelay, type RetryOptions, retry } from './support/backoff.js';
// Spans in memory, the span vocabulary, and metrics computed from spans.
export { InMemoryTracer, type InMemoryTracerOptions } from './tracing/in-memory-tracer.js';
export {
  type LatencyMetrics,
  metricsFromSpans,
  type SpanMetrics,
  type TokenCounts,
} from './tracing/metrics-from-spans.js';
export {
  SPAN_STATUSES,
  type SpanEventRecord,
  type SpanRecord,
  type SpanStatus,
} from './tracing/span-record.js';
export { GEN_AI_OPERATIONS, SPAN_ATTRIBUTES, SPAN_EVENTS } from './tracing/vocabulary.js';
