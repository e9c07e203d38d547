import { describe, expect, it } from 'vitest';
import { assignToolNames, MAX_TOOL_NAME_LENGTH, mcpToolName } from './tool-name.js';

describe('mcpToolName', () => {
  it('joins server and tool with a double underscore', () => {
    expect(mcpToolName('fs', 'read_file')).toBe('fs__read_file');
  });

  it('replaces characters outside [a-zA-Z0-9_-] with underscores', () => {
    expect(mcpToolName('my.server', 'files/read v2')).toBe('my_server__files_read_v2');
  });

  it('truncates an overlong name to 64 characters with a stable hash suffix', () => {
    const name = mcpToolName('server', 'x'.repeat(100));
    expect(name).toHaveLength(MAX_TOOL_NAME_LENGTH);
    expect(name).toMatch(/^server__x+_[0-9a-f]{8}$/);
    expect(mcpToolName('server', 'x'.repeat(100))).toBe(name);
    expect(mcpToolName('server', `${'x'.repeat(99)}y`)).not.toBe(name);
  });
});

describe('assignToolNames', () => {
  it('gives colliding names a hash suffix regardless of listing order', () => {
    const forward = assignToolNames('s', ['a.b', 'a_b']);
    const backward = assignToolNames('s', ['a_b', 'a.b']);
    expect(forward).toEqual(backward);
    expect(new Set(forward.values()).size).toBe(2);
    expect(forward.get('a.b')).toBe('s__a_b');
    expect(forward.get('a_b')).toMatch(/^s__a_b_[0-9a-f]{8}$/);
  });

  it('avoids names already taken by other tools', () => {
    const names = assignToolNames('s', ['t'], new Set(['s__t']));
    expect(names.get('t')).toMatch(/^s__t_[0-9a-f]{8}$/);
  });
});
