export {
  type CompactionContext,
  type CompactionOutcome,
  Compactor,
  type CompactorDeps,
} from './compaction/compactor.js';
export {
  ContextMeter,
  type ContextMeterState,
  type ContextSize,
} from './compaction/context-meter.js';
export { findCut } from './compaction/cut.js';
export {
  type CompactionOptions,
  MIN_OLD_SEGMENT_RATIO,
  type ResolvedCompaction,
  resolveCompaction,
} from './compaction/options.js';
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
export {
  renderTranscript,
  SUMMARY_HEADER,
  SUMMARY_INSTRUCTIONS,
} from './compaction/summary-prompt.js';
export {
  CancelledError,
  ConfigError,
  GUARDS,
  type Guard,
  GuardTrippedError,
  HarnessError,
  McpProtocolError,
  PermissionDeniedError,
  PROVIDER_ERROR_KINDS,
  ProviderError,
  type ProviderErrorKind,
  ReplayDriftError,
  SESSION_STORE_FAILURES,
  SessionConflictError,
  type SessionStoreFailure,
  SessionStoreUnavailableError,
  ToolInputError,
  ToolTimeoutError,
} from './errors.js';
export {
  assertTimerMs,
  DEFAULT_MAX_TURNS,
  type Limits,
  MAX_TIMEOUT_MS,
  RepeatedCallCounter,
  validateLimits,
} from './loop/limits.js';
export {
  type CommittedTurn,
  checkSampling,
  type LoopHooks,
  type LoopOptions,
} from './loop/options.js';
export { runLoop } from './loop/run-loop.js';
export {
  type AgentEvent,
  RUN_STATUSES,
  type RunResult,
  type RunStatus,
} from './loop/run-result.js';
export {
  type HistoryRepair,
  type HistoryViolation,
  interruptedResultText,
  type RepairKind,
  type RepairOptions,
  type RepairResult,
  ROLE_BLOCKS,
  repairHistory,
  VIOLATION_KINDS,
  type ViolationKind,
  validateHistory,
} from './messages/history.js';
export { extractIdentifiers } from './messages/identifiers.js';
export {
  type ContentBlock,
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
export { assertMessages } from './messages/shape.js';
export {
  estimateBlockTokens,
  estimateMessageTokens,
  estimateRequestTokens,
  estimateTokens,
  IMAGE_TOKENS,
  MESSAGE_OVERHEAD_TOKENS,
} from './messages/tokens.js';
export { TRIM_MARKER_PREFIX, trimMessage, trimText, trimToolResult } from './messages/trim.js';
export {
  checkBoundary,
  fenceBoundaryOf,
  fenceUntrusted,
  injectionDefenseRule,
  newBoundary,
  unfenceUntrusted,
  withoutBoundary,
} from './messages/untrusted-data.js';
export { addUsage, promptTokens, totalTokens, type Usage, ZERO_USAGE } from './messages/usage.js';
export { type Clock, systemClock } from './ports/clock.js';
export {
  type JsonSchema,
  type ModelRequest,
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
export type { Summarizer, Summary, SummaryRequest } from './ports/summarizer.js';
export {
  type ParseResult,
  PERMISSIONS,
  type Permission,
  type PermissionDecision,
  type PermissionPolicy,
  type PermissionPreview,
  type PermissionRequest,
  previewToolCall,
  TOOL_CALL_PREVIEW_DECISIONS,
  TOOL_CALL_STATUSES,
  type Tool,
  type ToolCallHooks,
  type ToolCallPreview,
  type ToolCallPreviewDecision,
  type ToolCallStatus,
  type ToolExecutionContext,
  type ToolExecutor,
  type ToolOutcome,
  type ToolOutput,
  type ToolRunContext,
  type ToolSchema,
  toolSpec,
} from './ports/tool.js';
export {
  type Attributes,
  type AttributeValue,
  noopTracer,
  SPAN_NAMES,
  type Span,
  type SpanOptions,
  type Tracer,
} from './ports/tracer.js';
export { lookupModel } from './pricing/model-lookup.js';
export { defaultModels, type ModelInfo, ModelTable } from './pricing/model-table.js';
export { costOf, defaultPricing, type ModelPrice, PricingTable } from './pricing/prices.js';
export { AsyncQueue } from './support/async-queue.js';
export { type BackoffOptions, backoffDelay, type RetryOptions, retry } from './support/backoff.js';
export { canonicalJson } from './support/canonical-json.js';
export { assertCollaborators, assertImplements, assertOptions } from './support/option-checks.js';
export { isErrorObject, thrownKind, thrownMessage, thrownText } from './support/thrown-text.js';
export {
  InMemoryTracer,
  type InMemoryTracerOptions,
} from './tracing/in-memory-tracer.js';
export {
  type LatencyMetrics,
  metricsFromSpans,
  type SpanMetrics,
  type TokenCounts,
} from './tracing/metrics-from-spans.js';
export { percentile } from './tracing/percentile.js';
export { errorKind, recordFailure } from './tracing/span-failure.js';
export {
  childrenBySpanId,
  SPAN_STATUSES,
  type SpanEventRecord,
  type SpanRecord,
  type SpanStatus,
  spanDurationMs,
  subtreeOf,
} from './tracing/span-record.js';
export { GEN_AI_OPERATIONS, SPAN_ATTRIBUTES, SPAN_EVENTS } from './tracing/vocabulary.js';
