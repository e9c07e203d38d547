export { ajvToolSchema, formatAjvError } from './ajv-tool-schema.js';
export { childEnvironment, INHERITED_ENV_KEYS } from './child-environment.js';
export type { McpClientOptions, McpServerParams } from './client-input.js';
export { base64Bytes, describeContent } from './describe-content.js';
export type { HttpServerParams } from './http-server-params.js';
export { DEFAULT_MAX_LINE_BYTES } from './line-splitter.js';
export { McpClient } from './mcp-client.js';
export type {
  McpCallOptions,
  McpCallResult,
  McpContentPart,
  McpElicitation,
  McpElicitResult,
  McpToolAnnotations,
  McpToolInfo,
} from './mcp-connection.js';
export { mcpPermission, type PermissionFor } from './mcp-permission.js';
export {
  type McpPromptArgument,
  type McpPromptInfo,
  type McpPromptMessage,
  type McpPromptResult,
  promptText,
} from './mcp-prompts.js';
export { type McpResourceContent, type McpResourceInfo, resourceText } from './mcp-resources.js';
export { killAllServerGroups } from './process-groups.js';
export {
  type DroppedMcpTool,
  type McpToolSource,
  type McpToolsChange,
  type RegisteredMcpTool,
  type RegisterMcpToolsOptions,
  type RegisterMcpToolsResult,
  registerMcpTools,
  type ToolSink,
  toolOutput,
} from './register-mcp-tools.js';
export type { StdioServerParams } from './stdio-server-params.js';
export {
  assignToolNames,
  hashedToolName,
  MAX_TOOL_NAME_LENGTH,
  mcpToolName,
  sanitizeNamePart,
} from './tool-name.js';
export { fenceUntrusted, wrapUntrusted } from './untrusted-output.js';
