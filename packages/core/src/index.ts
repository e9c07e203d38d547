export { AsyncQueue } from './async-queue.js';
export { type BackoffOptions, backoffDelay, type RetryOptions, retry } from './backoff.js';
export { canonicalJson } from './canonical-json.js';
export { type Clock, systemClock } from './clock.js';
export {
  type CompactionContext,
  type CompactionOutcome,
  Compactor,
  type CompactorDeps,
} from './compaction.js';
export { findCut } from './compaction-cut.js';
export {
  type CompactionOptions,
  MIN_OLD_SEGMENT_RATIO,
  type ResolvedCompaction,
  resolveCompaction,
} from './compaction-options.js';
export {
  applyCompactionPatch,
  type CompactionPatch,
  compactionPatches,
} from './compaction-patch.js';
export type { CompactionEvent, CompactionRecord, CompactionStage } from './compaction-record.js';
export { assertCollaborators, assertImplements, assertOptions } from './config-checks.js';
export { ContextMeter, type ContextMeterState, type ContextSize } from './context-meter.js';
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
} from './history.js';
export { extractIdentifiers } from './identifiers.js';
export {
  InMemoryTracer,
  type InMemoryTracerOptions,
} from './in-memory-tracer.js';
export {
  assertTimerMs,
  DEFAULT_MAX_TURNS,
  type Limits,
  MAX_TIMEOUT_MS,
  RepeatedCallCounter,
  validateLimits,
} from './limits.js';
export { runLoop } from './loop.js';
export {
  type CommittedTurn,
  checkSampling,
  type LoopHooks,
  type LoopOptions,
} from './loop-options.js';
export { assertMessages } from './message-shape.js';
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
} from './messages.js';
export {
  type LatencyMetrics,
  metricsFromSpans,
  type SpanMetrics,
  type TokenCounts,
} from './metrics-from-spans.js';
export { lookupModel } from './model-lookup.js';
export { defaultModels, type ModelInfo, ModelTable } from './model-table.js';
export { type PartialJson, PartialJsonError, parsePartialJson } from './output/partial-json.js';
export {
  STRICT_LIMITS,
  type StrictSchema,
  toStrictSchema,
} from './output/strict-schema.js';
export { percentile } from './percentile.js';
export { costOf, defaultPricing, type ModelPrice, PricingTable } from './pricing.js';
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
} from './provider.js';
export { type ProviderSummarizerOptions, providerSummarizer } from './provider-summarizer.js';
export { type AgentEvent, RUN_STATUSES, type RunResult, type RunStatus } from './run-result.js';
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
} from './session-store.js';
export { errorKind, recordFailure } from './span-failure.js';
export {
  childrenBySpanId,
  SPAN_STATUSES,
  type SpanEventRecord,
  type SpanRecord,
  type SpanStatus,
  spanDurationMs,
  subtreeOf,
} from './span-record.js';
export type { Summarizer, Summary, SummaryRequest } from './summarizer.js';
export { renderTranscript, SUMMARY_HEADER, SUMMARY_INSTRUCTIONS } from './summary-prompt.js';
export { isErrorObject, thrownKind, thrownMessage, thrownText } from './thrown-text.js';
export {
  estimateBlockTokens,
  estimateMessageTokens,
  estimateRequestTokens,
  estimateTokens,
  IMAGE_TOKENS,
  MESSAGE_OVERHEAD_TOKENS,
} from './tokens.js';
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
} from './tool.js';
export { GEN_AI_OPERATIONS, SPAN_ATTRIBUTES, SPAN_EVENTS } from './trace-vocabulary.js';
export {
  type Attributes,
  type AttributeValue,
  noopTracer,
  SPAN_NAMES,
  type Span,
  type SpanOptions,
  type Tracer,
} from './tracer.js';
export { TRIM_MARKER_PREFIX, trimMessage, trimText, trimToolResult } from './trim.js';
export {
  checkBoundary,
  fenceBoundaryOf,
  fenceUntrusted,
  injectionDefenseRule,
  newBoundary,
  unfenceUntrusted,
  withoutBoundary,
} from './untrusted-data.js';
export { addUsage, promptTokens, totalTokens, type Usage, ZERO_USAGE } from './usage.js';
