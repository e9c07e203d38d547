// `@mh/tools/zod-free`: every export of `@mh/tools` but `z`, so importing it does not load zod
// (70-100 ms): the built-in tools use plain JSON Schemas and `defineTool` uses the schema it is
// given. `@mh/sdk` imports this entry, which keeps the CLI's cold start short (issue 16).
// zod-free.test.ts checks that the two entries export the same names.
export { evaluateArithmetic, MAX_EXPRESSION_CHARS } from './arithmetic.js';
export { type CalculatorInput, calculatorTool } from './calculator-tool.js';
export {
  type ApproveCallback,
  type DefaultPermissionPolicyOptions,
  defaultPermissionPolicy,
} from './default-permission-policy.js';
export { defineTool, type ToolDefinition } from './define-tool.js';
export {
  fenceToolResult,
  SpotlightingExecutor,
  type SpotlightingExecutorOptions,
  unfenceToolResult,
} from './spotlighting-executor.js';
export {
  DEFAULT_MAX_RESULT_CHARS,
  ToolExecutor,
  type ToolExecutorOptions,
  type ToolRetryOptions,
} from './tool-executor.js';
export { ToolRegistry } from './tool-registry.js';
export { isTransientError, TRANSIENT_ERROR_CODES } from './transient-error.js';
export { truncateMiddle, truncationMarker } from './truncate-text.js';
export { TOOL_NAME_PATTERN } from './validate-tool.js';
export { DEFAULT_IGNORED_DIRECTORIES } from './workspace/walk-files.js';
export type { WorkspaceToolsOptions } from './workspace/workspace-settings.js';
export { workspaceTools } from './workspace/workspace-tools.js';
export { zodToolSchema } from './zod-tool-schema.js';
