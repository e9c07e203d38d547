/** One page of a paginated MCP list (`tools/list`, `resources/list`, `prompts/list`). */
export interface McpPage {
  /** The raw entries, not yet checked. */
  readonly items: readonly unknown[];
  /** Cursor of the next page, absent on the last one. */
  readonly nextCursor?: string;
}

/**
 * Reads every page of a list: follows `nextCursor` until the last page, a cursor seen before
 * (a server looping forever) or `maxPages`, warning in the last two cases. Each entry goes through
 * `check`, which returns the item or a reason to drop it (warned, the rest kept).
 */
export async function collectPages<T>(
  what: string,
  fetchPage: (cursor: string | undefined) => Promise<McpPage>,
  check: (entry: unknown) => T | string,
  maxPages: number,
  warn: (message: string) => void,
): Promise<T[]> {
  const seen = new Set<string>();
  const items: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const result = await fetchPage(cursor);
    for (const entry of result.items) {
      const item = check(entry);
      if (typeof item === 'string') warn(`${what}: dropped an entry: ${item}`);
      else items.push(item);
    }
    cursor = result.nextCursor;
    if (cursor === undefined) return items;
    if (seen.has(cursor)) {
      warn(`${what} repeated cursor ${JSON.stringify(cursor)}; stopped paging`);
      return items;
    }
    seen.add(cursor);
  }
  warn(`${what} has more than ${maxPages} pages; stopped paging`);
  return items;
}
