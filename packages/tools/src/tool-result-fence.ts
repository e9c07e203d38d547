import { fenceUntrusted, type ToolResultBlock, unfenceUntrusted, withoutBoundary } from '@mh/core';
import { canonicalJson } from '@mh/core/internal';

/**
 * The result with its text fenced as untrusted data (`fenceUntrusted`). A text-only result becomes
 * one fenced text block; a result with images keeps them between an opening and a closing block
 * (adjacent text blocks merged), and its text still unfences to the original text.
 */
export function fenceToolResult(
  result: ToolResultBlock,
  toolName: string,
  boundary: string,
): ToolResultBlock {
  const source = `tool ${toolName}`;
  if (result.content.every((block) => block.type === 'text')) {
    const text = result.content
      .map((block) => (block.type === 'text' ? block.text : ''))
      .join('\n');
    return { ...result, content: [{ type: 'text', text: fenceUntrusted(text, boundary, source) }] };
  }
  // An empty fence is the header and opening line, a blank line, then the closing line. The
  // opening keeps its newline and the closing its own, so the result's text (toolResultText, which
  // joins blocks as they are) is a whole fence that unfenceUntrusted reads back.
  const empty = fenceUntrusted('', boundary, source);
  const split = empty.indexOf('\n\n');
  const open = empty.slice(0, split + 1);
  const close = empty.slice(split + 1);
  // Adjacent text blocks are read joined (by the model too): they are merged before the boundary
  // is removed, so no boundary can be formed where one block ends and the next begins.
  const content = mergeText(result.content).map((block) =>
    block.type === 'text' ? { ...block, text: withoutBoundary(block.text, boundary) } : block,
  );
  return {
    ...result,
    content: [{ type: 'text', text: open }, ...content, { type: 'text', text: close }],
  };
}

/** The blocks with each run of adjacent text blocks joined into one. */
function mergeText(
  blocks: readonly ToolResultBlock['content'][number][],
): ToolResultBlock['content'] {
  const merged: ToolResultBlock['content'][number][] = [];
  for (const block of blocks) {
    const last = merged.at(-1);
    if (block.type === 'text' && last?.type === 'text')
      merged[merged.length - 1] = { ...last, text: last.text + block.text };
    else merged.push(block);
  }
  return merged;
}

/**
 * The result as it was before `fenceToolResult(result, toolName, boundary)` fenced it (its data,
 * less any boundary it held), or undefined when `result` is not exactly such a fence: another
 * boundary, another tool, or no fence. A fence with images that compaction trimmed (an image
 * replaced by a text note beside another text block) is read too, its adjacent data blocks
 * joined as fencing joins them. `fenceToolResult(unfenced, toolName, other)` moves a stored
 * result to another boundary (the agent does it when a session was fenced with another token).
 */
export function unfenceToolResult(
  result: ToolResultBlock,
  toolName: string,
  boundary: string,
): ToolResultBlock | undefined {
  const [first] = result.content;
  let unfenced: ToolResultBlock;
  if (result.content.length === 1 && first?.type === 'text') {
    unfenced = { ...result, content: [{ type: 'text', text: unfenceUntrusted(first.text) }] };
  } else if (result.content.length >= 2) {
    unfenced = { ...result, content: mergeText(result.content.slice(1, -1)) };
  } else return undefined;
  // Only what fencing with this boundary and this tool gives back exactly is taken for a fence.
  // Both are compared with adjacent text blocks joined, as the model reads them: trimming turns an
  // image into a text note, which can leave two text blocks side by side (or text only, which
  // fencing would have put in one block).
  const again = fenceToolResult(unfenced, toolName, boundary);
  // Compared canonically: a stored result may come back with its keys in another order.
  return canonicalJson(mergeText(again.content)) === canonicalJson(mergeText(result.content))
    ? unfenced
    : undefined;
}
