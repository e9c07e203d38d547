import { ConfigError, type Tool } from '@mh/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineTool } from './define-tool.js';
import { ToolRegistry } from './tool-registry.js';

function tool(name: string): Tool {
  return defineTool({
    name,
    description: `The ${name} tool.`,
    input: z.object({ value: z.string() }),
    permission: 'read',
    run: ({ value }) => value,
  });
}

describe('ToolRegistry', () => {
  it('finds a registered tool by name', () => {
    const registry = new ToolRegistry().register(tool('one'));
    expect(registry.get('one')?.name).toBe('one');
    expect(registry.has('one')).toBe(true);
  });

  it('returns undefined for a name it does not hold', () => {
    const registry = new ToolRegistry([tool('one')]);
    expect(registry.get('two')).toBeUndefined();
    expect(registry.has('two')).toBe(false);
  });

  it('lists tools and specs in registration order', () => {
    const registry = new ToolRegistry([tool('zeta'), tool('alpha'), tool('mid')]);
    expect(registry.list().map((entry) => entry.name)).toEqual(['zeta', 'alpha', 'mid']);
    expect(registry.specs().map((spec) => spec.name)).toEqual(['zeta', 'alpha', 'mid']);
    expect(registry.size).toBe(3);
  });

  it('gives each spec the description and JSON Schema of its tool', () => {
    const [spec] = new ToolRegistry([tool('one')]).specs();
    expect(spec?.description).toBe('The one tool.');
    expect(spec?.inputSchema).toMatchObject({ type: 'object', required: ['value'] });
  });

  it('rejects a second tool with the same name with ConfigError naming name', () => {
    const registry = new ToolRegistry([tool('one')]);
    let error: unknown;
    try {
      registry.register(tool('one'));
    } catch (caught) {
      error = caught;
    }
    expect(ConfigError.isInstance(error) && error.field).toBe('name');
  });

  it('rejects a hand-made tool without a schema parser', () => {
    const broken = { ...tool('one'), schema: { jsonSchema: {} } } as unknown as Tool;
    expect(() => new ToolRegistry([broken])).toThrow(ConfigError);
  });

  it('unregisters a tool by name, keeping the order of the others, and frees the name', () => {
    const registry = new ToolRegistry([tool('a'), tool('b'), tool('c')]);
    expect(registry.unregister('b')).toBe(true);
    expect(registry.names()).toEqual(['a', 'c']);
    expect(registry.has('b')).toBe(false);
    expect(registry.unregister('b')).toBe(false);
    registry.register(tool('b'));
    expect(registry.names()).toEqual(['a', 'c', 'b']);
  });
});
