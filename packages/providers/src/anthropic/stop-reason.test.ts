import { describe, expect, it } from 'vitest';
import { toStopReason } from './stop-reason.js';

describe('toStopReason', () => {
  it.each([
    ['end_turn', 'end'],
    ['tool_use', 'tool-use'],
    ['max_tokens', 'max-tokens'],
    ['model_context_window_exceeded', 'max-tokens'],
    ['stop_sequence', 'stop-sequence'],
    ['refusal', 'refusal'],
    ['pause_turn', 'other'],
    ['a_reason_from_the_future', 'other'],
    [null, 'other'],
    [undefined, 'other'],
  ] as const)('maps %s to %s', (reason, expected) => {
    expect(toStopReason(reason)).toBe(expected);
  });
});
