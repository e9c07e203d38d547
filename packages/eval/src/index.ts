// @mh/eval: record/replay and the eval toolkit. Exports are added as the modules land.

export { attribute, matchingRules } from './attribution/attribute.js';
export {
  type ClusterMember,
  clusterFailures,
  type FailureCluster,
  normaliseErrorText,
} from './attribution/cluster.js';
export type { AttributionRule, RuleHit } from './attribution/rule.js';
export { ATTRIBUTION_RULES } from './attribution/rules.js';
export {
  type Attribution,
  type AttributionInput,
  CONFIDENCES,
  type Confidence,
  type Evidence,
  LAYERS,
  type Layer,
  type SessionCheck,
} from './attribution/types.js';
export type { Cassette, CassetteSummary } from './cassette/cassette.js';
export { openCassette } from './cassette/cassette.js';
export {
  REPLAY_TIMINGS,
  type ReplayTiming,
  TOOL_REPLAY_MODES,
  type ToolReplayMode,
} from './cassette/context.js';
export {
  CASSETTE_FILE_PROBLEMS,
  CassetteFileError,
  type CassetteFileProblem,
} from './cassette/errors.js';
export {
  CASSETTE_FORMAT,
  CASSETTE_MODES,
  CASSETTE_VERSION,
  type CassetteHeader,
  type CassetteKey,
  type CassetteMode,
  REQUEST_OUTCOMES,
  type RecordedError,
  type RecordedEvent,
  type RecordedToolOutcome,
  type RequestEntry,
  type RequestOutcome,
  type ToolEntry,
} from './cassette/format.js';
export type { CassetteOptions } from './cassette/options.js';
export { type CassetteContent, readCassetteFile } from './cassette/reader.js';
export {
  type Check,
  type CheckFailure,
  type CheckOptions,
  type CheckResult,
  type CustomCheckOptions,
  type CustomVerdict,
  check,
  runCheck,
} from './checks/check.js';
export {
  type CheckInput,
  checkInputOf,
  type SessionToolCall,
  sessionToolCalls,
} from './checks/input.js';
export { allOf, anyOf, not } from './checks/logic.js';
export { type PathIsOptions, pathIs, samePath } from './checks/path.js';
export { type ContainsOptions, contains, type MatchesOptions, matches } from './checks/text.js';
export { type ToolCalledOptions, toolCalled } from './checks/tools.js';
export { RecordingProvider } from './recording/provider.js';
export { RecordingToolExecutor } from './recording/tool-executor.js';
export { DRIFT_KINDS, type DriftFinding, type DriftKind } from './replay/drift.js';
export { ReplayProvider } from './replay/provider.js';
export { diffRequests, normalizeRequest, type RequestDifference } from './replay/request-diff.js';
export { settleReplayedRuns } from './replay/settle.js';
export { CUT_OFF_GRACE_MS } from './replay/stream.js';
export { ReplayToolExecutor, UNRECORDED_TOOL_TEXT } from './replay/tool-executor.js';
export { Comparison, compareReports } from './report/compare/comparison.js';
export {
  type CaseChange,
  type CaseSide,
  COMPARE_METHODS,
  type ComparedReport,
  type CompareMethod,
  type CompareOptions,
  type MetricChange,
  type PooledChange,
} from './report/compare/types.js';
export { type HtmlReportOptions, Report } from './report/report.js';
export {
  type Interval,
  newcombeInterval,
  type ProportionPair,
  passAtK,
  passHatK,
  wilsonInterval,
  Z_95,
} from './report/stats.js';
export type { CaseSummary, RateSummary, ReportSummary, TagSummary } from './report/summary.js';
export type { RunTrace, TraceBlock, TraceMessage, TraceSpan } from './report/trace.js';
export {
  type CaseRun,
  type ReportData,
  type ReportMeta,
  SESSION_STATUSES,
  type SessionMetrics,
  type SessionStatus,
} from './report/types.js';
export type { EvalAgent, EvalAgentContext, EvalAgentFactory } from './runner/agent.js';
export { combine } from './runner/combine.js';
export { EvalCase, type EvalCaseInit } from './runner/eval-case.js';
export type { ProgressSink } from './runner/progress.js';
export { EvalRunner, type EvalRunnerOptions } from './runner/runner.js';
