import type { ToolUseBlock } from '../messages/message.js';
import {
  previewToolCall,
  type ToolCallEvent,
  type ToolExecutionContext,
  type ToolExecutor,
  type ToolOutcome,
} from '../ports/tool-executor.js';
import { toolCallEvents } from './tool-call-events.js';

/**
 * An executor that is `inner` with each outcome passed through `fn`: `inner`'s specs, preview
 * (through `previewToolCall`) and `tool-start` events, and each `tool-end` with `fn(outcome)`.
 * It pulls `inner` only when it is pulled itself, so it keeps the port's order (a call is
 * journaled before it runs); after `context.signal` aborts it yields nothing more. `fn` runs once
 * per outcome, before the loop sees it, so traces and the session journal record what it returns.
 * The one way to wrap an executor (fencing, recording, replay build on it).
 *
 * @example
 * ```ts
 * import { mapOutcomes, type ToolExecutor } from '@mh/core';
 *
 * declare const inner: ToolExecutor; // e.g. a PolicyToolExecutor from @mh/tools
 * const logged = mapOutcomes(inner, (outcome) => {
 *   console.log(outcome.call.name, outcome.status, `${outcome.durationMs} ms`);
 *   return outcome;
 * });
 * ```
 */
export function mapOutcomes(
  inner: ToolExecutor,
  fn: (outcome: ToolOutcome) => ToolOutcome,
): ToolExecutor {
  return {
    specs: () => inner.specs(),
    preview: (call) => previewToolCall(inner, call),
    // Wrapping never hides a call that waits for a person.
    ...(typeof inner.approval === 'function'
      ? {
          approval: (call: ToolUseBlock) =>
            (inner.approval as NonNullable<ToolExecutor['approval']>).call(inner, call),
        }
      : {}),
    execute: (calls, context) => mappedEvents(inner, calls, context, fn),
  };
}

async function* mappedEvents(
  inner: ToolExecutor,
  calls: readonly ToolUseBlock[],
  context: ToolExecutionContext,
  fn: (outcome: ToolOutcome) => ToolOutcome,
): AsyncGenerator<ToolCallEvent, void, undefined> {
  for await (const item of inner.execute(calls, context)) {
    for (const event of toolCallEvents(item, inner)) {
      // Checked for an earlier port's outcome, whose start and end arrive together.
      if (context.signal.aborted) return;
      yield event.type === 'tool-end' ? { type: 'tool-end', outcome: fn(event.outcome) } : event;
    }
  }
}
