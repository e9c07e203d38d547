/** A JSON-RPC request id. */
export type JsonRpcId = string | number;

/** The ids of a POST body: the requests it carries and the requests it cancels. */
export interface OutgoingIds {
  /** Ids of the requests in the body. */
  readonly requests: readonly JsonRpcId[];
  /** Ids named by `notifications/cancelled` in the body. */
  readonly cancelled: readonly JsonRpcId[];
}

/** A body with no ids. */
export const NO_IDS: OutgoingIds = { requests: [], cancelled: [] };

/** The request ids a POST body carries, and the ids it cancels. */
export function outgoingIds(body: unknown): OutgoingIds {
  if (typeof body !== 'string') return NO_IDS;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return NO_IDS;
  }
  const requests: JsonRpcId[] = [];
  const cancelled: JsonRpcId[] = [];
  for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
    if (typeof message !== 'object' || message === null) continue;
    const { id, method, params } = message as { id?: unknown; method?: unknown; params?: unknown };
    if (typeof method !== 'string') continue;
    if (typeof id === 'string' || typeof id === 'number') requests.push(id);
    const requestId = (params as { requestId?: unknown } | undefined)?.requestId;
    if (
      method === 'notifications/cancelled' &&
      (typeof requestId === 'string' || typeof requestId === 'number')
    ) {
      cancelled.push(requestId);
    }
  }
  return { requests, cancelled };
}

/** Says why `fetch` failed in a line: `cannot connect to URL (connection refused)`, or the cause. */
export function networkProblem(url: string | URL, error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const reason =
    typeof cause?.message === 'string'
      ? cause.message
      : error instanceof Error
        ? error.message
        : String(error);
  return code === 'ECONNREFUSED'
    ? `cannot connect to ${String(url)} (connection refused)`
    : `request to ${String(url)} failed: ${reason}${code ? ` (${code})` : ''}`;
}
