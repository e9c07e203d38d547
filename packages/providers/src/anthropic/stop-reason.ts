import type { StopReason } from '@mh/core';

/**
 * Maps Anthropic's `stop_reason` to the unified stop reason. `model_context_window_exceeded` cut the
 * output short like `max_tokens` does; `pause_turn` (a server tool paused a long turn), null and
 * values newer than this adapter are `other`.
 */
export function toStopReason(reason: string | null | undefined): StopReason {
  switch (reason) {
    case 'end_turn':
      return 'end';
    case 'tool_use':
      return 'tool-use';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'max-tokens';
    case 'stop_sequence':
      return 'stop-sequence';
    case 'refusal':
      return 'refusal';
    default:
      return 'other';
  }
}
