import { extractIdentifiers } from './identifiers.js';
import type { ContentBlock, Message, ToolResultBlock } from './message.js';
import { estimateBlockTokens, estimateTokens } from './tokens.js';
import { isFenceEdge, splitFence } from './untrusted-data.js';

/** Identifiers listed in one trim marker, at most. */
const MAX_MARKER_IDENTIFIERS = 60;
/** Characters per token assumed when cutting text to a token budget. */
const CHARS_PER_TOKEN = 4;

/** Marks text a compaction shortened, so the model (and a reader) knows something was cut. */
export const TRIM_MARKER_PREFIX = '[… compaction trimmed';

/**
 * Shortens `text` to about `keepTokens` tokens: two thirds head, one third tail, and between them
 * a marker naming how much was cut and every identifier the cut part held, so exact ids survive.
 * Text already within budget is returned as is. A tool result fenced as untrusted data
 * (`fenceUntrusted`) keeps its fence lines whole and is cut inside them, marker included: a cut
 * through a fence line would leave the rest of the data outside any fence.
 */
export function trimText(text: string, keepTokens: number): string {
  if (estimateTokens(text) <= keepTokens) return text;
  const fence = splitFence(text);
  if (!fence) return cutText(text, keepTokens);
  const data = cutText(fence.data, keepTokens - estimateTokens(fence.open + fence.close));
  return data === fence.data ? text : fence.open + data + fence.close;
}

function cutText(text: string, keepTokens: number): string {
  if (estimateTokens(text) <= keepTokens) return text;
  const keepChars = Math.max(CHARS_PER_TOKEN * 8, keepTokens * CHARS_PER_TOKEN);
  const headChars = Math.ceil((keepChars * 2) / 3);
  const tailChars = keepChars - headChars;
  const head = text.slice(0, headChars);
  const tail = tailChars > 0 ? text.slice(text.length - tailChars) : '';
  const middle = text.slice(headChars, text.length - tailChars);
  const ids = extractIdentifiers(middle, MAX_MARKER_IDENTIFIERS + 1);
  const listed = ids.slice(0, MAX_MARKER_IDENTIFIERS);
  const more = ids.length > MAX_MARKER_IDENTIFIERS ? ', …' : '';
  const idNote =
    listed.length > 0 ? `; identifiers in the cut part: ${listed.join(', ')}${more}` : '';
  const marker = `\n${TRIM_MARKER_PREFIX} ${middle.length} characters of tool output${idNote}]\n`;
  const trimmed = head + marker + tail;
  // Short text over a tiny budget: the marker would outweigh what it replaces.
  return trimmed.length < text.length ? trimmed : text;
}

/** A tool result with its text parts trimmed and its images replaced by a note; or undefined when already small. */
export function trimToolResult(
  result: ToolResultBlock,
  keepTokens: number,
): ToolResultBlock | undefined {
  if (estimateBlockTokens(result) <= keepTokens) return undefined;
  // The opening and closing blocks of a fenced result with images stay whole (see trimText).
  const edge = (part: ToolResultBlock['content'][number]): boolean =>
    part.type === 'text' && isFenceEdge(part.text);
  const textParts = result.content.filter((part) => part.type === 'text' && !edge(part)).length;
  const perPart = Math.max(16, Math.floor(keepTokens / Math.max(1, textParts)));
  let changed = false;
  const content = result.content.map((part): ToolResultBlock['content'][number] => {
    if (part.type === 'text' && !edge(part)) {
      const text = trimText(part.text, perPart);
      if (text === part.text) return part;
      changed = true;
      return { type: 'text', text };
    }
    if (part.type === 'image') {
      changed = true;
      return { type: 'text', text: `${TRIM_MARKER_PREFIX} an image (${part.mediaType})]` };
    }
    return part;
  });
  return changed ? { ...result, content } : undefined;
}

/**
 * The message with every tool result over `keepTokens` trimmed, or undefined when nothing
 * changed. Ids are kept (a trimmed message is the same message, shortened).
 */
export function trimMessage(message: Message, keepTokens: number): Message | undefined {
  if (message.role !== 'user') return undefined;
  let changed = false;
  const content = message.content.map((block): ContentBlock => {
    if (block.type !== 'tool_result') return block;
    const trimmed = trimToolResult(block, keepTokens);
    if (!trimmed) return block;
    changed = true;
    return trimmed;
  });
  return changed ? { ...message, content } : undefined;
}
