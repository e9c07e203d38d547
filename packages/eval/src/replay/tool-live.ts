import {
  type ContentBlock,
  mapOutcomes,
  type ToolCallEvent,
  type ToolCallPreview,
  type ToolExecutor,
  type ToolOutcome,
  type ToolUseBlock,
} from '@mh/core';
import type { ToolReplayMode } from '../cassette/context.js';
import type { RecordedToolOutcome, ToolEntry } from '../cassette/format.js';
import { type DriftFinding, describeDifference, driftFinding } from './drift.js';
import { joinPath } from './request-diff.js';
import type { PreviewFindingContext } from './tool-preview.js';

/**
 * How a replay treats `call`: the caller's override for the tool if any; otherwise `live` when the
 * current executor says the tool is `read` (and it was `read` when recorded, if that is known) or
 * declares itself `deterministic`, and its policy would run the call without asking; `served` in
 * every other case (a side effect now or then, a denial, a human's answer, no preview at all).
 */
export function toolReplayMode(
  entry: ToolEntry,
  preview: ToolCallPreview | undefined,
  overrides: Readonly<Record<string, ToolReplayMode>>,
): ToolReplayMode {
  const name = entry.call.name;
  const override = Object.hasOwn(overrides, name) ? overrides[name] : undefined;
  if (override !== undefined) return override;
  const recorded = entry.outcome.permission;
  const readOnly =
    preview?.permission === 'read' && (recorded === undefined || recorded === 'read');
  // A tool that declares itself deterministic is a pure function of its input: safe to run again.
  const pure = preview?.deterministic === true;
  return preview?.decision === 'run' && (readOnly || pure) ? 'live' : 'served';
}

/** The recorded outcome as a served `ToolOutcome` for `call`. */
export function servedOutcome(entry: ToolEntry, call: ToolUseBlock): ToolOutcome {
  return {
    call,
    result: { ...entry.outcome.result, toolUseId: call.id },
    status: entry.outcome.status,
    attempts: entry.outcome.attempts,
    durationMs: entry.outcome.durationMs,
    permission: entry.outcome.permission,
    ...(entry.outcome.question ? { question: entry.outcome.question } : {}),
  };
}

function resultText(content: readonly unknown[]): string {
  return content
    .map((block) => {
      const typed = block as ContentBlock;
      return typed.type === 'text' ? typed.text : `[${typed.type}]`;
    })
    .join('\n');
}

/**
 * The `tool-result` finding when a call run live gave another result than recorded: another
 * text (the message shows both around the first difference), another error flag or status.
 * Timing and attempts are not compared: they vary from run to run.
 */
export function liveResultFinding(
  recorded: RecordedToolOutcome,
  live: ToolOutcome,
  context: PreviewFindingContext,
): DriftFinding | undefined {
  const before = resultText(recorded.result.content);
  const now = resultText(live.result.content);
  const sameStatus =
    recorded.status === live.status && recorded.result.isError === live.result.isError;
  if (before === now && sameStatus) return undefined;
  const { id, name } = live.call;
  const status = sameStatus ? '' : ` (recorded ${recorded.status}, now ${live.status})`;
  const text = before === now ? '' : describeDifference(before, now);
  return driftFinding(
    {
      kind: 'tool-result',
      ...context,
      path: `${joinPath('toolCalls', id)}.result`,
      recorded: before,
      actual: now,
    },
    `tool call ${id} (${name}) ran live and returned another result${status}${text}`,
  );
}

/**
 * `inner` running a recorded call live: what the tool gives (as `inner` yields it, before outer
 * wrappers such as fencing transform it) is compared with the recording, and the outcome passed on
 * is the recorded one, so the replay stays on the recorded path whatever the tool now says.
 * `onDrift` receives the finding (a strict replay then fails the call).
 */
export function liveReplayExecutor(
  inner: ToolExecutor,
  entry: ToolEntry,
  findingContext: PreviewFindingContext,
  onDrift: (finding: DriftFinding) => void,
): ToolExecutor {
  return mapOutcomes(inner, (live) => {
    const finding = liveResultFinding(entry.outcome, live, findingContext);
    if (finding !== undefined) onDrift(finding);
    return servedOutcome(entry, live.call);
  });
}

/**
 * The events of a call answered without running anything (a served recording, a refusal): its
 * `tool-start`, then, once pulled and unless `signal` aborted meanwhile, its `tool-end`.
 */
export async function* answeredEvents(
  outcome: ToolOutcome,
  signal: AbortSignal,
): AsyncGenerator<ToolCallEvent, void, undefined> {
  yield { type: 'tool-start', call: outcome.call };
  if (signal.aborted) return;
  yield { type: 'tool-end', outcome };
}
