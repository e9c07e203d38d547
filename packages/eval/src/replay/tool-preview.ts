import type { ToolCallPreview, ToolCallStatus, ToolUseBlock } from '@mh/core';
import type { CassetteKey, RecordedToolOutcome } from '../cassette/format.js';
import { type DriftFinding, driftFinding } from './drift.js';
import { joinPath } from './request-diff.js';

/**
 * What a call came to, in terms both a recorded status and a preview decision can be put in: the
 * tool ran (whatever it then returned), the policy refused it, no such tool, or bad arguments.
 * `cancelled` and `skipped` depend on the moment (an abort, a guard) and `ask`/`undecidable` on
 * an answer nobody has given: those have no class and are never compared.
 */
type CallClass = 'ran' | 'denied' | 'unknown-tool' | 'invalid-arguments';

const RECORDED_CLASS: Partial<Record<ToolCallStatus, CallClass>> = {
  ok: 'ran',
  error: 'ran',
  timeout: 'ran',
  denied: 'denied',
  'unknown-tool': 'unknown-tool',
  'invalid-arguments': 'invalid-arguments',
};

const PREVIEW_CLASS: Partial<Record<ToolCallPreview['decision'], CallClass>> = {
  run: 'ran',
  denied: 'denied',
  'unknown-tool': 'unknown-tool',
  'invalid-arguments': 'invalid-arguments',
};

function describeRecorded(status: ToolCallStatus, callClass: CallClass): string {
  return callClass === 'ran' ? `ran (${status})` : describeClass(callClass);
}

function describeClass(callClass: CallClass): string {
  return callClass === 'ran' ? 'would run' : callClass.replace('-', ' ');
}

function describePreview(preview: ToolCallPreview, callClass: CallClass): string {
  const why = callClass === 'ran' || callClass === 'unknown-tool' ? undefined : preview.reason;
  return why === undefined ? describeClass(callClass) : `${describeClass(callClass)} — ${why}`;
}

/** Where a finding is and what recording it concerns. */
export interface PreviewFindingContext {
  /** The recording served. */
  readonly key: CassetteKey;
  /** The request whose answer made the call. */
  readonly requestIndex: number;
}

/**
 * The drift between a served recorded outcome and what the current executor would do with the
 * call (`ToolExecutor.preview`), so a changed tool permission or permission policy is not hidden
 * behind the recording: `tool-permission` at `toolCalls.<id>.permission` when the tool's declared
 * permission changed (compared only when both are known), and `tool-decision` at
 * `toolCalls.<id>.status` when the call would now come to something else (recorded as run, now
 * denied; recorded as denied, now run; a tool that no longer exists; arguments now rejected).
 * A preview of `ask` (only a human's answer decides) or `undecidable` (e.g. a policy without
 * `preview`) gives no decision finding; nor does a recorded `cancelled` or `skipped`.
 */
export function previewFindings(
  recorded: RecordedToolOutcome,
  call: ToolUseBlock,
  preview: ToolCallPreview,
  context: PreviewFindingContext,
): DriftFinding[] {
  const base = joinPath('toolCalls', call.id);
  const what = `tool call ${call.id} (${call.name})`;
  const findings: DriftFinding[] = [];
  if (
    recorded.permission !== undefined &&
    preview.permission !== undefined &&
    recorded.permission !== preview.permission
  ) {
    findings.push(
      driftFinding(
        {
          kind: 'tool-permission',
          ...context,
          path: `${base}.permission`,
          recorded: recorded.permission,
          actual: preview.permission,
        },
        `${what}: recorded: permission '${recorded.permission}'; now: permission '${preview.permission}'`,
      ),
    );
  }
  const before = RECORDED_CLASS[recorded.status];
  const now = PREVIEW_CLASS[preview.decision];
  if (before !== undefined && now !== undefined && before !== now) {
    findings.push(
      driftFinding(
        {
          kind: 'tool-decision',
          ...context,
          path: `${base}.status`,
          recorded: recorded.status,
          actual: preview.decision,
        },
        `${what}: recorded: ${describeRecorded(recorded.status, before)}; now: ${describePreview(preview, now)}`,
      ),
    );
  }
  return findings;
}

/** The `tool-decision` finding for a call whose preview threw: the replay cannot vouch for it. */
export function previewFailure(
  recorded: RecordedToolOutcome,
  call: ToolUseBlock,
  error: unknown,
  context: PreviewFindingContext,
): DriftFinding {
  const reason = error instanceof Error ? error.message : String(error);
  return driftFinding(
    {
      kind: 'tool-decision',
      ...context,
      path: `${joinPath('toolCalls', call.id)}.status`,
      recorded: recorded.status,
      actual: 'preview-failed',
    },
    `tool call ${call.id} (${call.name}): the executor's preview failed: ${reason}`,
  );
}
