// Deterministic turns for the child-process tests (plain JS: children run the built package).
import { createInterface } from 'node:readline';

/** A user prompt turn. */
export function promptTurn(tag) {
  return {
    messages: [
      { id: `user-${tag}`, role: 'user', content: [{ type: 'text', text: `prompt ${tag}` }] },
    ],
    meta: { model: 'fake', extra: { tag } },
  };
}

/** The assistant message of crash-test turn `turn`, calling two tools. */
export function assistantFor(turn) {
  return {
    id: `assistant-${turn}`,
    role: 'assistant',
    content: [
      { type: 'text', text: `turn ${turn}` },
      { type: 'tool_use', id: `call-${turn}-0`, name: 'append', input: { turn, i: 0 } },
      { type: 'tool_use', id: `call-${turn}-1`, name: 'append', input: { turn, i: 1 } },
    ],
  };
}

/** The result a call returns when it runs to the end. */
export function resultFor(callId) {
  return {
    type: 'tool_result',
    toolUseId: callId,
    content: [{ type: 'text', text: `ran ${callId}` }],
    isError: false,
  };
}

/** Reads the first line of stdin (the parent's go signal). */
export function waitForGo() {
  return goSignals(1)();
}

/**
 * Reads the parent's go signals one line at a time, for a child that waits more than once:
 * each call of the returned function resolves at the next line (lines sent early are kept).
 * Stdin is closed after the `count`-th, so it does not keep the child alive.
 */
export function goSignals(count) {
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  let left = count;
  return async () => {
    await lines.next();
    left -= 1;
    if (left === 0) process.stdin.destroy();
  };
}
