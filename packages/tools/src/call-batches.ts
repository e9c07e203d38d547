import type { Permission, ToolUseBlock } from '@mh/core';

/**
 * Splits one turn's calls into groups that run one after another: each run of consecutive `read`
 * calls is one group (its calls run in parallel), and every `write` or `exec` call is a group of
 * its own. So `[read, read, write, read]` becomes `[[read, read], [write], [read]]`, which keeps
 * the order the model asked for wherever a side effect could be observed. `permissionOf` returns
 * undefined for an unknown tool; such calls only produce an error result, so they count as `read`.
 */
export function callBatches(
  calls: readonly ToolUseBlock[],
  permissionOf: (name: string) => Permission | undefined,
): ToolUseBlock[][] {
  const batches: ToolUseBlock[][] = [];
  let reads: ToolUseBlock[] = [];
  for (const call of calls) {
    if ((permissionOf(call.name) ?? 'read') === 'read') {
      reads.push(call);
      continue;
    }
    if (reads.length > 0) batches.push(reads);
    reads = [];
    batches.push([call]);
  }
  if (reads.length > 0) batches.push(reads);
  return batches;
}
