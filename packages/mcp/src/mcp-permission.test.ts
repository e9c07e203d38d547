import { describe, expect, it } from 'vitest';
import { mcpPermission } from './mcp-permission.js';

describe('mcpPermission', () => {
  it('is exec when the server says nothing', () => {
    expect(mcpPermission('s__t', undefined)).toBe('exec');
  });

  it('is exec when readOnlyHint is false or not exactly true', () => {
    expect(mcpPermission('s__t', { readOnlyHint: false })).toBe('exec');
    expect(mcpPermission('s__t', { readOnlyHint: 'yes' as unknown as boolean })).toBe('exec');
  });

  it('is read when the server says readOnlyHint: true', () => {
    expect(mcpPermission('s__t', { readOnlyHint: true })).toBe('read');
  });

  it('follows a pin over the server claim', () => {
    const pin = (name: string) => (name === 's__t' ? ('exec' as const) : undefined);
    expect(mcpPermission('s__t', { readOnlyHint: true }, pin)).toBe('exec');
    expect(mcpPermission('s__u', { readOnlyHint: true }, pin)).toBe('read');
  });
});
