import { describe, expect, it } from 'vitest';
import { networkProblem, outgoingIds } from './http-requests.js';

describe('outgoingIds', () => {
  it('finds the requests of a body and the requests it cancels', () => {
    const body = JSON.stringify([
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: {} },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } },
      { jsonrpc: '2.0', id: 1, result: {} },
    ]);
    expect(outgoingIds(body)).toEqual({ requests: [3], cancelled: [2] });
  });

  it('finds nothing in a body that is not JSON-RPC text', () => {
    expect(outgoingIds('{not json')).toEqual({ requests: [], cancelled: [] });
    expect(outgoingIds(undefined)).toEqual({ requests: [], cancelled: [] });
  });
});

describe('networkProblem', () => {
  it('says a refused connection plainly and keeps other causes', () => {
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    });
    expect(networkProblem('http://h/mcp', refused)).toBe(
      'cannot connect to http://h/mcp (connection refused)',
    );
    const reset = new TypeError('fetch failed', {
      cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
    });
    expect(networkProblem('http://h/mcp', reset)).toBe(
      'request to http://h/mcp failed: other side closed (UND_ERR_SOCKET)',
    );
  });
});
