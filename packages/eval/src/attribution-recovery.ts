import { canonicalJson } from '@mh/core/internal';
import type { ToolCallView } from './attribution-view.js';

/** Failed calls of one tool that a later identical call (same tool, same arguments) ran fine. */
export interface RecoveredError {
  /** The tool. */
  readonly tool: string;
  /** The failed calls, in order. */
  readonly failures: readonly ToolCallView[];
  /** The identical call that then succeeded. */
  readonly success: ToolCallView;
}

/** The key of identical calls: the tool and its arguments, canonical. */
export function callKey(call: ToolCallView): string {
  return `${call.name}\u0000${canonicalJson(call.input)}`;
}

/**
 * Splits failed calls into those a later identical call recovered from (a flaky service the
 * model retried) and the rest. A recovered error did not stop the session, so it is evidence,
 * never the cause. A retry with other arguments is no recovery: the failing input may be the
 * tool's fault.
 */
export function splitRecovered(
  calls: readonly ToolCallView[],
  failed: readonly ToolCallView[],
): { recovered: RecoveredError[]; unrecovered: ToolCallView[] } {
  const byKey = new Map<string, { failures: ToolCallView[]; success: ToolCallView }>();
  const unrecovered: ToolCallView[] = [];
  for (const call of failed) {
    const key = callKey(call);
    const index = calls.indexOf(call);
    const success = calls.find(
      (later, at) => at > index && later.status === 'ok' && callKey(later) === key,
    );
    if (!success) {
      unrecovered.push(call);
      continue;
    }
    const entry = byKey.get(key);
    if (entry) entry.failures.push(call);
    else byKey.set(key, { failures: [call], success });
  }
  const recovered = [...byKey.values()].map(({ failures, success }) => ({
    tool: success.name,
    failures,
    success,
  }));
  return { recovered, unrecovered };
}

/** What happened, in one line: `lookup failed once (HTTP 503 …), then succeeded`. */
export function describeRecovery(recovered: RecoveredError): string {
  const count = recovered.failures.length;
  const timedOut = recovered.failures.every((call) => call.status === 'timeout');
  // A bare `Error: ` prefix says nothing; a named class (ToolTimeoutError) does, and stays.
  const first =
    recovered.failures[0]?.result
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/^Error: /, '') ?? '';
  const shown = first.length > 80 ? `${first.slice(0, 79)}…` : first;
  return `${recovered.tool} ${timedOut ? 'timed out' : 'failed'} ${count === 1 ? 'once' : `${count} times`}${shown ? ` (${shown})` : ''}, then succeeded`;
}
