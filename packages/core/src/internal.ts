/**
 * What only mini-harness's own packages need (`@mh/core/internal`): option assertions, the
 * serialiser and the tool-call event helpers the executors share, the brand check behind every
 * error class's `isInstance`, token estimators, trim and fence
 * helpers, the model table. Not a public API: names here may change in any release. Users import
 * from `@mh/core`.
 */
export { type ResolvedCompaction, resolveCompaction } from './compaction/options.js';
export { parallelCallEvents } from './executor/parallel-calls.js';
export { checkAnswers, checkAskedQuestion, checkQuestion } from './executor/question-asker.js';
export { toolCallEvents } from './executor/tool-call-events.js';
export { interruptOf, questionInterruptOf } from './loop/approvals.js';
export { assertTimerMs, MAX_TIMEOUT_MS, validateLimits } from './loop/limits.js';
export { checkSampling } from './loop/options.js';
export { interruptedResultText } from './messages/history-repair.js';
export { assertMessages } from './messages/shape.js';
export { estimateMessageTokens, estimateRequestTokens } from './messages/tokens.js';
export { trimToolResult } from './messages/trim.js';
export { checkBoundary, fenceBoundaryOf } from './messages/untrusted-data.js';
export { type ResolvedOutput, resolveOutput } from './output/typed-output.js';
export { defaultModels, type ModelInfo, ModelTable } from './pricing/model-table.js';
export { lendHistory } from './support/append-only.js';
export { brandCheck } from './support/brand-check.js';
export { canonicalJson } from './support/canonical-json.js';
export { jsonValueProblem } from './support/json-value.js';
export { assertCollaborators, assertImplements, assertOptions } from './support/option-checks.js';
export { thrownText } from './support/thrown-text.js';
export { percentile } from './tracing/percentile.js';
export { childrenBySpanId, spanDurationMs } from './tracing/span-record.js';
