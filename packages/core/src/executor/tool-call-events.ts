import { HarnessError } from '../errors.js';
import type { ToolUseBlock } from '../messages/message.js';
import type { ToolCallEvent, ToolOutcome } from '../ports/tool-executor.js';
import { thrownKind } from '../support/thrown-text.js';

/** Executors already warned about, so each warns once. */
const warned = new WeakSet<object>();

/**
 * The events one item an executor yielded stands for: the item, when it is a `ToolCallEvent`; for
 * a bare `ToolOutcome` (an executor written for the earlier port) its call's start and end, with
 * one deprecation warning per executor. Anything else is the executor's failure: a `HarnessError`.
 */
export function toolCallEvents(item: unknown, executor: object): readonly ToolCallEvent[] {
  const value = item as { readonly type?: unknown; readonly call?: unknown } | null | undefined;
  if (typeof value === 'object' && value !== null) {
    if (value.type === 'tool-start' || value.type === 'tool-end') return [item as ToolCallEvent];
    if (value.type === undefined && typeof value.call === 'object' && value.call !== null) {
      warnOnce(executor);
      const outcome = item as ToolOutcome;
      return [
        { type: 'tool-start', call: value.call as ToolUseBlock },
        { type: 'tool-end', outcome },
      ];
    }
  }
  throw new HarnessError(
    `The tool executor yielded ${thrownKind(item)}, not a tool-start or tool-end event.`,
  );
}

function warnOnce(executor: object): void {
  if (warned.has(executor)) return;
  warned.add(executor);
  // Core runs on any runtime; only Node has process.emitWarning.
  globalThis.process?.emitWarning?.(
    'A ToolExecutor yielded a bare ToolOutcome: the earlier executor port, deprecated. Yield ' +
      "{ type: 'tool-start', call } before running each call and { type: 'tool-end', outcome } " +
      'after it, so the call is journaled before it runs (see ToolExecutor.execute).',
    'DeprecationWarning',
  );
}
