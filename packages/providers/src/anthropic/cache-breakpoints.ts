import type { MessageCreateParamsStreaming } from '@anthropic-ai/sdk/resources/messages';
import { type CacheableParam, lastCacheable } from './anthropic-messages.js';

/** Anthropic accepts at most this many `cache_control` breakpoints per request. */
export const MAX_CACHE_BREAKPOINTS = 4;

const isMarked = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && 'cache_control' in value && !!value.cache_control;

/** Counts the breakpoints a request already carries (e.g. inside passed-through vendor blocks). */
export function countCacheBreakpoints(params: MessageCreateParamsStreaming): number {
  let count = 0;
  const visit = (value: unknown): void => {
    if (isMarked(value)) count++;
  };
  if (Array.isArray(params.system)) params.system.forEach(visit);
  params.tools?.forEach(visit);
  for (const message of params.messages) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content) {
      visit(block);
      if (block.type === 'tool_result' && Array.isArray(block.content))
        block.content.forEach(visit);
    }
  }
  return count;
}

/**
 * The block a moving breakpoint goes on: the last block of the last message that can carry one
 * (thinking blocks cannot; the breakpoint then goes on the block before). Marked each turn, it
 * lets the next turn read the whole conversation so far from the cache and write only what was
 * appended since, as Anthropic recommends for multi-turn conversations. `cache_control` is not
 * part of the cache key, so the marker moving on does not invalidate what it cached. (Anthropic
 * looks back at most 20 blocks for an earlier entry: a turn appending more misses once.)
 */
export function lastMessageBlock(params: MessageCreateParamsStreaming): CacheableParam | undefined {
  const content = params.messages.at(-1)?.content;
  return Array.isArray(content) ? lastCacheable(content) : undefined;
}

/**
 * Puts an ephemeral `cache_control` breakpoint on each target, in the order given (most stable
 * prefix first), while the request stays within `MAX_CACHE_BREAKPOINTS`. Targets are blocks of
 * `params` itself; undefined targets are skipped. Returns how many breakpoints were added.
 */
export function addCacheBreakpoints(
  params: MessageCreateParamsStreaming,
  targets: readonly (CacheableParam | undefined)[],
): number {
  let count = countCacheBreakpoints(params);
  let added = 0;
  for (const target of targets) {
    if (target === undefined || isMarked(target)) continue;
    if (count >= MAX_CACHE_BREAKPOINTS) break;
    target.cache_control = { type: 'ephemeral' };
    count++;
    added++;
  }
  return added;
}
