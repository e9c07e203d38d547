import type {
  ContentBlock,
  ToolCallHooks,
  ToolCallPreview,
  ToolExecutionContext,
  ToolExecutor,
  ToolOutcome,
  ToolUseBlock,
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
 * Runs one recorded call live on `inner`, inside the caller's hooks, and compares what the tool
 * gave (innermost, before outer hooks such as fencing transform it) with the recording. The
 * outcome passed on is the recorded one, so the replay stays on the recorded path whatever the
 * tool now says; `onDrift` receives the finding (a strict replay then fails the call).
 */
export async function* executeLive(
  inner: ToolExecutor,
  entry: ToolEntry,
  call: ToolUseBlock,
  context: ToolExecutionContext,
  findingContext: PreviewFindingContext,
  onDrift: (finding: DriftFinding) => void,
): AsyncGenerator<ToolOutcome, void, undefined> {
  const outer = context.hooks;
  let compared = false;
  const compare = (live: ToolOutcome): ToolOutcome => {
    compared = true;
    const finding = liveResultFinding(entry.outcome, live, findingContext);
    if (finding !== undefined) onDrift(finding);
    return servedOutcome(entry, live.call);
  };
  const hooks: ToolCallHooks = {
    around: (hooked, execute) => {
      const run = async (): Promise<ToolOutcome> => compare(await execute());
      return outer ? outer.around(hooked, run) : run();
    },
  };
  for await (const outcome of inner.execute([call], { ...context, hooks }))
    yield compared ? outcome : compare(outcome);
}
