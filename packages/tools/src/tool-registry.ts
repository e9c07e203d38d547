import { ConfigError, type Tool, type ToolSpec, toolSpec } from '@mh/core';
import { assertToolFields } from './tool-fields.js';

/**
 * The tools an agent may call, by name, in registration order. Registering a second tool under a
 * name already taken throws `ConfigError` (field `name`).
 */
export class ToolRegistry {
  readonly #tools = new Map<string, Tool>();

  /** Creates a registry holding `tools`, registered in order. */
  constructor(tools: readonly Tool[] = []) {
    for (const tool of tools) this.register(tool);
  }

  /** Adds a tool. Throws `ConfigError` when it is malformed or its name is already registered. */
  register(tool: Tool): this {
    if (typeof tool !== 'object' || tool === null) throw new ConfigError('tool', 'expected a Tool');
    assertToolFields(tool);
    if (typeof tool.schema?.parse !== 'function' || typeof tool.schema.jsonSchema !== 'object') {
      throw new ConfigError('schema', 'expected { jsonSchema, parse(input) }');
    }
    if (this.#tools.has(tool.name)) {
      throw new ConfigError('name', `a tool named ${tool.name} is already registered`);
    }
    this.#tools.set(tool.name, tool);
    return this;
  }

  /**
   * Removes the tool called `name` (a tool a server stopped offering); true when there was one.
   * The others keep their order.
   */
  unregister(name: string): boolean {
    return this.#tools.delete(name);
  }

  /** The tool called `name`, or undefined. */
  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  /** True when a tool called `name` is registered. */
  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /** Every tool, in registration order. */
  list(): Tool[] {
    return [...this.#tools.values()];
  }

  /** Every tool name, in registration order. */
  names(): string[] {
    return [...this.#tools.keys()];
  }

  /** The specs to advertise to the model, in registration order (a stable prompt prefix). */
  specs(): ToolSpec[] {
    return this.list().map(toolSpec);
  }

  /** How many tools are registered. */
  get size(): number {
    return this.#tools.size;
  }
}
