import type { ToolCallStatus } from '@mh/core';
import { canonicalJson } from '@mh/core/internal';

/** One tool call with how it ended, merged from events, spans and messages. */
export interface ToolCallView {
  /** The call's id. */
  readonly id: string;
  /** The tool the model named. */
  readonly name: string;
  /** The arguments it sent. */
  readonly input: unknown;
  /** From the `tool-execution-end` event or the `mh.tool` span; `error`/`ok` from the result. */
  readonly status: ToolCallStatus;
  /** The result's text, unfenced. */
  readonly result: string;
  /** The call's `mh.tool` span, when traced. */
  readonly spanId?: string;
  /** The run (index into `results`) the call belongs to, when known. */
  readonly run: number;
}

/** The key of identical calls: the tool and its arguments, canonical. */
export function callKey(call: ToolCallView): string {
  return `${call.name}\u0000${canonicalJson(call.input)}`;
}
