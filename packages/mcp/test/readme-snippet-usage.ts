// The README's usage example, verbatim: readme-examples.test.ts checks it matches the README,
// type-checking the tests compiles it, and the test runs it against the real filesystem server.
import type { Tool } from '@mh/core';
import { McpClient, registerMcpTools } from '@mh/mcp';

// A child process over stdio…
const fs = new McpClient('fs', {
  command: 'mcp-server-filesystem',
  args: ['./data'],
  env: { LOG_LEVEL: 'info' }, // added to PATH, HOME, … only; nothing else leaks
});
// …or a server over streamable HTTP.
const api = new McpClient('api', { url: 'http://localhost:3000/mcp', headers: { Authorization: 'Bearer …' } });

await fs.connect();
const tools = new Map<string, Tool>(); // or a ToolRegistry of @mh/tools, as the agent's tools
const registry = { register: (tool: Tool) => tools.set(tool.name, tool), unregister: (name: string) => tools.delete(name) };
const result = await registerMcpTools(registry, fs, { allow: ['read_text_file', 'list_directory'] });
// … run the agent …
await fs.close();
