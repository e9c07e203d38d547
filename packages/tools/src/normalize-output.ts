import type { ImageBlock, TextBlock, ToolOutput } from '@mh/core';

/** A tool's output in the shape of a result: content blocks and an error flag. */
export interface NormalizedOutput {
  /** What the model reads. */
  readonly content: readonly (TextBlock | ImageBlock)[];
  /** True when the tool reported a failure by value rather than by throwing. */
  readonly isError: boolean;
}

/**
 * Turns what a tool returned into result content. Tools written in plain JavaScript can return
 * anything, so a value that is neither text nor `{ content }` becomes an error the model sees.
 */
export function normalizeOutput(toolName: string, output: ToolOutput): NormalizedOutput {
  if (typeof output === 'string')
    return { content: [{ type: 'text', text: output }], isError: false };
  if (typeof output === 'object' && output !== null && Array.isArray(output.content)) {
    return { content: output.content, isError: output.isError === true };
  }
  return {
    content: [
      {
        type: 'text',
        text: `Tool ${toolName} returned an invalid result (expected a string or { content }).`,
      },
    ],
    isError: true,
  };
}
