// @mh/eval: record/replay and the eval toolkit. Exports are added as the modules land.
export type { Cassette, CassetteSummary } from './cassette.js';
export { openCassette } from './cassette.js';
export { REPLAY_TIMINGS, type ReplayTiming } from './cassette-context.js';
export {
  CASSETTE_FILE_PROBLEMS,
  CassetteFileError,
  type CassetteFileProblem,
} from './cassette-errors.js';
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
} from './cassette-format.js';
export type { CassetteOptions } from './cassette-options.js';
export { RecordingProvider } from './recording-provider.js';
export { RecordingToolExecutor } from './recording-tool-executor.js';
export { DRIFT_KINDS, type DriftFinding, type DriftKind } from './replay-drift.js';
export { ReplayProvider } from './replay-provider.js';
export { diffRequests, normalizeRequest, type RequestDifference } from './request-diff.js';
export { ReplayToolExecutor, UNRECORDED_TOOL_TEXT } from './tool-replay.js';
