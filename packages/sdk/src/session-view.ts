import {
  applyCompactionPatch,
  type CompactionPatch,
  type ContextMeterState,
  type Message,
  type SessionState,
} from '@mh/core';
import { checkBoundary } from '@mh/core/internal';

// How a session's stored checkpoints become the agent's view: compactions applied in order, the
// context measurements the checkpoints recorded, and the fence boundaries they used.

/** The key of `CheckpointMeta.extra` recording the fence boundary. */
export const BOUNDARY_KEY = 'fenceBoundary';

/** The valid boundaries the branch's checkpoints recorded, each once, ordered by newest use. */
export function storedBoundaries(state: SessionState): string[] {
  let found: string[] = [];
  for (const checkpoint of state.checkpoints) {
    const boundary = checkpoint.meta.extra?.[BOUNDARY_KEY];
    // Not recorded (older checkpoints, fencing off) or not a boundary: nothing to follow.
    if (isBoundary(boundary)) found = withNewest(found, boundary);
  }
  return found;
}

/** `boundaries` with `boundary` moved (or added) to the end, as the newest. */
export function withNewest(boundaries: readonly string[], boundary: string): string[] {
  return [...boundaries.filter((known) => known !== boundary), boundary];
}

function isBoundary(value: unknown): value is string {
  try {
    checkBoundary(value, BOUNDARY_KEY);
    return true;
  } catch {
    return false;
  }
}

/** Applies each checkpoint's compactions before appending its messages; collects context states. */
export function rebuildView(state: SessionState): {
  messages: Message[];
  context: { states: ContextMeterState[]; messages: readonly Message[] };
} {
  let view: Message[] = [];
  let offset = 0;
  const states: ContextMeterState[] = [];
  let measured: readonly Message[] = [];
  for (const checkpoint of state.checkpoints) {
    const patches = checkpoint.meta.extra?.compactions;
    if (Array.isArray(patches)) {
      for (const patch of patches as CompactionPatch[])
        view = applyCompactionPatch(view, patch) ?? view;
    }
    const context = checkpoint.meta.extra?.context as ContextMeterState | undefined;
    if (
      context &&
      typeof context.promptTokens === 'number' &&
      typeof context.estimatedTokens === 'number'
    ) {
      states.push(context);
      measured = view.slice();
    }
    const count = checkpoint.messageIds.length;
    view.push(...state.messages.slice(offset, offset + count));
    offset += count;
  }
  // Messages not covered by the checkpoints listed (none, normally) are kept as they are.
  if (offset < state.messages.length) view.push(...state.messages.slice(offset));
  return { messages: view, context: { states, messages: measured } };
}
